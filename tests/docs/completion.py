#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive real bash and real zsh completion of nvme-zns-npo2 and compare what
they offer with the command table.

    completion.py bash TABLE.json|NVME_ZNS_NPO2 BASH_COMPLETION_FILE [NVME_BASH_COMPLETION]
    completion.py zsh  TABLE.json|NVME_ZNS_NPO2 ZSH_COMPLETION_DIR [NVME_ZSH_COMPLETION_DIR]

bash: the completion function is called the way readline calls it
(COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT). With NVME_BASH_COMPLETION (nvme-cli's
completion with the zns-npo2 patch), `nvme zns-npo2 ...` is driven through
nvme's own `_nvme_subcmds`, with bash-completion loaded.
zsh: an interactive zsh runs in a pseudo terminal (zsh/zpty) with compinit;
each query is typed and completed with TAB, and every match zsh adds is
captured from compadd. With NVME_ZSH_COMPLETION_DIR (holding nvme-cli's _nvme
with the zns-npo2 patch), every query is also typed as `nvme zns-npo2 ...`.

Checked for every visible command: subcommand names; every option spelling;
the values of options that have a value list (-o, --state); device
arguments (fake /dev and /sys through ZNP_DEV_ROOT / ZNP_SYSFS_ROOT: ng
nodes and zoned block devices, not zone-less disks); mapping names where a
command takes one.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'completions'))
from znptable import load_table, options, spellings, visible_commands  # noqa: E402

failures = []
checks = 0


def expect(desc, got, want):
    global checks
    checks += 1
    if sorted(set(got)) != sorted(set(want)):
        failures.append('%s: got %s, want %s' % (desc, sorted(set(got)), sorted(set(want))))


def fake_tree(tmp):
    dev = os.path.join(tmp, 'dev')
    sys_ = os.path.join(tmp, 'sys')
    os.makedirs(dev)
    for n in ('ng0n1', 'ng0n2', 'ng1n1', 'nvme0', 'nvme0n2', 'sda'):
        open(os.path.join(dev, n), 'w').close()
    # dm-0 is a mapping made by `map`; dm-2 a zoned dm device made by something else
    for name, zoned, dm in (('nvme0n2', 'host-managed', None), ('sda', 'none', None),
                            ('nvme0n1', 'none', None),
                            ('dm-0', 'host-managed', ('po2map', 'ZNPO2-nguid:0011-n1')),
                            ('dm-1', 'none', ('linear0', 'LVM-abc')),
                            ('dm-2', 'host-managed', ('zoned0', 'dmz-1234'))):
        q = os.path.join(sys_, 'block', name, 'queue')
        os.makedirs(q)
        with open(os.path.join(q, 'zoned'), 'w') as f:
            f.write(zoned + '\n')
        if dm:
            os.makedirs(os.path.join(sys_, 'block', name, 'dm'))
            for attr, val in zip(('name', 'uuid'), dm):
                with open(os.path.join(sys_, 'block', name, 'dm', attr), 'w') as f:
                    f.write(val + '\n')
    devices = [os.path.join(dev, n)
               for n in ('ng0n1', 'ng0n2', 'ng1n1', 'nvme0n2', 'dm-0', 'dm-2')]
    return dev, sys_, devices, ['po2map']


def fake_files(tmp):
    """(prefix typed, expected completions) for FILE arguments."""
    d = os.path.join(tmp, 'files')
    os.makedirs(d)
    for n in ('ranges-a.txt', 'ranges-b.txt', 'other'):
        open(os.path.join(d, n), 'w').close()
    return os.path.join(d, 'ran'), [os.path.join(d, n) for n in ('ranges-a.txt', 'ranges-b.txt')]


def queries(table, devices, mappings, files=None):
    """[(desc, words typed before the cursor word, cursor word, expected)]"""
    opts, cmds = options(table), visible_commands(table)
    names = [c['name'] for c in cmds]
    q = [('subcommands', [], '', names),
         ('subcommands "re"', [], 're', [n for n in names if n.startswith('re')])]
    for c in cmds:
        sp = []
        for o in c['options']:
            sp += spellings(opts[o])
        q.append(('%s options' % c['name'], [c['name']], '-', sp))
        q.append(('%s long options' % c['name'], [c['name']], '--',
                  [s for s in sp if s.startswith('--')]))
        for o in c['options']:
            o = opts[o]
            if o.get('meta') == 'FILE' and files:
                q.append(('%s -%s file names' % (c['name'], o['short'] or '-' + o['long']),
                          [c['name'], '-' + o['short'] if o['short'] else '--' + o['long']],
                          files[0], files[1]))
            if o.get('values'):
                q.append(('%s -%s values' % (c['name'], o['short'] or '-' + o['long']),
                          [c['name'], '-' + o['short'] if o['short'] else '--' + o['long']],
                          '', o['values']))
        want = []
        if c['max_args'] > 0:
            if 'device' in c['args']:
                want += devices
            if 'name' in c['args'] or 'mapping' in c['args']:
                want += mappings
            if 'command' in c['args']:
                want += names
        if want or c['max_args'] == 0:
            q.append(('%s arguments' % c['name'], [c['name']],
                      '/' if want and all(w.startswith('/') for w in want) else '', want))
    return q


def run_bash(table, comp, nvme_comp):
    tmp = tempfile.mkdtemp()
    dev, sys_, devices, mappings = fake_tree(tmp)
    qs = queries(table, devices, mappings, fake_files(tmp))
    script = ['set +o history', 'export ZNP_DEV_ROOT=%s ZNP_SYSFS_ROOT=%s' % (dev, sys_)]
    if nvme_comp:
        script.append('. /usr/share/bash-completion/bash_completion')
        script.append('. %s' % nvme_comp)
    script.append('. %s' % comp)
    script.append('''q() {
	local fn=$1; shift
	COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
	COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	$fn "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	printf '%s\\n' "${COMPREPLY[@]}"
	echo "<<END>>"
}''')
    runs = [('nvme-zns-npo2', '_nvme_zns_npo2', ['nvme-zns-npo2'])]
    if nvme_comp:
        runs.append(('nvme zns-npo2', '_nvme_subcmds', ['nvme', 'zns-npo2']))
    order = []
    for label, fn, prefix in runs:
        for desc, words, cur, want in qs:
            if label.startswith('nvme '):
                if desc.split()[0] in ('help', 'version'):
                    continue	# nvme-cli's own there
                want = [w for w in want if w not in ('help', 'version')] \
                    if desc.startswith('subcommands') else want
            quoted = ' '.join("'%s'" % w for w in prefix + words + [cur])
            script.append('q %s %s' % (fn, quoted))
            order.append(('%s: %s' % (label, desc), want))
    if nvme_comp:
        script.append("q _nvme_subcmds nvme ''")
        order.append(('nvme: plugin name offered', None))
    out = subprocess.run(['bash', '--norc', '--noprofile', '-c', '\n'.join(script)],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        failures.append('bash exited %d: %s' % (out.returncode, out.stderr[-500:]))
    results = out.stdout.split('<<END>>\n')
    for i, (desc, want) in enumerate(order):
        got = [l for l in results[i].splitlines() if l] if i < len(results) else ['<missing>']
        if want is None:
            global checks
            checks += 1
            if 'zns-npo2' not in got:
                failures.append('%s: zns-npo2 not among %d nvme commands' % (desc, len(got)))
            continue
        expect(desc, got, want)


ZSH_SETUP = r'''
PS1='' PROMPT='' RPROMPT='' PS2=''
unsetopt zle_bracketed_paste 2>/dev/null
setopt no_beep
fpath=(%(compdir)s $fpath)
autoload -Uz compinit && compinit -u -D
zstyle ':completion:*' list-prompt ''
zstyle ':completion:*' select-prompt ''
zstyle ':completion:*' menu no
export ZNP_DEV_ROOT=%(dev)s ZNP_SYSFS_ROOT=%(sys)s
_znp_tab() {
	zle expand-or-complete
	print -r -- '<<TABDONE>>' >/dev/tty
}
zle -N _znp_tab
bindkey '^I' _znp_tab
compadd () {
	if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
		builtin compadd "$@"
		return $?
	fi
	typeset -a __hits __pfx
	builtin compadd -A __hits "$@"
	local r=$? h
	for h in $__hits; do
		print -r -- "<<C>>$h" >/dev/tty
	done
	builtin compadd "$@"
	return $r
}
'''


def run_zsh(table, compdir, nvme_compdir=None):
    tmp = tempfile.mkdtemp()
    dev, sys_, devices, mappings = fake_tree(tmp)
    qs = queries(table, devices, mappings, fake_files(tmp))
    setup = ZSH_SETUP % {'compdir': compdir + (' ' + nvme_compdir if nvme_compdir else ''),
                         'dev': dev, 'sys': sys_}
    setup_file = os.path.join(tmp, 'setup.zsh')
    with open(setup_file, 'w') as f:
        f.write(setup)
    opts = options(table)
    lines = []
    for desc, words, cur, want in qs:
        c = next((c for c in table['commands'] if words and c['name'] == words[0]), None)
        if desc.endswith(' arguments') and c and c['max_args'] == 0:
            # zsh's _arguments offers the options when nothing else fits
            want = []
            for o in c['options']:
                o = opts[o]
                want += ['--' + o['long']] + (['--' + o['alias']] if o['alias'] else []) + \
                    (['-' + o['short']] if o['short'] else [])
        if desc.endswith('file names'):
            want = [os.path.basename(w) for w in want]	# zsh adds the directory as -p prefix
        lines.append((desc, ' '.join(['nvme-zns-npo2'] + words + [cur]), want))
        if nvme_compdir:
            lines.append(('nvme zns-npo2: ' + desc,
                          ' '.join(['nvme', 'zns-npo2'] + words + [cur]), want))
    driver = [
        'zmodload zsh/zpty',
        'zpty -b z "zsh -f -i"',
        'zpty -w z ". %s; print \\"<<READY>>\\""' % setup_file,
        'zpty -r -m z out "*<<READY>>*" || exit 3',
        # a first completion loads the functions; its output is not used
        'zpty -n -w z %s' % shq('nvme-zns-npo2 li\t'),
        'zpty -r -m z out "*<<TABDONE>>*" || exit 3',
        'zpty -n -w z $\'\\x15\'',
        'zpty -w z %s' % shq("print '<<WARM''UP>>'"),
        'zpty -r -m z out "*<<WARMUP>>*" || exit 3',
    ]
    for i, (desc, line, want) in enumerate(lines):
        driver += [
            'zpty -n -w z %s' % shq(line + '\t'),
            # TAB is bound to a widget that completes, then prints a marker:
            # wait for it so that no key arrives while completion runs
            'out1=""; zpty -r -m z out1 "*<<TABDONE>>*" || exit 4',
            # then clear the line and mark the end
            'zpty -n -w z $\'\\x15\'',
            'zpty -w z %s' % shq("print '<<EN''D %d>>'" % i),
            'out=""; zpty -r -m z out "*<<END %d>>*" || exit 4' % i,
            'out="$out1$out"',
            'print -r -- "### %d"; print -r -- "$out"' % i,
        ]
    driver.append('zpty -d z')
    out = subprocess.run(['zsh', '-f', '-c', '\n'.join(driver)], capture_output=True,
                         text=True, timeout=180)
    if out.returncode != 0:
        failures.append('zsh driver exited %d: %s' % (out.returncode, out.stderr[-500:]))
    blocks = {}
    cur = None
    for l in out.stdout.replace('\r', '').splitlines():
        if l.startswith('### ') and l[4:].isdigit():
            cur = int(l[4:])
            blocks[cur] = []
        elif cur is not None and '<<C>>' in l:
            blocks[cur].append(l.split('<<C>>', 1)[1].rstrip())
    for i, (desc, line, want) in enumerate(lines):
        got = blocks.get(i, ['<missing>'])
        # zsh adds the "=" of --opt=VALUE as a suffix of the long option
        got = [g[:-1] if g.endswith('=') else g for g in got]
        expect('zsh: ' + desc, got, want)


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    mode, table_path = sys.argv[1], sys.argv[2]
    table = load_table(table_path)
    if mode == 'bash':
        run_bash(table, sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    elif mode == 'zsh':
        run_zsh(table, sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        sys.exit('usage: completion.py bash|zsh TABLE ...')
    for f in failures:
        print('completion: ' + f)
    print('completion (%s): %d checks, %d failed' % (mode, checks, len(failures)))
    return 1 if failures or checks == 0 else 0


if __name__ == '__main__':
    sys.exit(main())

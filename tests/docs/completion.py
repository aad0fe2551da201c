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
    """A fake /dev, /sys and ublk state directory: (dev, sys, run, devices
    offered to commands taking any device, devices offered to zone commands,
    mapping names)."""
    dev = os.path.join(tmp, 'dev')
    sys_ = os.path.join(tmp, 'sys')
    run = os.path.join(tmp, 'run')
    os.makedirs(dev)
    os.makedirs(run, mode=0o700)
    for n in ('ng0n1', 'ng0n2', 'ng0n3', 'ng1n1', 'nvme0', 'nvme0n2', 'nvme0n3', 'sda'):
        open(os.path.join(dev, n), 'w').close()
    # nvme0n1: the hidden block device of an npo2 namespace (no node, zoned
    # "none": the kernel did not take its zones); nvme0n3: a conventional
    # namespace, so ng0n3 is no device for a zone command; ng1n1: no block
    # device in sysfs at all. dm-0 is a mapping made by `map`; dm-2 a zoned
    # dm device made by something else.
    for name, zoned, hidden, dm in (
            ('nvme0n2', 'host-managed', '0', None), ('sda', 'none', None, None),
            ('nvme0n1', 'none', '1', None), ('nvme0n3', 'none', '0', None),
            ('dm-0', 'host-managed', None, ('po2map', 'ZNPO2-nguid:0011-n1')),
            ('dm-1', 'none', None, ('linear0', 'LVM-abc')),
            ('dm-2', 'host-managed', None, ('zoned0', 'dmz-1234'))):
        q = os.path.join(sys_, 'block', name, 'queue')
        os.makedirs(q)
        with open(os.path.join(q, 'zoned'), 'w') as f:
            f.write(zoned + '\n')
        if hidden is not None:
            with open(os.path.join(sys_, 'block', name, 'hidden'), 'w') as f:
                f.write(hidden + '\n')
        if dm:
            os.makedirs(os.path.join(sys_, 'block', name, 'dm'))
            for attr, val in zip(('name', 'uuid'), dm):
                with open(os.path.join(sys_, 'block', name, 'dm', attr), 'w') as f:
                    f.write(val + '\n')
    # ublk mappings recorded by `map --ublk` (svc.h): one named, one not
    for key, name, dev_id in (('nguid_3a0011', 'ubmap', 3), ('nguid_3a0022', '', 5)):
        with open(os.path.join(run, key + '.ublk'), 'w') as f:
            f.write('ident=x\nng=ng0n1\nname=%s\nnsid=1\ndev_id=%d\npid=1\n' % (name, dev_id))
    with open(os.path.join(run, 'junk.lock'), 'w') as f:
        f.write('name=notamapping\n')
    zoned = [os.path.join(dev, n)
             for n in ('ng0n1', 'ng0n2', 'ng1n1', 'nvme0n2', 'dm-0', 'dm-2')]
    devices = zoned + [os.path.join(dev, 'ng0n3')]
    return dev, sys_, run, devices, zoned, ['po2map', 'ubmap', 'ublkb3', 'ublkb5']


def fake_files(tmp):
    """(prefix typed, expected completions) for FILE arguments."""
    d = os.path.join(tmp, 'files')
    os.makedirs(d)
    for n in ('ranges-a.txt', 'ranges-b.txt', 'other'):
        open(os.path.join(d, n), 'w').close()
    os.makedirs(os.path.join(d, 'ranges-dir'))
    return os.path.join(d, 'ran'), [os.path.join(d, n)
                                    for n in ('ranges-a.txt', 'ranges-b.txt', 'ranges-dir')]


def queries(table, devices, zoned, mappings, files=None):
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
                want += zoned if c['zoned'] else devices
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
    dev, sys_, run, devices, zoned, mappings = fake_tree(tmp)
    files = fake_files(tmp)
    qs = queries(table, devices, zoned, mappings, files)
    script = ['set +o history',
              'export ZNP_DEV_ROOT=%s ZNP_SYSFS_ROOT=%s ZNP_RUN_DIR=%s' % (dev, sys_, run)]
    if nvme_comp:
        script.append('. /usr/share/bash-completion/bash_completion')
        script.append('. %s' % nvme_comp)
    script.append('. %s' % comp)
    # outside readline compopt only complains: record what was asked instead
    script.append('''compopt() { __compopt+=" $*"; }
q() {
	local fn=$1; shift
	COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
	COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
	COMPREPLY=() __compopt=
	$fn "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	printf '%s\\n' "${COMPREPLY[@]}"
	[[ -z $__compopt ]] || printf '<<COMPOPT>>%s\\n' "$__compopt"
	echo "<<END>>"
}
complete -p nvme-zns-npo2
echo "<<END>>"''')
    order = [('complete -p nvme-zns-npo2', ['complete -F _nvme_zns_npo2 nvme-zns-npo2'])]
    runs = [('nvme-zns-npo2', '_nvme_zns_npo2', ['nvme-zns-npo2'])]
    if nvme_comp:
        runs.append(('nvme zns-npo2', '_nvme_subcmds', ['nvme', 'zns-npo2']))
    for label, fn, prefix in runs:
        for desc, words, cur, want in qs:
            if label.startswith('nvme '):
                if desc.split()[0] in ('help', 'version'):
                    continue	# nvme-cli's own there
                want = [w for w in want if w not in ('help', 'version')] \
                    if desc.startswith('subcommands') else want
            quoted = ' '.join("'%s'" % w for w in prefix + words + [cur])
            script.append('q %s %s' % (fn, quoted))
            if desc.endswith('file names'):
                # a FILE argument asks readline for file-name handling
                want = want + ['<<COMPOPT>> -o filenames']
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
    bash_readline(comp, dev, sys_, run, files)


def bash_readline(comp, dev, sys_, run, files):
    """TAB typed into an interactive bash (a pseudo terminal, readline): a
    directory given to a FILE option completes as "dir/", not "dir "."""
    import pty
    import select
    import time
    global checks
    checks += 1
    d = os.path.dirname(files[0])
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(ZNP_DEV_ROOT=dev, ZNP_SYSFS_ROOT=sys_, ZNP_RUN_DIR=run,
                          PS1='$ ', INPUTRC='/dev/null', TERM='dumb')
        os.chdir(d)
        os.execvp('bash', ['bash', '--norc', '--noprofile', '-i'])
    out = b''

    def read_until(marker, timeout=30):
        nonlocal out
        end = time.time() + timeout
        while marker not in out and time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.5)
            if r:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    break
        return marker in out
    try:
        os.write(fd, b'. %s; echo READY""1\n' % comp.encode())
        read_until(b'READY1')
        # "ranges-d" is unique: readline completes it whole, and adds "/"
        # to a directory only under file-name handling
        out = b''
        os.write(fd, b'nvme-zns-npo2 discard --ranges ranges-d\t')
        read_until(b'ranges-dir', 15)
        time.sleep(0.5)
        while select.select([fd], [], [], 0.5)[0]:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
        os.write(fd, b'\x15exit\n')
    finally:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    text = out.decode(errors='replace')
    if 'ranges-dir/' not in text or 'ranges-dir ' in text:
        failures.append('bash readline: --ranges ranges-d<TAB> gave %r, want "ranges-dir/"'
                        % text[-200:])


ZSH_SETUP = r'''
PS1='' PROMPT='' RPROMPT='' PS2=''
unsetopt zle_bracketed_paste 2>/dev/null
setopt no_beep
fpath=(%(compdir)s $fpath)
autoload -Uz compinit && compinit -u -D
zstyle ':completion:*' list-prompt ''
zstyle ':completion:*' select-prompt ''
zstyle ':completion:*' menu no
export ZNP_DEV_ROOT=%(dev)s ZNP_SYSFS_ROOT=%(sys)s ZNP_RUN_DIR=%(run)s
%(styles)s
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


# What many users have in their .zshrc (compinstall, frameworks): headings
# through the format styles, groups, verbose descriptions.
ZSH_STYLES = r'''
zstyle ':completion:*' format 'Completing %d'
zstyle ':completion:*:descriptions' format '%B%d%b'
zstyle ':completion:*:messages' format '%d'
zstyle ':completion:*:warnings' format 'No matches for: %d'
zstyle ':completion:*' group-name ''
zstyle ':completion:*' verbose yes
zstyle ':completion:*' auto-description 'specify: %d'
'''

# What zsh prints when a completion function is broken; never part of a match.
ZSH_ERRORS = ('bad option', 'parse error', 'command not found', 'bad pattern',
              'bad substitution', 'no such file or directory', 'not enough arguments')


def run_zsh(table, compdir, nvme_compdir=None):
    run_zsh_styled(table, compdir, nvme_compdir, '', 'zsh')
    run_zsh_styled(table, compdir, nvme_compdir, ZSH_STYLES, 'zsh (format zstyles)')


def run_zsh_styled(table, compdir, nvme_compdir, styles, label):
    tmp = tempfile.mkdtemp()
    dev, sys_, run, devices, zoned, mappings = fake_tree(tmp)
    qs = queries(table, devices, zoned, mappings, fake_files(tmp))
    setup = ZSH_SETUP % {'compdir': compdir + (' ' + nvme_compdir if nvme_compdir else ''),
                         'dev': dev, 'sys': sys_, 'run': run, 'styles': styles}
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
    errors = {}
    cur = None
    for l in out.stdout.replace('\r', '').splitlines():
        if l.startswith('### ') and l[4:].isdigit():
            cur = int(l[4:])
            blocks[cur] = []
            errors[cur] = []
        elif cur is not None and '<<C>>' in l:
            blocks[cur].append(l.split('<<C>>', 1)[1].rstrip())
        elif cur is not None and any(e in l.lower() for e in ZSH_ERRORS):
            errors[cur].append(l.strip())
    global checks
    for i, (desc, line, want) in enumerate(lines):
        got = blocks.get(i, ['<missing>'])
        # zsh adds the "=" of --opt=VALUE as a suffix of the long option
        got = [g[:-1] if g.endswith('=') else g for g in got]
        expect('%s: %s' % (label, desc), got, want)
        checks += 1
        if errors.get(i):
            failures.append('%s: %s: zsh said %s' % (label, desc, errors[i][:3]))


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

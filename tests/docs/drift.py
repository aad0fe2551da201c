#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fail when the command table, the man pages and the nvme-cli plugin glue
disagree. The completions are generated from the table and checked by
driving real shells (completion-bash.sh, completion-zsh.zsh).

    drift.py TABLE.json|NVME_ZNS_NPO2 SOURCE_ROOT

Checked, for every visible command of the table:
  - Documentation/nvme-zns-npo2-<cmd>.adoc exists, is listed in
    Documentation/meson.build, its NAME line is the table's help text, its
    OPTIONS section documents exactly the command's options (every spelling,
    the same argument placeholder), its SYNOPSIS names every long option, and
    it has EXIT STATUS and EXAMPLES, and JSON OUTPUT when -o json applies;
  - nvme-zns-npo2(1) lists it under COMMANDS;
  - plugins/zns-npo2/zns-npo2.h has an ENTRY() with the same help text,
    zns-npo2.c defines its handler, and the nvme-cli completion hunk of the
    graft patch lists it (help and version are nvme-cli's own there);
and no page, ENTRY() or completion entry exists for a command the table
lacks. Prints one line per problem; exits 1 if there is any.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'completions'))
from znptable import load_table, options, spellings, visible_commands  # noqa: E402

problems = []


def bad(msg):
    problems.append(msg)


def read_adoc(path, depth=0):
    """The page with include:: directives resolved."""
    out = []
    base = os.path.dirname(path)
    with open(path) as f:
        for line in f:
            m = re.match(r'^include::([^\[]+)\[\]\s*$', line)
            if m and depth < 5:
                out.extend(read_adoc(os.path.join(base, m.group(1)), depth + 1))
            else:
                out.append(line.rstrip('\n'))
    return out


def sections(lines):
    """{'NAME': [lines], 'OPTIONS': [...]} of a page (level-1 headings)."""
    secs, cur = {}, None
    for line in lines:
        m = re.match(r'^== (.+?)\s*$', line)
        if m:
            cur = m.group(1)
            secs.setdefault(cur, [])
        elif cur:
            secs[cur].append(line)
    return secs


def option_terms(lines):
    """[(names, metas)] of the definition-list terms of an OPTIONS section."""
    terms = []
    for line in lines:
        if not line.endswith('::') or line.startswith((' ', '\t')):
            continue
        found = re.findall(r'\*(--?[A-Za-z0-9][\w-]*)\*(?:[= ]_([A-Z]+)_)?', line)
        if found:
            terms.append(([n for n, _ in found], {n: m or None for n, m in found}))
    return terms


def check_page(root, c, opts):
    name = 'nvme-zns-npo2-' + c['name']
    path = os.path.join(root, 'Documentation', name + '.adoc')
    if not os.path.exists(path):
        bad('%s: no man page (Documentation/%s.adoc)' % (c['name'], name))
        return
    lines = read_adoc(path)
    if lines[0] != '= %s(1)' % name:
        bad('%s: title is %r, want "= %s(1)"' % (path, lines[0], name))
    secs = sections(lines)
    for want in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'EXIT STATUS', 'EXAMPLES'):
        if want not in secs:
            bad('%s: no %s section' % (path, want))
    if 'output-format' in c['options'] and 'JSON OUTPUT' not in secs:
        bad('%s: -o json applies but there is no JSON OUTPUT section' % path)
    namel = ' '.join(l for l in secs.get('NAME', []) if l.strip())
    if namel != '%s - %s' % (name, c['help']):
        bad('%s: NAME is %r, the table says %r' % (path, namel, '%s - %s' % (name, c['help'])))

    want = {o: opts[o] for o in c['options']}
    seen = set()
    for names, metas in option_terms(secs.get('OPTIONS', [])):
        longs = [n for n in names if n.startswith('--')]
        o = next((opts[l] for l in (n[2:] for n in longs) if l in want), None)
        if o is None:
            o = next((v for v in want.values() if set(names) & set(spellings(v))), None)
        if o is None:
            bad('%s: documents %s, which %s does not take' % (path, '/'.join(names), c['name']))
            continue
        seen.add(o['long'])
        if sorted(names) != sorted(spellings(o)):
            bad('%s: documents %s as %s, the table has %s' % (
                path, o['long'], ', '.join(names), ', '.join(spellings(o))))
        for n in names:
            meta = metas.get(n)
            if o['kind'] == 'flag' and meta:
                bad('%s: %s takes no argument, documented with _%s_' % (path, n, meta))
            if o['kind'] != 'flag' and meta != o['meta']:
                bad('%s: %s argument documented as %s, the table says %s' % (
                    path, n, meta, o['meta']))
    for o in want:
        if o not in seen:
            bad('%s: option --%s of %s is not documented' % (path, o, c['name']))
    synopsis = '\n'.join(secs.get('SYNOPSIS', []))
    for o in want:
        if '*--%s*' % o not in synopsis:
            bad('%s: SYNOPSIS lacks --%s' % (path, o))


def main():
    table_path, root = sys.argv[1], sys.argv[2]
    table = load_table(table_path)
    opts, cmds = options(table), visible_commands(table)
    names = [c['name'] for c in cmds]
    for c in cmds:
        for o in c['options']:
            if o not in opts:
                bad('table: %s lists unknown option %s' % (c['name'], o))
        check_page(root, c, opts)

    docdir = os.path.join(root, 'Documentation')
    meson = open(os.path.join(docdir, 'meson.build')).read()
    for fn in sorted(os.listdir(docdir)):
        m = re.match(r'^nvme-zns-npo2-(.+)\.adoc$', fn)
        if m and m.group(1) not in names:
            bad('Documentation/%s: no command %s in the table' % (fn, m.group(1)))
        if fn.startswith('nvme-zns-npo2') and fn.endswith('.adoc') and \
                "'%s'" % fn[:-5] not in meson:
            bad('Documentation/meson.build: %s is not built' % fn)
    main_secs = sections(read_adoc(os.path.join(docdir, 'nvme-zns-npo2.adoc')))
    listed = set(re.findall(r'\*([a-z][\w-]*)\*', '\n'.join(main_secs.get('COMMANDS', []))))
    for n in names:
        if n not in listed:
            bad('nvme-zns-npo2(1): COMMANDS does not list %s' % n)

    # nvme-cli glue: help and version are handled by nvme-cli itself.
    plug = os.path.join(root, 'plugins', 'zns-npo2')
    glue_cmds = [c for c in cmds if c['name'] not in ('help', 'version')]
    hdr = open(os.path.join(plug, 'zns-npo2.h')).read()
    helpdefs = dict(re.findall(r'^#define\s+(ZNP_H_\w+)\s+"([^"]*)"\s*$', hdr, re.M))
    entries = [(n, helpdefs.get(h, h).strip('"'), fn) for n, h, fn in
               re.findall(r'ENTRY\("([^"]+)",\s*(\w+|"[^"]*"),\s*(\w+)\)', hdr)]
    if [e[0] for e in entries] != [c['name'] for c in glue_cmds]:
        bad('zns-npo2.h: ENTRY() commands %s, the table has %s' % (
            [e[0] for e in entries], [c['name'] for c in glue_cmds]))
    helps = {c['name']: c['help'] for c in cmds}
    glue = open(os.path.join(plug, 'zns-npo2.c')).read()
    defined = set(re.findall(r'^GLUE_CMD\((\w+)\)', glue, re.M))
    for name, hlp, fn in entries:
        if name in helps and hlp != helps[name]:
            bad('zns-npo2.h: help of %s is %r, the table says %r' % (name, hlp, helps[name]))
        if fn not in defined:
            bad('zns-npo2.c: no GLUE_CMD(%s) for ENTRY %s' % (fn, name))
    # every per-version graft patch (and the upstream patch) names the commands for bash
    patches = sorted(glob.glob(os.path.join(plug, 'nvme-cli', '*.patch')) +
                     glob.glob(os.path.join(plug, 'upstream', '*.patch')))
    if not patches:
        bad('plugins/zns-npo2/nvme-cli/: no graft patches')
    for pf in patches:
        name = os.path.relpath(pf, plug)
        m = re.search(r'^\+\s*\[zns-npo2\]="([^"]*)"\s*$', open(pf).read(), re.M)
        if not m:
            bad('%s: no [zns-npo2]= subcommand list for bash' % name)
        elif m.group(1).split() != [c['name'] for c in glue_cmds]:
            bad('%s: bash subcommands %s, the table has %s' % (
                name, m.group(1).split(), [c['name'] for c in glue_cmds]))

    for p in problems:
        print('drift: ' + p)
    checked = len(cmds)
    if problems:
        print('drift: %d problem(s) over %d commands' % (len(problems), checked))
        return 1
    print('drift: %d commands, %d options: table, man pages and plugin glue agree' % (
        checked, sum(len(c['options']) for c in cmds)))
    return 0


if __name__ == '__main__':
    sys.exit(main())

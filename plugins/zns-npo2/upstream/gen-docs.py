#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""nvme-cli's man pages for `nvme zns-npo2 <cmd>`, from the zns-npo2 command table.

    gen-docs.py TABLE.json|NVME_ZNS_NPO2 OUTDIR

Writes OUTDIR/nvme-zns-npo2-<cmd>.txt in nvme-cli's asciidoc format (SYNOPSIS
as [verse], OPTIONS as "-s <META>::" / "--long=<META>::" items, the
global-options include, EXAMPLES, NVME) for every visible command except help
and version (nvme-cli's own), and prints the command names with their help,
one "name<TAB>help" per line, for Documentation/meson.build and cmd-plugins.txt.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                                'completions'))
from znptable import load_table, options, visible_commands  # noqa: E402

EXAMPLES = {
    'list': ('List ZNS namespaces, npo2 ones with hidden block devices included',
             'nvme zns-npo2 list'),
    'report': ('Report the zones of a namespace as JSON', 'nvme zns-npo2 report /dev/ng0n1 -o json'),
    'check': ('Tell whether a namespace can be mapped to power-of-2 zones',
              'nvme zns-npo2 check /dev/ng0n1'),
    'reset': ('Reset every zone', 'nvme zns-npo2 reset /dev/ng0n1 --all --force'),
    'discard': ('Show the commands a discard of the first GiB would send',
                'nvme zns-npo2 discard /dev/ng0n1 --length=1G --dry-run'),
    'map': ('Map a namespace to power-of-2 zones', 'nvme zns-npo2 map /dev/ng0n1'),
    'status': ('Show the mappings', 'nvme zns-npo2 status'),
}


def meta(o):
    return '<%s>' % (o['meta'] or 'VAL').upper()


def page(cmd, opts):
    name = 'nvme-zns-npo2-%s' % cmd['name']
    title = '%s(1)' % name
    out = [title, '=' * len(title), '', 'NAME', '----',
           '%s - %s' % (name, cmd['help'][0].upper() + cmd['help'][1:]), '',
           'SYNOPSIS', '--------', '[verse]']
    args = (' ' + cmd['args']) if cmd['args'] else ''
    out.append("'nvme' [<global-options>] 'zns-npo2 %s'%s" % (cmd['name'], args))
    for oid in cmd['options']:
        o = opts[oid]
        if o['long'] == 'help':
            continue
        arg = '' if o['kind'] == 'flag' else '=' + meta(o)
        alts = ['--%s%s' % (o['long'], arg)]
        if o['alias']:
            alts.append('--%s%s' % (o['alias'], arg))
        if o['short']:
            alts.append('-%s%s' % (o['short'], '' if o['kind'] == 'flag' else ' ' + meta(o)))
        out.append('\t\t\t[%s]' % ' | '.join(alts))
    out += ['', 'DESCRIPTION', '-----------',
            'For the zoned namespace given, %s.' % cmd['help'] if cmd['args'] else
            'Does what its name says: %s.' % cmd['help'], '',
            'Zone sizes need not be a power of two: the command works on npo2',
            'namespaces, also where the kernel hides their block device and only the',
            'NVMe generic character device (/dev/ngXnY) exists. It is the command of',
            'the same name of the standalone nvme-zns-npo2(1), with the same options,',
            'output and exit status.',
            '', 'OPTIONS', '-------']
    for oid in cmd['options']:
        o = opts[oid]
        if o['long'] == 'help':
            continue
        arg = '' if o['kind'] == 'flag' else meta(o)
        if o['short']:
            out.append('-%s%s::' % (o['short'], ' ' + arg if arg else ''))
        out.append('--%s%s::' % (o['long'], '=' + arg if arg else ''))
        if o['alias']:
            out.append('--%s%s::' % (o['alias'], '=' + arg if arg else ''))
        h = o['help'][0].upper() + o['help'][1:]
        if o.get('values') and not all(v in h for v in o['values']):
            h += ' (%s)' % ', '.join(o['values'])
        out += ['\t%s.' % h.rstrip('.'), '']
    out += ['include::global-options.txt[]', '']
    if cmd['name'] in EXAMPLES:
        what, line = EXAMPLES[cmd['name']]
        out += ['EXAMPLES', '--------', '* %s:' % what, '+', '------------',
                '# %s' % line, '------------', '']
    out += ['NVME', '----', 'Part of nvme-cli', '']
    return name, '\n'.join(out)


def main():
    table = load_table(sys.argv[1])
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    opts = options(table)
    for c in visible_commands(table):
        if c['name'] in ('help', 'version'):
            continue
        name, text = page(c, opts)
        with open(os.path.join(outdir, name + '.txt'), 'w') as f:
            f.write(text)
        print('%s\t%s' % (name, c['help']))


if __name__ == '__main__':
    main()

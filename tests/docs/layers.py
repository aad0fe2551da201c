#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The layers of `make test` against their documentation: one numbering.

- every tests/layers.d/NN-NAME.sh has its own two-digit number (no two
  layers share one);
- README.md's layer table (## Tests, first column: layer names, several
  separated by commas) names every layer file, and names no layer that has
  no file;
- a "layer N" in a layer file's header comment or in the READMEs names an
  existing layer by its two-digit number (not an older "Layer 5b"-style one).

Usage: layers.py SOURCE_ROOT. Prints TAP lines; exit 1 on any drift.
"""
import glob
import os
import re
import sys

fails = 0
n = 0


def result(good, desc):
    global fails, n
    n += 1
    print('%s %d - %s' % ('ok' if good else 'not ok', n, desc))
    if not good:
        fails += 1


def readme_layers(path):
    """names in the first column of the table under '| layer |' in ## Tests"""
    lines = open(path).read().split('\n')
    names, in_table = [], False
    for ln in lines:
        if re.match(r'^\|\s*layer\s*\|', ln):
            in_table = True
            continue
        if in_table:
            if not ln.startswith('|'):
                break
            cell = ln.split('|')[1].strip()
            if set(cell) <= set('-: '):
                continue
            names += [c.strip().strip('`') for c in cell.split(',') if c.strip()]
    return names


def main():
    root = sys.argv[1]
    files = sorted(glob.glob(os.path.join(root, 'tests', 'layers.d', '*.sh')))
    layers = [os.path.basename(f)[:-3] for f in files]
    bad_names = [l for l in layers if not re.match(r'^\d\d-[a-z0-9-]+$', l)]
    result(not bad_names, 'layer files are named NN-name.sh%s' %
           (': not %s' % ', '.join(bad_names) if bad_names else ''))
    by_num = {}
    for l in layers:
        by_num.setdefault(l[:2], []).append(l)
    dups = ['%s (%s)' % (k, ', '.join(v)) for k, v in sorted(by_num.items()) if len(v) > 1]
    result(not dups, 'each layer number is used once%s' %
           (': shared: %s' % '; '.join(dups) if dups else ''))

    table = readme_layers(os.path.join(root, 'README.md'))
    result(bool(table), "README.md has a layer table ('| layer | ... |')")
    missing = [l for l in layers if l not in table]
    result(not missing, 'README.md layer table lists every layer file%s' %
           (': missing %s' % ', '.join(missing) if missing else ''))
    extra = [t for t in table if t not in layers]
    result(not extra, 'every layer in README.md\'s table has a file in tests/layers.d%s' %
           (': no file for %s' % ', '.join(extra) if extra else ''))
    twice = sorted({t for t in table if table.count(t) > 1})
    result(not twice, 'README.md lists each layer once%s' %
           (': twice: %s' % ', '.join(twice) if twice else ''))

    docs = files + [os.path.join(root, 'README.md')] + \
        sorted(glob.glob(os.path.join(root, 'tests', '**', 'README.md'), recursive=True))
    wrong = []
    for d in docs:
        text = open(d).read()
        if d in files:      # a layer file: its header comment only
            text = '\n'.join(re.match(r'((?:#.*\n|\n)*)', text).group(1).split('\n'))
        for m in re.finditer(r'\b[Ll]ayers? (\d+[a-z]?)\b', text):
            num = m.group(1)
            if not re.match(r'^\d\d$', num) or num not in by_num:
                wrong.append('%s: "%s"' % (os.path.relpath(d, root), m.group(0)))
    result(not wrong, '"layer N" in the layer headers and READMEs names an existing layer%s' %
           (': %s' % '; '.join(wrong) if wrong else ''))
    print('# layers: %d files, %d in README.md\'s table' % (len(layers), len(table)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())

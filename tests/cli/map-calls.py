#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The mapping commands of src/cli call one way: no file calls a file that
calls it back, directly or around a circle (issue: map -> ublkmap -> map's
helpers). Read from the objects of the command layer's library with nm:
a file calls another when it uses a symbol the other defines. Prints the
edges found; exits 1 on a circle.

    map-calls.py LIBZNPCLI.a
"""
import subprocess
import sys

# the mapping commands and what they share (src/cli/README.md)
FILES = ('cmd_map.c', 'cmd_mapctx.c', 'cmd_map_restore.c', 'cmd_mapcat.c', 'cmd_ublk.c',
         'cmd_ublkmap.c', 'cmd_ublkmap_daemon.c', 'cmd_unmap.c', 'cmd_status.c')


def symbols(lib):
    """{object file: (defined, used)} from nm's listing of the archive."""
    out = subprocess.run(['nm', lib], check=True, capture_output=True, text=True).stdout
    objs, cur = {}, None
    for line in out.splitlines():
        if line.endswith(':') and line.strip():
            cur = line[:-1].rsplit('/', 1)[-1]
            # meson names the members after their source: cmd_map.c.o
            cur = cur[:-2] if cur.endswith('.o') else cur
            objs[cur] = (set(), set())
            continue
        parts = line.split()
        if cur is None or len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        if kind == 'U':
            objs[cur][1].add(name)
        elif kind in 'TDBR':
            objs[cur][0].add(name)
    return objs


def main():
    objs = symbols(sys.argv[1])
    missing = [f for f in FILES if f not in objs]
    if missing:
        print('not ok - not in the library: %s' % ' '.join(missing))
        return 1
    edges = {f: sorted(g for g in FILES if g != f and objs[f][1] & objs[g][0]) for f in FILES}
    for f in FILES:
        print('# %-22s -> %s' % (f, ' '.join(edges[f]) or '-'))
    # a circle: a file reached again from itself (depth first, colours)
    state, circles = {}, []

    def walk(f, path):
        state[f] = 1
        for g in edges[f]:
            if state.get(g) == 1:
                circles.append(path[path.index(g):] + [g])
            elif g not in state:
                walk(g, path + [g])
        state[f] = 2

    for f in FILES:
        if f not in state:
            walk(f, [f])
    for c in circles:
        print('not ok - the mapping commands call in a circle: %s' % ' -> '.join(c))
    if not circles:
        print('ok - %d mapping command files, %d calls, no circle' %
              (len(FILES), sum(len(e) for e in edges.values())))
    return 1 if circles else 0


if __name__ == '__main__':
    sys.exit(main())

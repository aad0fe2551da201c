#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""zonemap against emulated namespaces (tests/emu) driven into a known mixed
state with real zone operations and writes (tests/lib/zonemix.py).

Usage: zonemap.py BINARY LIBZNPEMU MKFAKE GOLDEN_DIR SOURCE_ROOT
       ZNP_UPDATE_GOLDEN=1 ... rewrites the golden files.

The pictures are compared with golden files and, cell by cell, with the
state the operations left (zonemix.EXPECT, not the tool's own output); the
SVG is parsed by xmllint and xml.etree, rendered by rsvg-convert, and the
PNG's pixels are checked at the cells' positions against the documented
colours. A namespace of 1,000,000 zones is drawn grouped in bounded memory.
"""
import fcntl
import math
import os
import re
import select
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import termios
import xml.etree.ElementTree as ET
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import pngread  # noqa: E402
import zonemix  # noqa: E402
import znptest  # noqa: E402
from zonemix import ZSZE, ZCAP, NZONES, LBA, PO2, MAPPING, expect  # noqa: E402
from znptest import check  # noqa: E402

BIN, EMU, MKFAKE, GOLDEN, SRC = (os.path.abspath(a) for a in sys.argv[1:6])
SANITIZED = os.environ.get('ZNP_SANITIZE', 'none') not in ('', 'none')
PROG = 'nvme-zns-npo2'
SVG_NS = '{http://www.w3.org/2000/svg}'

STATES = ['empty', 'implicit-open', 'explicit-open', 'closed', 'full', 'read-only', 'offline']
MONO = {'empty': '.', 'implicit-open': 'o', 'explicit-open': 'O', 'closed': 'c', 'full': '#',
        'read-only': 'r', 'offline': 'X'}
SGR = {'empty': '90', 'implicit-open': '92', 'explicit-open': '36', 'closed': '33',
       'full': '34', 'read-only': '35', 'offline': '1;31'}
BLOCKS = ' \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588'
# the documented SVG colours (nvme-zns-npo2-zonemap(1)): written part, unwritten tint
FILL = {'empty': '#e6e6e6', 'implicit-open': '#43a047', 'explicit-open': '#00897b',
        'closed': '#fb8c00', 'full': '#1e5aa8', 'read-only': '#8e44ad', 'offline': '#c62828'}
TINT = {'empty': '#e6e6e6', 'implicit-open': '#c8e6c9', 'explicit-open': '#b2dfdb',
        'closed': '#ffe0b2', 'full': '#c5d5ee', 'read-only': '#e1cdea', 'offline': '#c62828'}
PAD = '#fff59d'

# 1,000,000 zones (preset: zone i%5 = 0,3 empty; 1,4 full; 2 closed half written)
BIG_ZSZE, BIG_ZONES = 0x3000, 1000000
EXTRA_CONFIG = """\
path=dev/ng1n1 kind=ng ctrl=nvme1 nsid=1 lba=512 zsze=0x3000 zones=1000000 disk=none preset=mixed state=big.state
path=dev/dm-7 kind=blk lba=4096 zsze=32768 zcap=24576 zones=50
path=dev/ng9n1 kind=ng ctrl=nvme9 nsid=1 lba=512 zsze=0x3000 zones=200 disk=none mdts=8k errno_io=0x7a:2:4
path=dev/ng8n1 kind=ng ctrl=nvme8 nsid=1 lba=512 zsze=0x3000 zones=200 disk=none mdts=8k fail_io=0x7a:2:0x4002
"""


def rgb(hexcol):
    return tuple(int(hexcol[i:i + 2], 16) for i in (1, 3, 5))


class Run(znptest.Run):
    timeout = 120

    def __init__(self, root, args, env_extra=None):
        # the caller's terminal settings must not leak into the pictures
        self.env_extra = dict({'COLUMNS': None, 'NO_COLOR': None}, **(env_extra or {}))
        super().__init__(BIN, EMU, root, args)

    def execute(self, argv, root, env, stdin):
        env = dict(env, **self.env_extra)
        for k in [k for k, v in env.items() if v is None]:
            del env[k]
        super().execute(argv, root, env, stdin)


def golden(name, text):
    znptest.golden(GOLDEN, name, text)


def ok_run(root, args, name=None, env=None):
    r = Run(root, args, env)
    check(r.rc == 0 and r.err == '', '%s -> exit 0, clean stderr (got %d, %r)' %
          (' '.join(args), r.rc, r.err))
    check(not r.io(0x79) and not r.io(0x01), '%s sends no zone management or write' %
          ' '.join(args))
    if name:
        golden(name, r.out)
    return r


def expect_err(root, args, rc, dev, problem):
    r = Run(root, args)
    line = r.err.rstrip('\n')
    check(r.rc == rc and '\n' not in line and line.startswith('%s: %s: ' % (PROG, dev)) and
          problem in line and not r.io(0x79),
          '%s -> exit %d, one line naming %s with %r: %r (exit %d)' %
          (' '.join(args), rc, dev, problem, line, r.rc))
    return r


def rows_of(text, label_width):
    """{first zone: cells text} of the picture rows."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r'^ *(\d+) (.*)$', line)
        if m and len(line) > label_width and line[label_width] == ' ' and \
                not line.startswith(('written', 'padding')):
            rows[int(m.group(1))] = m.group(2)
    return rows


def legend_counts(text):
    return {n: int(c) for n, c in re.findall(r'(?:^|  )\S+ ([a-z-]+) (\d+)', text, re.M)}


def expected_totals(zones):
    cnt = Counter(expect(z)[0] for z in zones)
    written = sum(expect(z)[1] for z in zones)
    return cnt, written


def test_mono(root):
    r = ok_run(root, ['zonemap', 'dev/ng0n1', '-w', '80'], 'mono.txt')
    check('\x1b' not in r.out, 'not a terminal: no escape sequence')
    rows = rows_of(r.out, 2)
    cells = ''.join(rows.get(k, '') for k in sorted(rows))
    want = ''.join(MONO[expect(z)[0]] for z in range(NZONES))
    check(list(rows) == [0] and cells == want,
          'one row of 50 cells, each the character of the state the operations left: %r' % cells)
    cnt, written = expected_totals(range(NZONES))
    legend = legend_counts(r.out)
    check(all(legend.get(s) == cnt.get(s, 0) for s in STATES) and 'conventional' not in legend,
          'legend counts per state as driven: %s' % legend)
    check('(%d of %d LBAs)' % (written, NZONES * ZCAP) in r.out,
          'written LBAs: %d of %d' % (written, NZONES * ZCAP))
    # a range: zones 10-14, from an LBA inside zone 10
    r = ok_run(root, ['zonemap', 'dev/ng0n1', '-s', hex(10 * ZSZE + 5), '-c', '5'])
    rows = rows_of(r.out, 2)
    check(rows == {10: ''.join(MONO[expect(z)[0]] for z in range(10, 15))} and
          'zones 10-14 of 50' in r.out, '-s inside zone 10 -c 5: zones 10-14: %s' % rows)
    # narrow: 40 columns -> rows of 30 cells
    r = ok_run(root, ['zonemap', 'dev/ng0n1', '-w', '40'])
    rows = rows_of(r.out, 2)
    check(sorted(rows) == [0, 30] and len(rows[0]) == 30 and len(rows[30]) == 20,
          '--width 40: rows of 30 cells labelled 0 and 30: %s' % {k: len(v) for k, v in rows.items()})


def colour_cells(line):
    return re.findall(r'\x1b\[([0-9;]+)m(.)\x1b\[0m', line)


def want_glyph(z):
    st, w = expect(z)
    if st == 'empty':
        return '\u00b7'
    if st == 'offline':
        return 'X'
    return BLOCKS[max(1, min(8, math.ceil(8 * w / ZCAP)))]


def test_colour(root):
    r = ok_run(root, ['zonemap', 'dev/ng0n1', '--color=always'], 'color-utf8.txt',
               {'LC_ALL': 'C.UTF-8'})
    row = [l for l in r.out.splitlines() if l.startswith(' 0 ')]
    cells = colour_cells(row[0]) if row else []
    want = [(SGR[expect(z)[0]], want_glyph(z)) for z in range(NZONES)]
    check(cells == want, 'colour, UTF-8: every cell has its state\'s colour and its fill '
          'in eighths (%d cells)' % len(cells))
    mono = Run(root, ['zonemap', 'dev/ng0n1']).out
    r = ok_run(root, ['zonemap', 'dev/ng0n1', '--color=always'], None, {'LC_ALL': 'C'})
    check('\x1b[' in r.out and re.sub(r'\x1b\[[0-9;]*m', '', r.out) == mono,
          'colour, C locale: the characters of the plain picture, coloured')
    r = ok_run(root, ['zonemap', 'dev/ng0n1', '--color=never'], None, {'LC_ALL': 'C.UTF-8'})
    check(r.out == mono, '--color=never: the plain picture')


def run_pty(root, args, cols, env_extra):
    """Run with stdout on a pty of @cols columns; Return: (rc, output)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, cols, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR          # keep \n as \n
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    env = dict(znptest.emu_env(EMU, root), **env_extra)
    for k in [k for k, v in env.items() if v is None]:
        del env[k]
    p = subprocess.Popen([BIN] + args, cwd=root, env=env, stdin=subprocess.DEVNULL,
                         stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    out = b''
    while True:
        if not select.select([master], [], [], 30)[0]:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    p.wait(timeout=30)
    os.close(master)
    return p.returncode, out.decode('utf-8', 'replace')


def test_terminal(root):
    plain = {'NO_COLOR': None, 'COLUMNS': None, 'LC_ALL': 'C'}
    rc, out = run_pty(root, ['zonemap', 'dev/ng0n1'], 40, plain)
    rows = rows_of(re.sub(r'\x1b\[[0-9;]*m', '', out), 2)
    check(rc == 0 and '\x1b[' in out and sorted(rows) == [0, 30],
          'on a 40-column terminal: colour, rows of 30 cells (TIOCGWINSZ): %s' % sorted(rows))
    rc, out = run_pty(root, ['zonemap', 'dev/ng0n1'], 40, dict(plain, NO_COLOR='1'))
    want = Run(root, ['zonemap', 'dev/ng0n1', '-w', '40']).out
    check(rc == 0 and out == want, 'NO_COLOR on a terminal: the plain picture, characters only')
    rc, out = run_pty(root, ['zonemap', 'dev/ng0n1'], 40, dict(plain, NO_COLOR=''))
    check(rc == 0 and '\x1b[' in out, 'NO_COLOR set but empty: colour')
    rc, out = run_pty(root, ['zonemap', 'dev/ng0n1'], 40, dict(plain, COLUMNS='60'))
    rows = rows_of(re.sub(r'\x1b\[[0-9;]*m', '', out), 2)
    check(rc == 0 and sorted(rows) == [0] and len(rows[0]) == 50,
          'COLUMNS=60 wins over the terminal\'s 40: one row of 50 cells')
    r = ok_run(root, ['zonemap', 'dev/ng0n1'], None, {'COLUMNS': '40'})
    check(sorted(rows_of(r.out, 2)) == [0, 30], 'COLUMNS=40 without a terminal: rows of 30')


def test_padding(root):
    r = ok_run(root, ['zonemap', 'dev/nvme0n1', '--padding'], 'padding.txt')
    check('padding: %s (dm-po2zone), %d LBAs per zone: %d padding (25.0%%)' %
          (MAPPING, PO2, PO2 - ZSZE) in r.out,
          '--padding names the mapping and its sizes (%d of %d LBAs)' % (ZSZE, PO2))
    rows = rows_of(r.out, 2)
    cells = ''.join(rows.get(k, '') for k in sorted(rows))
    check(cells == ''.join(MONO[expect(z)[0]] + '~' for z in range(NZONES)),
          '--padding: each cell followed by the padding character')
    r2 = ok_run(root, ['zonemap', 'dev/ng0n1', '-P'])
    check(r2.out.replace('dev/ng0n1', 'dev/nvme0n1') == r.out,
          '--padding through the ng node: the mapping of its block device')
    expect_err(root, ['zonemap', 'dev/ng1n1', '--padding'], 3, 'dev/ng1n1',
               'not a power-of-2 mapping, and none on top of it')
    # a zoned block device with po2 zones that device-mapper does not know as ours
    expect_err(root, ['zonemap', 'dev/dm-7', '--padding'], 3, 'dev/dm-7',
               'not a power-of-2 mapping, and none on top of it')
    r = ok_run(root, ['zonemap', 'dev/dm-7'])
    check('32768 LBAs each (128 MiB, power of 2)' in r.out and
          rows_of(r.out, 2) == {0: '.' * 50}, 'a zoned block device: its 50 empty zones')


def test_bad(root):
    expect_err(root, ['zonemap', 'dev/ng0n1', '-w', '3'], 2, 'dev/ng0n1', '--width must be')
    expect_err(root, ['zonemap', 'dev/ng0n1', '--color=sometimes'], 2, 'dev/ng0n1', '--color')
    expect_err(root, ['zonemap', 'dev/ng0n1', '-c', '0'], 2, 'dev/ng0n1', 'at least 1')
    expect_err(root, ['zonemap', 'dev/ng0n1', '-s', hex(NZONES * ZSZE)], 2, 'dev/ng0n1',
               'past the end')
    expect_err(root, ['zonemap', 'dev/ng0n1', '--svg', os.path.join(root, 'no', 'x.svg')], 1,
               'dev/ng0n1', 'cannot write')
    svg = os.path.join(root, 'fault.svg')
    expect_err(root, ['zonemap', 'dev/ng8n1', '--svg', svg], 1, 'dev/ng8n1',
               'zone report failed: NVMe status 0x4002')
    left = [f for f in os.listdir(root) if f.startswith('fault.svg')]
    check(not left, 'a report failing mid-way leaves no SVG, nor a temporary file: %s' % left)
    # the report's second command interrupted (EINTR, as Ctrl-C does): exit 130, no file
    svg = os.path.join(root, 'intr.svg')
    expect_err(root, ['zonemap', 'dev/ng9n1', '--svg', svg], 130, 'dev/ng9n1',
               'interrupted; no SVG written')
    left = [f for f in os.listdir(root) if f.startswith('intr.svg')]
    check(not left, 'interrupted: no SVG, nor a temporary file: %s' % left)
    r = Run(root, ['zonemap', 'dev/ng8n1'])
    check(r.rc == 1 and 'report incomplete' in r.out, 'text: the partial picture says so')


def test_svg_targets(root):
    """--svg never replaces what is not a regular file, follows the admin's
    symbolic link once (the file made beside its target), and keeps an
    existing file's owner and mode."""
    d = os.path.join(root, 'targets')
    os.mkdir(d)

    def leftovers(where):
        return [f for f in os.listdir(where) if f.startswith('.')]

    fifo, sock, sub = os.path.join(d, 'fifo'), os.path.join(d, 'sock'), os.path.join(d, 'sub')
    os.mkfifo(fifo)
    s = socket.socket(socket.AF_UNIX)
    s.bind(sock)
    os.mkdir(sub)
    targets = [(fifo, 'a FIFO', stat.S_ISFIFO), (sock, 'a socket', stat.S_ISSOCK),
               (sub, 'a directory', stat.S_ISDIR)]
    root_user = os.geteuid() == 0
    if root_user:
        node = os.path.join(d, 'full')
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # /dev/full's numbers
        targets.append((node, 'a character device', stat.S_ISCHR))
    else:
        print('# not root: --svg at a device node and a file of another owner left out')
    for path, what, is_type in targets:
        expect_err(root, ['zonemap', 'dev/ng0n1', '--svg', path], 2, 'dev/ng0n1',
                   'will not write %s: it is %s, not a regular file' % (path, what))
        check(is_type(os.lstat(path).st_mode), '--svg at %s: still %s' % (what, what))
    if root_user:
        check(os.lstat(node).st_rdev == os.makedev(1, 7), '--svg at a node: the same node')
    s.close()
    check(not leftovers(d), 'refused targets: no temporary file left %s' % leftovers(d))
    # a symbolic link (into another directory): its target replaced, the link kept
    real = os.path.join(sub, 'real.svg')
    with open(real, 'w') as f:
        f.write('old\n')
    link = os.path.join(d, 'link.svg')
    os.symlink(real, link)
    ok_run(root, ['zonemap', 'dev/ng0n1', '-c', '3', '--svg', link])
    check(os.path.islink(link) and os.readlink(link) == real, '--svg at a symlink: the link stays')
    with open(real) as f:
        check(f.read().startswith('<?xml'), '... and its target holds the SVG')
    check(not leftovers(d) and not leftovers(sub), '... no temporary file left')
    # a dangling link: nothing is created through it
    dangling = os.path.join(d, 'dangling.svg')
    os.symlink(os.path.join(d, 'nowhere', 'x.svg'), dangling)
    expect_err(root, ['zonemap', 'dev/ng0n1', '--svg', dangling], 1, 'dev/ng0n1',
               'cannot write %s: No such file or directory' % dangling)
    # an existing file keeps its owner and mode
    kept = os.path.join(d, 'kept.svg')
    with open(kept, 'w') as f:
        f.write('old\n')
    os.chmod(kept, 0o600)
    owner = 65534 if root_user else os.geteuid()	# nobody
    if root_user:
        os.chown(kept, owner, -1)
    ok_run(root, ['zonemap', 'dev/ng0n1', '-c', '3', '--svg', kept])
    st = os.stat(kept)
    check(st.st_uid == owner and stat.S_IMODE(st.st_mode) == 0o600,
          '--svg over a file of uid %d, 0600: stays uid %d 0600 (got uid %d %o)' %
          (owner, owner, st.st_uid, stat.S_IMODE(st.st_mode)))
    with open(kept) as f:
        check(f.read().startswith('<?xml'), '... and holds the SVG')
    # a new file: 0666 less the umask
    new = os.path.join(d, 'new.svg')
    old_mask = os.umask(0o027)
    try:
        ok_run(root, ['zonemap', 'dev/ng0n1', '-c', '3', '--svg', new])
    finally:
        os.umask(old_mask)
    check(stat.S_IMODE(os.stat(new).st_mode) == 0o640, 'a new SVG: 0666 less the umask (0640)')


def svg_cells(path):
    """[(title, x, y, w, h)] of the rectangles that have a title, and the root."""
    tree = ET.parse(path)
    cells = []
    for rect in tree.iter(SVG_NS + 'rect'):
        t = rect.find(SVG_NS + 'title')
        if t is not None:
            cells.append((t.text, *(int(rect.get(k)) for k in ('x', 'y', 'width', 'height'))))
    return cells, tree.getroot()


def xmllint(path):
    p = subprocess.run(['xmllint', '--noout', path], capture_output=True, text=True)
    return p.returncode == 0 and not p.stderr, p.stderr


def render(svg, png):
    p = subprocess.run(['rsvg-convert', '--background-color=white', svg, '-o', png],
                       capture_output=True, text=True, timeout=120)
    return p.returncode == 0, p.stderr


def zone_title(z):
    st, w = expect(z)
    wp = '-' if st in ('full', 'read-only', 'offline') else \
        '0x%x (%d of %d LBAs written)' % (z * ZSZE + w, w, ZCAP)
    return 'zone %d: start LBA 0x%x, %s, write pointer %s' % (z, z * ZSZE, st, wp)


def check_pixels(png, cells, zones, desc):
    """Top row and bottom row of each zone's cell: unwritten tint / written colour."""
    bad = []
    for z, (title, x, y, w, h) in zip(zones, cells):
        st, written = expect(z)
        full = st in ('full', 'read-only', 'offline')
        top = FILL[st] if full else TINT[st]
        bottom = FILL[st] if full or written else TINT[st]
        cx = x + w // 2
        for py, want in ((y, top), (y + h - 1, bottom)):
            if png.rgb(cx, py) != rgb(want):
                bad.append('zone %d at %d,%d: %s, want %s (%s)' % (z, cx, py, png.rgb(cx, py),
                                                                   want, st))
    check(not bad, '%s: pixel colours at %d zones\' cells %s' % (desc, len(zones), bad[:3]))


def test_svg_small(root):
    svg, png = os.path.join(root, 'ten.svg'), os.path.join(root, 'ten.png')
    ok_run(root, ['zonemap', 'dev/ng0n1', '-c', '10', '--svg', svg])
    good, err = xmllint(svg)
    check(good, 'SVG of 10 zones: xmllint accepts it %s' % err)
    cells, svgroot = svg_cells(svg)
    check(svgroot.tag == SVG_NS + 'svg' and int(svgroot.get('width')) >= 600,
          'a standalone <svg> document')
    check([c[0] for c in cells] == [zone_title(z) for z in range(10)],
          'one rectangle per zone with a <title>: zone, start LBA, state, write pointer')
    check(len(cells) == 10 and all(c[3] >= 40 and c[4] >= 40 for c in cells),
          'readable at 10 zones: cells of at least 40 px')
    good, err = render(svg, png)
    if check(good, 'rsvg-convert renders it %s' % err):
        check_pixels(pngread.read(png), cells, range(10), '10 zones')
    r = ok_run(root, ['zonemap', 'dev/ng0n1', '-c', '3', '--svg', '-'])
    check(r.out.startswith('<?xml') and r.out.rstrip().endswith('</svg>'), '--svg -: stdout')


def test_readme_picture(root):
    """Documentation/zonemap.png is what scripts/zonemap-picture.py draws now."""
    sys.path.insert(0, os.path.join(SRC, 'scripts'))
    import importlib
    pic = importlib.import_module('zonemap-picture')
    png, svg = os.path.join(root, 'readme.png'), os.path.join(root, 'readme.svg')
    why = pic.draw(os.path.dirname(BIN), png, svg)
    if not check(why is None, 'scripts/zonemap-picture.py draws the picture %s' % (why or '')):
        return
    good, err = xmllint(svg)
    check(good, 'README picture SVG: xmllint accepts it %s' % err)
    cells, _ = svg_cells(svg)
    zones = [c for c in cells if c[0].startswith('zone ')]
    pads = [c for c in cells if c[0].startswith('padding of zone')]
    check([c[0] for c in zones] == [zone_title(z) for z in range(NZONES)] and
          len(pads) == NZONES, '50 zone cells and 50 padding rectangles with titles')
    check(all(abs(p[3] * PO2 - (z[3] + p[3]) * (PO2 - ZSZE)) <= PO2 for z, p in zip(zones, pads)),
          'padding is a quarter of each cell (8192 of 32768 LBAs)')
    committed = pngread.read(os.path.join(SRC, 'Documentation', 'zonemap.png'))
    fresh = pngread.read(png)
    check((committed.width, committed.height) == (fresh.width, fresh.height),
          'committed PNG has the size of a fresh one: %dx%d' % (committed.width, committed.height))
    x0 = min(c[1] for c in cells)
    y0 = min(c[2] for c in cells)
    x1 = max(c[1] + c[3] for c in cells)
    y1 = max(c[2] + c[4] for c in cells)
    same = (committed.width, committed.height) == (fresh.width, fresh.height) and all(
        committed.rows[y][x0 * 3:x1 * 3] == fresh.rows[y][x0 * 3:x1 * 3]
        if committed.channels == fresh.channels == 3 else
        all(committed.rgb(x, y) == fresh.rgb(x, y) for x in range(x0, x1))
        for y in range(y0, y1))
    check(same, 'committed Documentation/zonemap.png: the grid is pixel for pixel what the '
          'script draws now (text left out: fonts differ between machines)')
    check_pixels(committed, zones, range(NZONES), 'committed Documentation/zonemap.png')
    check(all(committed.rgb(p[1] + p[3] // 2, p[2] + p[4] // 2) == rgb(PAD) for p in pads),
          'committed PNG: padding colour in every cell\'s padding part')


def maxrss(root, args):
    """(exit code, peak RSS KiB, stdout) of one run, measured by GNU time: a
    child of this (large) Python process would count the copy made by fork."""
    env = znptest.emu_env(EMU, root, asan_extra='quarantine_size_mb=0')
    env.pop('COLUMNS', None)
    out, rssf = os.path.join(root, 'rss.out'), os.path.join(root, 'rss.txt')
    with open(out, 'w') as f:
        p = subprocess.run(['/usr/bin/time', '-f', '%M', '-o', rssf, BIN] + args, cwd=root,
                           env=env, stdout=f, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(out) as f:
        text = f.read()
    with open(rssf) as f:
        rss = int(f.read().split()[-1])
    return p.returncode, rss, text


def big_expect(z):
    """State and written LBAs of zone z of ng1n1 after the operations below."""
    cap = BIG_ZSZE
    if z < 1000:
        return 'full', cap
    if z < 3000:
        return 'empty', 0
    if z < 4000:
        return 'explicit-open', 0
    return [('empty', 0), ('full', cap), ('closed', cap // 2), ('empty', 0), ('full', cap)][z % 5]


def test_million(root):
    env = znptest.emu_env(EMU, root)
    ops = [['reset', '-s', '0', '-c', '4000', '-f'], ['finish', '-s', '0', '-c', '1000', '-f'],
           ['open', '-s', hex(3000 * BIG_ZSZE), '-c', '1000']]
    for op in ops:
        p = subprocess.run([BIN, op[0], 'dev/ng1n1'] + op[1:], cwd=root, env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        check(p.returncode == 0, '1M zones: %s -> exit 0 %s' % (' '.join(op), p.stderr))
    # totals: zones 4000.. keep the preset pattern
    cnt = Counter({'full': 1000, 'empty': 2000, 'explicit-open': 1000})
    rest = 996000 // 5
    cnt['empty'] += 2 * rest
    cnt['full'] += 2 * rest
    cnt['closed'] += rest
    written = (1000 + 2 * rest) * BIG_ZSZE + rest * (BIG_ZSZE // 2)

    rss2 = 0
    rc, rss, out = maxrss(root, ['zonemap', 'dev/ng1n1', '-w', '80'])
    rows = rows_of(out, 6)
    cells = ''.join(rows.get(k, '') for k in sorted(rows))
    check(rc == 0 and '1000 zones per cell: dominant state, mean fill' in out and
          sorted(rows) == [k * 70000 for k in range(15)] and len(cells) == 1000,
          '1M zones at 80 columns: 1000 cells of 1000 zones, 15 rows labelled by 70000')
    # groups of 1000 from 4000 on: 400 empty, 400 full, 200 closed -> the tie goes to full
    check(cells == '#..O' + '#' * 996, 'groups: full, empty, empty, explicit-open, then full '
          '(ties between empty and full go to full)')
    legend = legend_counts(out)
    check(all(legend.get(s) == cnt.get(s, 0) for s in STATES),
          '1M legend counts as driven: %s' % legend)
    check('(%d of %d LBAs)' % (written, BIG_ZONES * BIG_ZSZE) in out, '1M written LBAs')
    if SANITIZED:
        # the sanitizer's own memory: bound the growth with the zone count instead
        rc2, rss2, _ = maxrss(root, ['zonemap', 'dev/ng1n1', '-w', '80', '-c', '1000'])
        check(rc2 == 0 and rss - rss2 < 4 * 1024, '1M zones, text, sanitized build: peak RSS '
              '%d KiB, %d KiB for 1000 zones' % (rss, rss2))
    else:
        check(rss < 16 * 1024, '1M zones, text: peak RSS %d KiB < 16 MiB' % rss)
    print('# zonemap of 1,000,000 zones, text: peak RSS %d KiB' % rss)

    svg = os.path.join(root, 'big.svg')
    rc, rss, _ = maxrss(root, ['zonemap', 'dev/ng1n1', '--svg', svg])
    check(rc == 0 and (rss < 16 * 1024 or SANITIZED and rss - rss2 < 4 * 1024),
          '1M zones, SVG: exit 0, peak RSS %d KiB < 16 MiB' % rss)
    print('# zonemap of 1,000,000 zones, SVG: peak RSS %d KiB, %d bytes' %
          (rss, os.path.getsize(svg)))
    good, err = xmllint(svg)
    check(good, '1M SVG: xmllint accepts it %s' % err)
    cells, _ = svg_cells(svg)
    check(len(cells) == 5000, '1M SVG: 5000 cells with a title (200 zones each): %d' % len(cells))

    def group_title(i):
        zs = range(i * 200, i * 200 + 200)
        c = Counter(big_expect(z)[0] for z in zs)
        w = sum(big_expect(z)[1] for z in zs)
        dom = max(STATES, key=lambda s: (c[s], ['empty', 'full', 'closed', 'implicit-open',
                                                 'explicit-open', 'read-only',
                                                 'offline'].index(s)))
        counts = ', '.join('%d %s' % (c[s], s) for s in STATES if c[s])
        return 'zones %d-%d: start LBA 0x%x, mostly %s (%s), write pointers at %.1f%% of the ' \
            'capacity' % (zs[0], zs[-1], zs[0] * BIG_ZSZE, dom, counts,
                          100.0 * w / (200 * BIG_ZSZE))
    idx = [0, 4, 5, 14, 15, 19, 20, 2500, 4999]
    check(all(cells[i][0] == group_title(i) for i in idx),
          '1M SVG: group titles (zones, start LBA, state counts, mean fill) as driven: %r' %
          [cells[i][0] for i in idx if cells[i][0] != group_title(i)][:2])
    xs = sorted({c[1] for c in cells})
    check(len(xs) == 100 and len({c[2] for c in cells}) == 50,
          '1M SVG: 100 columns, 50 rows')


def main():
    with tempfile.TemporaryDirectory(prefix='znp-zonemap-') as root:
        zonemix.setup(root, MKFAKE, EXTRA_CONFIG)
        errors = zonemix.drive(BIN, EMU, root)
        check(not errors, 'mixed state reached with real zone operations and writes %s' %
              errors)
        test_mono(root)
        test_colour(root)
        test_terminal(root)
        test_padding(root)
        test_bad(root)
        test_svg_targets(root)
        test_svg_small(root)
        test_readme_picture(root)
        test_million(root)
    return znptest.summary()


if __name__ == '__main__':
    sys.exit(main())

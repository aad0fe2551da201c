#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).

The seeds are committed; rerun this only to change them:
    python3 tests/fuzz/mkseeds.py tests/fuzz/corpus
"""
import os
import struct
import sys

out = sys.argv[1]


def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- zdesc: geometry prefix (see fuzz-zdesc.c), then Report Zones data
def geom(lba_shift, zsze, nlbas, zdes_units=0, maxd=64, cap=None):
    sel = 1 | 2 | (4 if cap is not None else 0)
    b = bytes([lba_shift, sel]) + struct.pack('<QQ', zsze, nlbas)
    if cap is not None:
        b += struct.pack('<I', cap)
    return b + bytes([zdes_units, maxd])


class R(bytes):
    def __add__(self, other):
        return R(bytes(self) + (other.encode() if isinstance(other, str) else other))


def desc(start, cap, wp, cond=1, ztype=2, za=0, zdes=0):
    d = bytes([ztype, cond << 4, za, 0]) + bytes(4) + struct.pack('<QQQ', cap, start, wp)
    return d + bytes(32) + bytes(zdes)


def report(nr, descs):
    return struct.pack('<Q', nr) + bytes(56) + b''.join(descs)


Z = 24576  # 96 MiB of 4 KiB LBAs: the npo2 case
zones = [desc(i * Z, Z, i * Z) for i in range(4)]
put('zdesc', 'npo2-empty', geom(3, Z, 10 * Z) + report(10, zones))
mixed = [desc(0, Z, 0, 1), desc(Z, Z, Z + 4096, 2), desc(2 * Z, Z, 2 * Z + 100, 4),
         desc(3 * Z, Z, 2**64 - 1, 0xe), desc(4 * Z, Z, 4 * Z, 3),
         desc(5 * Z, Z, 2**64 - 1, 0xd), desc(6 * Z, Z, 2**64 - 1, 0xf),
         desc(7 * Z, Z, 0, 0, 1)]
put('zdesc', 'npo2-mixed', geom(3, Z, 8 * Z) + report(8, mixed))
put('zdesc', 'cap-lt-size', geom(3, 20480, 6 * 20480) +
    report(6, [desc(i * 20480, 16384, i * 20480) for i in range(6)]))
put('zdesc', 'po2', geom(0, 0x40000, 8 * 0x40000) +
    report(8, [desc(i * 0x40000, 0x40000, i * 0x40000) for i in range(8)]))
put('zdesc', 'small-last-zone', geom(3, Z, 3 * Z + 1000) +
    report(4, [desc(0, Z, 0), desc(Z, Z, Z), desc(2 * Z, Z, 2 * Z), desc(3 * Z, 1000, 3 * Z)]))
put('zdesc', 'extended-64', geom(3, Z, 4 * Z, zdes_units=1) +
    report(4, [desc(i * Z, Z, i * Z, zdes=64) for i in range(4)]))
put('zdesc', 'extended-192', geom(0, 0x3000, 4 * 0x3000, zdes_units=3) +
    report(2, [desc(i * 0x3000, 0x3000, i * 0x3000, za=0x80, zdes=192) for i in range(2)]))
put('zdesc', 'partial-report', geom(3, Z, 100 * Z, maxd=2) + report(100, zones))
put('zdesc', 'header-only', geom(3, Z, 10 * Z) + report(10, []))
put('zdesc', 'short-buffer', geom(3, Z, 10 * Z) + report(10, zones)[:100])
put('zdesc', 'bad-wp', geom(3, Z, 4 * Z) + report(4, [desc(0, Z, Z + 1, 2)]))
put('zdesc', 'bad-start', geom(3, Z, 4 * Z) + report(4, [desc(Z + 1, Z, Z + 1)]))
put('zdesc', 'bad-cap', geom(3, Z, 4 * Z) + report(4, [desc(0, Z + 1, 0)]))
put('zdesc', 'bad-cond', geom(3, Z, 4 * Z) + report(4, [desc(0, Z, 0, 5)]))
put('zdesc', 'count-too-big', geom(3, Z, 4 * Z) + report(5, zones))
put('zdesc', 'huge-geometry', geom(3, 2**63 + 1, 2**64 - 1) +
    report(1, [desc(2**63 + 1, 2**62, 2**63 + 1)]))

# --- numbers: one argument value each
for i, s in enumerate(['0', '4096', '0x1000', '96Ki', '96KiB', '1M', '2G', '16E', '15E',
                       '1kB', '1KB', '1EB', '18446744073709551615', '18446744073709551616',
                       '0xffffffffffffffff', '0x10000000000000000', '4294967295',
                       '4294967296', '-1', '+1', ' 1', '1 ', '010', '0x', '12x', '1.5',
                       'empty', 'implicit-open', 'IMP_OPENED', 'oe', 'read_only', '7', '8',
                       'all', 'json', 'normal', 'JSON', '1K', '1KiB', '1T', '']):
    put('numbers', 'n%02d' % i, s)

# --- ranges: target selector prefix (see fuzz-ranges.c), then a range file
def rtarget(ttype, lba_shift, gran_shift, nlbas_units, zsze=0):
    b = bytes([ttype, lba_shift, gran_shift]) + nlbas_units.to_bytes(6, 'little')
    if ttype:
        b += zsze.to_bytes(3, 'little')
    return R(b)


put('ranges', 'block', rtarget(0, 3, 0, 1 << 20) + '0 4096\n8192,4096\n# comment\n\n1M 1M\n')
put('ranges', 'block-overlap', rtarget(0, 0, 0, 1 << 20) + '0 8192\n4096 4096\n')
put('ranges', 'block-past-end', rtarget(0, 0, 0, 100) + '0 1G\n')
put('ranges', 'conv', rtarget(1, 3, 0, 1 << 33) + '0 16T\n')
put('ranges', 'zoned', rtarget(2, 3, 0, 10 * 24576, 24576) +
    '0 96M\n%d %d\n' % (2 * 24576 * 4096, 2 * 24576 * 4096))
put('ranges', 'zoned-partial', rtarget(2, 3, 0, 10 * 24576, 24576) + '0 4096\n')
put('ranges', 'zoned-last-small', rtarget(2, 0, 0, 3 * 1000 + 10, 1000) +
    '%d %d\n' % (3 * 1000 * 512, 10 * 512))
put('ranges', 'junk', rtarget(0, 0, 0, 100) + '0 4096 extra\n')
put('ranges', 'suffixes', rtarget(0, 0, 0, 1 << 40) + '1KiB 1KB\n0x100000 4k\n')

# --- argv: command index byte, then NUL-separated arguments
def argv(cmd, *args):
    return bytes([cmd]) + b'\0'.join(a.encode() for a in args)


samples = [
    (1, ['/dev/ng0n1', '-o', 'json', '-s', '96Ki', '-c', '4', '-S', 'full']),
    (1, ['--start-lba=0x6000', '--state', 'implicit-open', '/dev/ng0n1']),
    (2, ['/dev/ng0n1', '-H', '-v']),
    (5, ['/dev/ng0n1', '-a', '-f', '--dry-run', '-q', '64']),
    (6, ['/dev/ng0n1', '-s', '0', '-c', '2', '--force']),
    (3, ['-s']),
    (4, ['--bogus', '-z', '--force=yes', 'a', 'b', 'c', 'd', 'e', 'f']),
    (7, ['--offset', '1M', '--length', '1G', '--lba', '/dev/nvme0n1']),
    (8, ['--ranges', '-', '/dev/nvme0n1']),
    (0, ['-o', 'xml']),
]
for i, (c, a) in enumerate(samples):
    put('argv', 'a%02d' % i, argv(c, *a))

# --- dm-table: `dmsetup table` lines, names and UUIDs
for i, s in enumerate([
        '0 2097152 po2zone 259:1', '0 2097152 po2zone 259:1\n', '0\t2097152\tpo2zoned\t/dev/ng0n1',
        '0 1048576 linear 8:16 2048', '0 18446744073709551615 po2zone 259:1',
        '0 18446744073709551616 po2zone 259:1', '0 100 po2zone', '-1 100 po2zone 1:1', '',
        'po2-S1234-n1', 'ZNPO2-nguid:120000000000000000000000000000ff', 'ZNPO2-sn:ABC=20X:nsid:1',
        'ZNPO2-eui64:0011223344556677', 'znp-creating-po2-x', '.hidden', 'a' * 101,
        '0 100 ' + 'x' * 20 + ' 1:1', '0 100 po2zone ' + 'd' * 70]):
    put('dm-table', 't%02d' % i, s)

# --- dm-status: geometry prefix (lba shift, zone size, nlbas), then status text
def sgeom(shift, zsze, nlbas):
    return bytes([shift]) + struct.pack('<QQ', zsze, nlbas)


for i, (g, s) in enumerate([
        (sgeom(12, 24576, 10 * 24576), '196608 262144 10'),
        (sgeom(9, 0x30000, 4 * 0x30000), '196608 262144 4\n'),
        (sgeom(12, 20480, 6 * 20480), '163840 262144 6'),
        (sgeom(9, 0x40000, 8 * 0x40000), '262144 262144 8'),
        (sgeom(8, 100, 1000), '100 100 1'),
        (sgeom(12, 2**62 + 1, 2**63), '1 1 1'),
        (sgeom(9, 3, 7), '3 4 3'), (sgeom(9, 3, 7), '3 8 3'), (sgeom(9, 3, 7), '0 1 1'),
        (sgeom(9, 3, 7), '18446744073709551615 18446744073709551615 1'),
        (sgeom(9, 3, 7), '1 2 3 4'), (sgeom(9, 3, 7), '')]):
    put('dm-status', 's%02d' % i, g + s.encode())

# --- dm-config: mapping files (first byte < 0x80: no namespace identity part)
put('dm-config', 'typical', '# zns-npo2 mappings\n\n'
    'po2-S123-n1 nguid:120000000000000000000000000000ff lba_size=4096 zone_size=24576 nr_zones=1000\n'
    'mydrive eui64:0011223344556677\n'
    'other sn:S123=20X:nsid:2 lba_size=512\n')
put('dm-config', 'bad-lines', 'name-only\n.bad nguid:12\npo2-a sn:a:nsid:1 lba_size=x\n'
    'po2-a sn:a:nsid:1 lba_size=1 lba_size=2\npo2-b sn:b:nsid:1 color=red\n')
put('dm-config', 'duplicates', 'a sn:a:nsid:1\na sn:b:nsid:1\nb sn:a:nsid:1\n')
put('dm-config', 'no-newline', '   \t# c\n\ta\tsn:a:nsid:1\tnr_zones=18446744073709551615')
put('dm-config', 'nul-byte', 'a sn:a:nsid:1\n\0b sn:b:nsid:1\n')
put('dm-config', 'crlf', 'a sn:a:nsid:1\r\nb sn:b:nsid:1\r\n')
put('dm-config', 'ident', bytes([0x83]) + bytes(range(1, 17)) + bytes(range(8)) +
    b'S N/1\xff' + bytes(14) + b'\x00\x01' + bytes(20) + b'\na sn:a:nsid:1\n')

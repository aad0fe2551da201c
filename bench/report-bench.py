#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark: full JSON zone report, nvme-zns-npo2 vs nvme-cli 2.3.

Both tools report the same emulated ZNS namespace (tests/emu, LD_PRELOAD,
no kernel involved) in interleaved runs; the figures are printed side by
side: median wall time and the ratio, peak RSS (wait4 ru_maxrss of each
run), and the Zone Management Receive commands the emulator counted. Our
peak RSS is also shown for growing zone counts. Both outputs are checked
zone by zone against the zone states the emulator was configured with.

Output: the table on stdout and in build/bench/report-bench.txt.
Exit status: 0 when the benchmark ran and the outputs were right (targets
missed are reported as MISS, not as a failure), 1 otherwise.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TIME = '/usr/bin/time'		# GNU time (Debian package "time", scripts/deps.sh)
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))


def find_ours():
    p = os.path.join(ROOT, 'build', 'nvme-zns-npo2')
    return p if os.access(p, os.X_OK) else None


class Namespace:
    """An emulated namespace with a fake sysfs/dev tree."""

    def __init__(self, args, zones):
        self.dir = tempfile.mkdtemp(prefix='znp-bench-')
        self.zones = zones
        self.zsze = args.zsze
        self.mdts = args.mdts
        with open(os.path.join(self.dir, 'emu.conf'), 'w') as f:
            f.write('path=dev/ng0n1 nsid=1 lba=4096 zsze=%d zones=%d mdts=%d preset=mixed\n'
                    % (args.zsze, zones, args.mdts))
        subprocess.run([sys.executable, args.mkfake, self.dir], check=True)
        self.dev = os.path.join(self.dir, 'dev', 'ng0n1')
        self.stats = os.path.join(self.dir, 'stats')
        self.env = dict(os.environ,
                        LD_PRELOAD=args.emu,
                        ZNP_EMU_CONFIG=os.path.join(self.dir, 'emu.conf'),
                        ZNP_SYSFS_ROOT=os.path.join(self.dir, 'sys'),
                        ZNP_DEV_ROOT=os.path.join(self.dir, 'dev'),
                        ZNP_EMU_STATS=self.stats)

    def run(self, argv, out=None):
        """Run once: (wall s, peak RSS KiB, Zone Management Receive count, CPU s)."""
        if os.path.exists(self.stats):
            os.unlink(self.stats)
        stdout = open(out, 'wb') if out else subprocess.DEVNULL
        errpath = os.path.join(self.dir, 'stderr')
        rsspath = os.path.join(self.dir, 'rss')
        # GNU time forks from a small image: its child's ru_maxrss is the
        # tool's own (a fork of this Python process would carry ours over exec)
        timed = [TIME, '-f', '%M %U %S', '-o', rsspath] + argv
        with open(errpath, 'wb') as stderr:
            t0 = time.perf_counter()
            rc = subprocess.run(timed, env=self.env, stdout=stdout, stderr=stderr).returncode
            wall = time.perf_counter() - t0
        if out:
            stdout.close()
        if rc != 0:
            with open(errpath, errors='replace') as f:
                raise RuntimeError('%s exited %d: %s' % (argv[0], rc, f.read().strip()))
        with open(rsspath) as f:
            fld = f.read().split()
        maxrss, cpu = int(fld[-3]), float(fld[-2]) + float(fld[-1])
        zmr = 0
        with open(self.stats) as f:
            for line in f:
                fld = line.split()
                if fld[1] == 'io' and fld[2] == '0x7a':
                    zmr += int(fld[3])
        return wall, maxrss, zmr, cpu

    def expected(self, i):
        """Zone i of preset=mixed (tests/emu/emu-zones.c): (slba, wp, cap, state)."""
        start, cap = i * self.zsze, self.zsze
        k = i % 5
        if k in (1, 4):
            return start, 2 ** 64 - 1, cap, 'FULL'
        if k == 2:
            return start, start + cap // 2, cap, 'CLOSED'
        return start, start, cap, 'EMPTY'

    def check_output(self, path):
        """Zones in a JSON report that differ from the configured states."""
        with open(path, 'rb') as f:
            data = f.read()
        cols = [re.findall(rb'"%s"\s*:\s*"?([A-Z_0-9]+)"?' % k, data)
                for k in (b'slba', b'wp', b'cap', b'state')]
        n = len(cols[0])
        if any(len(c) != n for c in cols):
            return n, n
        bad = 0
        for i in range(n):
            s, w, c, st = self.expected(i)
            if (int(cols[0][i]) != s or int(cols[1][i]) != w or int(cols[2][i]) != c
                    or cols[3][i].decode() != st):
                bad += 1
        return n, bad

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def mib(kib):
    return '%.1f MiB' % (kib / 1024.0)


def verdict(ok):
    return 'PASS' if ok else 'MISS'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--ours', default=find_ours())
    ap.add_argument('--nvme', default=shutil.which('nvme'))
    ap.add_argument('--emu', default=os.path.join(ROOT, 'build/tests/emu/libznpemu.so'))
    ap.add_argument('--mkfake', default=os.path.join(ROOT, 'tests/emu/mkfake.py'))
    ap.add_argument('--zones', type=int, default=1000000)
    # nvme-cli 2.3 keeps the report offset in 32 bits: keep zones * zsze < 2^32
    ap.add_argument('--zsze', type=int, default=3072, help='zone size in 4 KiB LBAs')
    ap.add_argument('--mdts', type=int, default=512 * 1024)
    ap.add_argument('--repeats', type=int, default=5)
    ap.add_argument('--rss-zones', default='10000,100000,1000000')
    args = ap.parse_args()
    for what, p in (('nvme-zns-npo2', args.ours), ('nvme (nvme-cli)', args.nvme),
                    ('libznpemu.so', args.emu), ('GNU time', TIME)):
        if not p or not os.path.exists(p):
            sys.exit('report-bench: %s not found (run make first)' % what)
    if args.zones * args.zsze >= 2 ** 32:
        print('note: zones * zsze >= 2^32: nvme-cli 2.3 wraps its 32-bit report offset')

    ours = lambda ns: [args.ours, 'report', '-o', 'json', ns.dev]
    theirs = lambda ns: [args.nvme, 'zns', 'report-zones', '-o', 'json', ns.dev]
    ns = Namespace(args, args.zones)
    failed = False
    try:
        # correctness first (not timed): both outputs against the configured zones
        checks = {}
        for name, argv in (('ours', ours(ns)), ('nvme-cli', theirs(ns))):
            out = os.path.join(ns.dir, name + '.json')
            ns.run(argv, out)
            checks[name] = ns.check_output(out)
            os.unlink(out)
        res = {'ours': [], 'nvme-cli': []}
        for r in range(args.repeats):
            order = [('ours', ours), ('nvme-cli', theirs)]
            if r % 2:
                order.reverse()
            for name, argv in order:
                res[name].append(ns.run(argv(ns)))
    finally:
        ns.close()

    med = {k: statistics.median(r[0] for r in v) for k, v in res.items()}
    cpu = {k: statistics.median(r[3] for r in v) for k, v in res.items()}
    rss = {k: max(r[1] for r in v) for k, v in res.items()}
    zmr = {k: sorted({r[2] for r in v}) for k, v in res.items()}
    ratio = med['nvme-cli'] / med['ours'] if med['ours'] else float('inf')
    want_cmds = -(-args.zones * 64 // args.mdts)

    ladder = []
    for n in [int(x) for x in args.rss_zones.split(',') if x]:
        lns = Namespace(args, n)
        try:
            ladder.append((n, max(lns.run(ours(lns))[1] for _ in range(2))))
        finally:
            lns.close()

    lines = []
    out = lambda *a: lines.append(a[0] if a else '')
    out()
    out('report -o json of %d zones (zone size %d x 4 KiB LBAs, npo2; MDTS %d KiB; '
          'emulated, %d interleaved runs)' % (args.zones, args.zsze, args.mdts // 1024,
                                               args.repeats))
    fmt = '  %-34s %-22s %-22s %s'
    out(fmt % ('', 'nvme-zns-npo2', 'nvme zns report-zones', ''))
    out(fmt % ('wall time, median', '%.3f s' % med['ours'], '%.3f s' % med['nvme-cli'],
                 'ratio %.1fx (target >= 5x: %s)' % (ratio, verdict(ratio >= 5))))
    out(fmt % ('wall time, all runs', ' '.join('%.2f' % r[0] for r in res['ours']),
                 ' '.join('%.2f' % r[0] for r in res['nvme-cli']), ''))
    out(fmt % ('CPU time (user+sys), median', '%.3f s' % cpu['ours'], '%.3f s' % cpu['nvme-cli'],
                 'ratio %.1fx' % (cpu['nvme-cli'] / max(cpu['ours'], 0.001))))
    out(fmt % ('peak RSS (max of runs)', mib(rss['ours']), mib(rss['nvme-cli']),
                 'ratio %.0fx' % (rss['nvme-cli'] / max(rss['ours'], 1))))
    out(fmt % ('Zone Management Receive commands', ','.join(map(str, zmr['ours'])),
                 ','.join(map(str, zmr['nvme-cli'])),
                 'ceil(zones*64/MDTS) = %d (ours: %s)' % (want_cmds,
                                                         verdict(zmr['ours'] == [want_cmds]))))
    for name in ('ours', 'nvme-cli'):
        n, bad = checks[name]
        if n != args.zones or bad:
            failed = True
    out(fmt % ('zones right / reported', '%d / %d' % (checks['ours'][0] - checks['ours'][1],
                                                       checks['ours'][0]),
                 '%d / %d' % (checks['nvme-cli'][0] - checks['nvme-cli'][1],
                              checks['nvme-cli'][0]), 'of %d configured' % args.zones))
    out()
    out('nvme-zns-npo2 peak RSS by zone count (target: flat, < 16 MiB):')
    for n, kib in ladder:
        out('  %9d zones  %s' % (n, mib(kib)))
    flat = ladder and max(k for _, k in ladder) < 16 * 1024 and \
        max(k for _, k in ladder) - min(k for _, k in ladder) < 2 * 1024
    out('  %s' % verdict(bool(flat)))
    text = '\n'.join(lines) + '\n'
    sys.stdout.write(text)
    os.makedirs(os.path.join(ROOT, 'build', 'bench'), exist_ok=True)
    with open(os.path.join(ROOT, 'build', 'bench', 'report-bench.txt'), 'w') as f:
        f.write(text)
    if failed:
        print('report-bench: a JSON report did not match the configured zones')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())

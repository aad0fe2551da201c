#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI golden tests against emulated namespaces (tests/emu LD_PRELOAD emulator).

Usage: emu-cli.py BINARY LIBZNPEMU MKFAKE GOLDEN_DIR
       ZNP_UPDATE_GOLDEN=1 ... rewrites the golden files.

Every output is compared with a golden file, and independently checked
against the geometry the emulator was configured with (CONFIG below), the
emulator's command trace (which NVMe commands arrived, field by field) and
its zone state file.
"""
import fcntl
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import termios

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import znptest  # noqa: E402
from znptest import check, not_ok  # noqa: E402

BIN, EMU, MKFAKE, GOLDEN = (os.path.abspath(a) for a in sys.argv[1:5])
PROG = 'nvme-zns-npo2'

# name: (nsid, lba size, zone size, zone cap, zones, block visible)
GEOM = {
    'ng0n1': (1, 4096, 24576, 24576, 10, False),   # npo2 96M, hidden: stock kernel
    'ng1n1': (1, 512, 0x40000, 0x40000, 8, True),  # po2 128M
    'ng2n1': (1, 4096, 20480, 16384, 6, True),     # npo2 80M/64M: cap < size
    'ng3n1': (1, 512, 0x30000, 0x30000, 4, True),  # npo2 96M, visible: patched kernel
    'ng4n1': (1, 512, 0x30000, 0x30000, 4, True),  # block twin held by someone
    'ng5n1': (1, 512, 0x30000, 0x30000, 4, False), # zone management fails
    'ng6n1': (1, 512, 0x3000, 0x3000, 2000, False),    # many zones
    'ng7n1': (1, 512, 0x3000, 0x3000, 200000, False),  # 100 times more
}
NO_DISK = ("ng6n1", "ng7n1")  # no block device in sysfs at all
# zone index: (emulator condition name, NVMe ZS>>4, write pointer offset or None)
A_ZONES = {1: ('iopen', 2, 4096), 2: ('closed', 4, 100), 3: ('full', 0xe, None),
           5: ('ro', 0xd, None), 6: ('offline', 0xf, None)}
STATE = {1: 'EMPTY', 2: 'IMP_OPENED', 3: 'EXP_OPENED', 4: 'CLOSED', 0xd: 'READONLY',
         0xe: 'FULL', 0xf: 'OFFLINE'}

CONFIG = """\
path=dev/ng0n1 kind=ng ctrl=nvme0 nsid=1 lba=4096 zsze=24576 zcap=24576 zones=10 disk=hidden max_open=4 max_active=6 {a_zones}
path=dev/ng0n2 kind=ng ctrl=nvme0 nsid=2 csi=0 lba=512 nlbas=1048576 disk=hidden
path=dev/nvme0 kind=ctrl ctrl=nvme0
path=dev/ng1n1 kind=ng ctrl=nvme1 nsid=1 lba=512 zsze=0x40000 zcap=0x40000 zones=8
path=dev/nvme1n1 kind=nvme twin=ng1n1
path=dev/ng2n1 kind=ng ctrl=nvme2 nsid=1 lba=4096 zsze=20480 zcap=16384 zones=6
path=dev/nvme2n1 kind=nvme twin=ng2n1
path=dev/ng3n1 kind=ng ctrl=nvme3 nsid=1 lba=512 zsze=0x30000 zcap=0x30000 zones=4 state=state-e
path=dev/nvme3n1 kind=nvme twin=ng3n1
path=dev/ng4n1 kind=ng ctrl=nvme4 nsid=1 lba=512 zsze=0x30000 zcap=0x30000 zones=4
path=dev/nvme4n1 kind=nvme twin=ng4n1 excl_busy=1
path=dev/ng6n1 kind=ng ctrl=nvme6 nsid=1 lba=512 zsze=0x3000 zcap=0x3000 zones=2000 disk=none
path=dev/ng7n1 kind=ng ctrl=nvme7 nsid=1 lba=512 zsze=0x3000 zcap=0x3000 zones=200000 disk=none
path=dev/ng5n1 kind=ng ctrl=nvme5 nsid=1 lba=512 zsze=0x30000 zcap=0x30000 zones=4 disk=hidden fail_io=0x79:2:0x4002
""".format(a_zones=' '.join('zone=%d:%s%s' % (i, c, '' if w is None else ':%d' % w)
                            for i, (c, _, w) in sorted(A_ZONES.items())))


class Run(znptest.Run):
    timeout = 60

    def __init__(self, root, args, tty_answer=None):
        self.tty_answer = tty_answer
        super().__init__(BIN, EMU, root, args)

    def execute(self, argv, root, env, stdin):
        if self.tty_answer is None:
            super().execute(argv, root, env, stdin)
        else:
            self.run_tty(root, self.args, env, self.tty_answer)

    def run_tty(self, root, args, env, answer):
        """Run on a new session whose controlling terminal (and stdin) is a pty;
        answer the prompt that appears on /dev/tty."""
        master, slave = os.openpty()
        p = subprocess.Popen([BIN] + args, cwd=root, env=env, stdin=slave,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True,
                             preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
        os.close(slave)
        self.prompt = ''
        while '[y/N]' not in self.prompt:
            if not select.select([master], [], [], 60)[0]:
                break
            try:
                self.prompt += os.read(master, 1024).decode()
            except OSError:
                break
        os.write(master, answer.encode() + b'\n')
        self.out, self.err = p.communicate(timeout=60)
        self.rc = p.returncode
        os.close(master)

    def sends(self):
        """Zone Management Send commands that reached the device."""
        return self.io(0x79)

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError as e:
            not_ok('%s: stdout is not JSON: %s' % (' '.join(self.args), e))
            return None


class RunErrTty(Run):
    """Run with stderr on a pty (a person watching): err is what the terminal got."""

    def execute(self, argv, root, env, stdin):
        master, slave = os.openpty()
        p = subprocess.Popen(argv, cwd=root, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        got = b''
        while True:
            if not select.select([master], [], [], 60)[0]:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:     # EIO: the child closed its end
                break
            if not chunk:
                break
            got += chunk
        self.out = p.communicate(timeout=60)[0].decode()
        self.rc = p.returncode
        self.err = got.decode().replace('\r\n', '\n')
        os.close(master)


def test_progress(root):
    """Ranged zone commands and discard: progress on a terminal only, not with -o json."""
    for q in ('1', '4'):
        r = RunErrTty(root, ['reset', 'dev/ng6n1', '-s', '0', '-c', '2000', '-f', '-q', q])
        last = r.err.split('\r')[-1]
        check(r.rc == 0 and re.match(r'reset: 100% \(2000/2000 zones\), \d+ zones/s, ETA 0 s'
                                     r'\x1b\[K\n$', last) is not None,
              'reset -c 2000 -q %s on a terminal: progress ends at 100%%: %r' % (q, last))
    r = RunErrTty(root, ['reset', 'dev/ng6n1', '-s', '0', '-c', '2000', '-f', '-o', 'json'])
    check(r.rc == 0 and r.err == '' and json.loads(r.out)['zones_done'] == 2000,
          'reset -o json on a terminal: no progress: %r' % r.err[:80])
    r = RunErrTty(root, ['reset', 'dev/ng6n1', '-a', '-f'])
    check(r.rc == 0 and r.err == '', 'reset --all (one command): no progress: %r' % r.err[:80])
    r = Run(root, ['reset', 'dev/ng6n1', '-s', '0', '-c', '2000', '-f'])
    check(r.rc == 0 and r.err == '', 'reset, stderr not a terminal: no progress: %r' % r.err[:80])
    r = RunErrTty(root, ['discard', 'dev/ng6n1', '--lba', '--offset', '0', '--length',
                         str(0x3000 * 100), '-f'])
    last = r.err.split('\r')[-1]
    check(r.rc == 0 and re.match(r'discard: 100% \(600 MiB of 600 MiB, 100/100 commands\), '
                                 r'\d+ IOPS, ETA 0 s\x1b\[K\n$', last) is not None,
          'discard on a terminal: progress with a percentage: %r' % last)


def golden(name, text):
    znptest.golden(GOLDEN, name, text)


def expect(root, args, rc, name=None):
    """Run, require exit code rc and a clean stderr; compare stdout to a golden file."""
    r = Run(root, args)
    check(r.rc == rc and r.err == '', '%s -> exit %d (got %d, stderr %r)' %
          (' '.join(args), rc, r.rc, r.err))
    if name:
        # list names nodes by their full paths: under the test's dev root
        golden(name, r.out.replace(root.rstrip('/') + '/dev/', '/dev/'))
    return r


def expect_err(root, args, rc, dev, problem):
    """One line naming the device, the documented exit code, nothing sent."""
    r = Run(root, args)
    line = r.err.rstrip('\n')
    prefix = '%s: %s: ' % (PROG, dev)
    check(r.rc == rc and '\n' not in line and line.startswith(prefix) and problem in line
          and r.out == '' and not r.sends(),
          '%s -> exit %d, one line naming %s: %r (got exit %d, %d zone commands sent)' %
          (' '.join(args), rc, dev, line, r.rc, len(r.sends())))
    return r


def state_file(root):
    """Zones the emulator holds in a non-default state: {idx: (cond, wp_off)}."""
    path = os.path.join(root, 'state-e')
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        lines = f.read().split('\n')
    return {int(l.split()[0]): (int(l.split()[1], 16), int(l.split()[2]))
            for l in lines[1:] if l.strip()}


def test_list(root):
    r = expect(root, ['list'], 0, 'list.txt')
    r = expect(root, ['list', '-o', 'json'], 0, 'list.json')
    j = r.json()
    if not j:
        return
    names = [n['ng'] for n in j['namespaces']]
    check(names == sorted(GEOM), 'list: every ZNS namespace, conventional ng0n2 left out: %s' % names)
    check(j['nr_namespaces'] == len(GEOM), 'list: nr_namespaces')
    for n in j['namespaces']:
        nsid, lba, zsze, zcap, nz, vis = GEOM[n['ng']]
        check((n['nsid'], n['lba_size'], n['zone_size'], n['zone_cap'], n['nr_zones'],
               n['block_visible'], n['zone_size_po2']) ==
              (nsid, lba, zsze, zcap, nz, vis, zsze & (zsze - 1) == 0),
              'list: %s matches the configured geometry' % n['ng'])
        want = None if n['ng'] in NO_DISK else 'nvme' + n['ng'][2:]
        check(n['block'] == want and n['mapped_as'] is None,
              'list: %s paired with its block node (%s)' % (n['ng'], want))
        check(n['ng_path'] == os.path.join(root, 'dev', n['ng']) and
              n['block_path'] == (os.path.join(root, 'dev', want) if vis and want else None),
              'list: %s: full paths of its nodes under the dev root, no block path when '
              'hidden (%r, %r)' % (n['ng'], n['ng_path'], n['block_path']))
    expect(root, ['list', '-H'], 0, 'list-human.txt')


def check_zones(desc, zones, first, n):
    """Zones of ng0n1 as configured: start, capacity, state, write pointer."""
    _, _, zsze, zcap, _, _ = GEOM['ng0n1']
    good = len(zones) == n
    for k, z in enumerate(zones):
        i = first + k
        cond = A_ZONES.get(i, ('empty', 1, 0))
        good &= z['slba'] == i * zsze and z['cap'] == zcap and z['type'] == 'SEQWRITE_REQ'
        good &= z['state'] == STATE[cond[1]]
        if cond[2] is not None:
            good &= z['wp'] == i * zsze + cond[2]
    check(good, desc)


def test_report(root):
    r = expect(root, ['report', 'dev/ng0n1'], 0, 'report-a.txt')
    r = expect(root, ['report', 'dev/ng0n1', '-o', 'json'], 0, 'report-a.json')
    j = r.json()
    if j:
        check((j['device'], j['nsid'], j['lba_size'], j['zone_size'], j['zone_cap'],
               j['nr_zones'], j['nr_reported']) == ('dev/ng0n1', 1, 4096, 24576, 24576, 10, 10),
              'report json header matches the configuration')
        check_zones('report json: 10 zones as configured', j['zone_list'], 0, 10)
    expect(root, ['report', 'dev/ng0n1', '-H', '-v'], 0, 'report-a-human.txt')
    r = expect(root, ['report', 'dev/ng0n1', '-s', '0x6001', '-c', '3', '-o', 'json'], 0)
    if r.json():
        check_zones('report -s inside zone 1 -c 3: zones 1-3', r.json()['zone_list'], 1, 3)
    for state, idx in (('closed', 2), ('full', 3), ('READONLY', 5), ('offline', 6),
                       ('implicit-open', 1)):
        r = expect(root, ['report', 'dev/ng0n1', '-S', state, '-o', 'json'], 0)
        if r.json():
            check_zones('report -S %s: zone %d only' % (state, idx),
                        r.json()['zone_list'], idx, 1)
    r = expect(root, ['report', 'dev/ng0n1', '-S', 'empty', '-o', 'json'], 0)
    if r.json():
        check([z['slba'] // 24576 for z in r.json()['zone_list']] == [0, 4, 7, 8, 9],
              'report -S empty: zones 0 4 7 8 9')
    check(not r.sends(), 'report sends no zone management command')
    # --summary: zones by state, open and active against the device's limits
    r = expect(root, ['report', 'dev/ng0n1', '--summary'], 0, 'report-a-summary.txt')
    check('\nopen                    1 of at most 4\n' in r.out and
          '\nactive                  2 of at most 6\n' in r.out and
          '\ntotal                  10\n' in r.out, 'report --summary text: %r' % r.out)
    r = expect(root, ['report', 'dev/ng0n1', '--summary', '-o', 'json'], 0, 'report-a-summary.json')
    j = r.json()
    if j:
        check(j['summary'] == {'empty': 5, 'implicit_open': 1, 'explicit_open': 0, 'closed': 1,
                               'full': 1, 'read_only': 1, 'offline': 1, 'not_wp': 0} and
              (j['open'], j['max_open'], j['active'], j['max_active'], j['nr_reported'],
               j['nr_zones']) == (1, 4, 2, 6, 10, 10) and 'zone_list' not in j,
              'report --summary json: counts and limits: %r' % j)
    r = expect(root, ['report', 'dev/ng1n1', '--summary', '-z', '2', '-c', '3', '-o', 'json'], 0)
    j = r.json()
    if j:
        check(j['summary']['empty'] == 3 and j['nr_reported'] == 3 and
              j['max_open'] is None and j['max_active'] is None,
              'report --summary -z 2 -c 3 of a device without limits: 3 empty, limits null: %r' % j)
    expect_err(root, ['report', 'dev/ng0n1', '--summary', '--raw'], 2, 'dev/ng0n1',
               '--summary cannot be combined with --raw')
    # several states: a comma list and -S again
    r = expect(root, ['report', 'dev/ng0n1', '-S', 'closed,FULL', '-S', 'of', '-o', 'json'], 0)
    if r.json():
        check([z['zone'] for z in r.json()['zone_list']] == [2, 3, 6] and
              r.json()['state_filter'] == 'closed,full,offline' and r.json()['nr_reported'] == 3,
              'report -S closed,FULL -S of: zones 2 3 6, state_filter closed,full,offline')
    r = expect(root, ['report', 'dev/ng0n1', '-S', 'em,oi', '-c', '2'], 0)
    check([l.split()[0] for l in r.out.splitlines()[1:]] == ['0', '1'],
          'report -S em,oi -c 2: the first two zones in either state: %r' % r.out)
    # --zone N: from zone N, as -s of its start (npo2: N * 24576, no shift)
    r = expect(root, ['report', 'dev/ng0n1', '-z', '7', '-o', 'json'], 0)
    if r.json():
        check_zones('report -z 7: zones 7-9', r.json()['zone_list'], 7, 3)
        check(r.json()['start_lba'] == 7 * 24576, 'report -z 7: start_lba 7 * 24576')
    r = expect(root, ['zonemap', 'dev/ng0n1', '--zone', '9', '--svg', '-'], 0)
    check(r.out.count('<rect') >= 1 and 'zone 9' in r.out and 'zone 8' not in r.out,
          'zonemap --zone 9: the last zone only')
    # the same namespace through its char and its block node: the same zones
    a = expect(root, ['report', 'dev/ng1n1', '-o', 'json'], 0)
    b = expect(root, ['report', 'dev/nvme1n1', '-o', 'json'], 0)
    if a.json() and b.json():
        ja, jb = a.json(), b.json()
        check(ja['zone_list'] == jb['zone_list'] and len(ja['zone_list']) == 8 and
              all(z['slba'] == i * 0x40000 for i, z in enumerate(ja['zone_list'])),
              'report: ng1n1 and nvme1n1 give the same 8 zones')
        del ja['device'], jb['device']
        check(ja == jb, 'report json: ng and block node identical except the device')
    a = expect(root, ['report', 'dev/ng1n1'], 0)
    b = expect(root, ['report', 'dev/nvme1n1'], 0, 'report-c.txt')
    check(a.out == b.out, 'report text: ng and block node identical')


def test_check(root):
    for dev, rc, verdict in (('ng0n1', 11, 'needs-kernel-patches'), ('ng0n2', 14, 'not-zns'),
                             ('ng1n1', 10, 'po2'), ('nvme1n1', 10, 'po2'),
                             ('ng2n1', 12, 'capacity-lt-size'), ('ng3n1', 0, 'mappable'),
                             ('nvme3n1', 0, 'mappable')):
        expect(root, ['check', 'dev/' + dev], rc, 'check-%s.txt' % dev)
        r = expect(root, ['check', 'dev/' + dev, '-o', 'json'], rc, 'check-%s.json' % dev)
        j = r.json()
        if not j:
            continue
        check(j['verdict'] == verdict and j['exit_code'] == rc and
              isinstance(j['reasons'], list) and all(isinstance(x, str) for x in j['reasons']),
              'check %s: verdict %s, exit %d' % (dev, verdict, rc))
        g = GEOM.get('ng' + dev[4:] if dev.startswith('nvme') else dev)
        if g and verdict != 'not-zns':
            check((j['nsid'], j['lba_size'], j['zone_size'], j['zone_cap'], j['nr_zones']) ==
                  g[:5], 'check %s: geometry as configured' % dev)


def zms(cmd):
    """(slba, action, select_all) of a Zone Management Send."""
    return ((cmd['cdw11'] << 32) | cmd['cdw10'], cmd['cdw13'] & 0xff, bool(cmd['cdw13'] & 0x100))


def test_zone_ops(root):
    zs = 0x30000
    r = expect(root, ['open', 'dev/ng3n1', '-s', hex(zs), '-c', '2'], 0, 'open.txt')
    check([zms(c) for c in r.sends()] == [(zs, 3, False), (2 * zs, 3, False)] and
          all(c['nsid'] == 1 and c['dev'] == 'ng3n1' for c in r.sends()),
          'open -c 2: two Zone Management Send (open) at zone 1 and 2 starts')
    st = state_file(root)
    check(st.get(1, (0,))[0] == 3 and st.get(2, (0,))[0] == 3 and 0 not in st and 3 not in st,
          'open: emulator holds zones 1, 2 explicitly open: %s' % st)
    r = expect(root, ['report', 'dev/nvme3n1', '-S', 'explicit-open', '-o', 'json'], 0)
    if r.json():
        check([z['slba'] for z in r.json()['zone_list']] == [zs, 2 * zs],
              'report through the block node shows both open zones')

    r = expect_err(root, ['finish', 'dev/ng3n1', '-s', '0'], 4, 'dev/ng3n1', 'add --force')
    r = expect(root, ['finish', 'dev/ng3n1', '-s', hex(2 * zs), '-f', '-o', 'json'], 0,
               'finish.json')
    check([zms(c) for c in r.sends()] == [(2 * zs, 2, False)], 'finish: one command')
    check(state_file(root).get(2, (0,))[0] == 0xe, 'finish: zone 2 full in the emulator')
    r = expect(root, ['close', 'dev/nvme3n1', '-s', hex(zs)], 0)
    check([zms(c) for c in r.sends()] == [(zs, 1, False)] and r.sends()[0]['dev'] == 'nvme3n1',
          'close through the block node: one command')
    check(state_file(root).get(1, (3,))[0] != 3, 'close: zone 1 no longer open')

    r = expect(root, ['reset', 'dev/ng3n1', '-s', '0', '-c', '4', '--dry-run'], 0,
               'reset-dry-run.txt')
    check(not r.sends(), 'reset --dry-run sends nothing')
    r = expect(root, ['offline', 'dev/ng3n1', '--all', '--dry-run', '-o', 'json'], 0,
               'offline-all-dry-run.json')
    check(not r.sends(), 'offline --all --dry-run sends nothing')
    r = expect(root, ['reset', 'dev/ng3n1', '--select-all', '--force'], 0, 'reset-all.txt')
    check([zms(c) for c in r.sends()] == [(0, 4, True)], 'reset --select-all: one select-all command')
    check(all(c == 1 for c, _ in state_file(root).values()),
          'reset --all: every zone empty in the emulator')

    # one synchronous command per zone (-q 1) and a batch (-q 3): the same commands
    for op, act, q in (('open', 3, '1'), ('close', 1, '3')):
        r = expect(root, [op, 'dev/ng3n1', '-s', '0', '-c', '4', '-q', q], 0)
        check(sorted(zms(c) for c in r.sends()) == [(i * zs, act, False) for i in range(4)],
              '%s -c 4 -q %s: one command per zone' % (op, q))
    check(all(c != 3 for c, _ in state_file(root).values()), 'close: no zone left open')

    # destructive without --force: asks on the terminal
    r = Run(root, ['reset', 'dev/ng3n1', '-s', hex(zs), '-c', '2'], tty_answer='n')
    check(r.rc == 4 and not r.sends() and
          'reset 2 zones from zone 1 (slba 0x30000) of dev/ng3n1? Data will be lost. [y/N]'
          in r.prompt and r.err == '%s: dev/ng3n1: reset not confirmed; nothing sent\n' % PROG,
          'reset on a terminal, answered n -> exit 4, nothing sent (%r, %r)' % (r.prompt, r.err))
    expect(root, ['open', 'dev/ng3n1', '-s', hex(3 * zs)], 0)
    r = Run(root, ['finish', 'dev/ng3n1', '-s', hex(3 * zs)], tty_answer='y')
    check(r.rc == 0 and [zms(c) for c in r.sends()] == [(3 * zs, 2, False)] and
          state_file(root).get(3, (0,))[0] == 0xe,
          'finish on a terminal, answered y -> sent, zone 3 full (%r)' % r.err)
    # finish keeps the data: its question says what it costs, not "Data will be lost"
    check('of dev/ng3n1? The zones take no more writes until they are reset. [y/N]' in r.prompt
          and 'lost' not in r.prompt, 'finish asks without "Data will be lost": %r' % r.prompt)
    r = expect(root, ['reset', 'dev/ng3n1', '-s', hex(3 * zs), '-f'], 0)
    check(state_file(root).get(3, (1,))[0] == 1, 'reset: zone 3 empty again')

    # --zone N names a zone by its number: the same commands as -s N * zone size
    r = expect(root, ['open', 'dev/ng3n1', '-z', '2', '-c', '2'], 0)
    check([zms(c) for c in r.sends()] == [(2 * zs, 3, False), (3 * zs, 3, False)],
          'open -z 2 -c 2: zones 2 and 3 by their start LBAs')
    a = expect(root, ['reset', 'dev/ng3n1', '--zone', '1', '-c', '3', '--dry-run'], 0)
    b = expect(root, ['reset', 'dev/ng3n1', '-s', hex(zs), '-c', '3', '--dry-run'], 0)
    check(a.out == b.out and hex(3 * zs) in a.out and not a.sends(),
          'reset --zone 1 --dry-run prints what -s 0x30000 does: %r' % a.out)
    expect(root, ['reset', 'dev/ng3n1', '-a', '-f'], 0)

    # a failing command: the error, the exit code, what was done
    r = Run(root, ['open', 'dev/ng5n1', '-s', '0', '-c', '3'])
    line = r.err.rstrip('\n')
    check(r.rc == 1 and line == '%s: dev/ng5n1: open failed at zone 1 (LBA 0x%x), after 1 of 3 '
          'zones: %s' % (PROG, zs,
          line.split('zones: ', 1)[-1]) and '0x4002' in line and len(r.sends()) == 2,
          'open with the 2nd command failing -> exit 1, one line: %r' % line)


def test_bad(root):
    expect_err(root, ['reset', 'dev/ng0n1', '-s', '0x6001', '-f'], 2, 'dev/ng0n1',
               'not a zone start')
    expect_err(root, ['open', 'dev/ng0n1', '-s', '100'], 2, 'dev/ng0n1', 'not a zone start')
    expect_err(root, ['reset', 'dev/ng0n1', '-s', '0x36000', '-c', '2', '-f'], 2, 'dev/ng0n1',
               'zone count past the last zone')
    expect_err(root, ['finish', 'dev/ng0n1', '-s', '0', '-c', '11', '-f'], 2, 'dev/ng0n1',
               'zone count past the last zone')
    expect_err(root, ['open', 'dev/ng0n1', '-s', '0x3c000'], 2, 'dev/ng0n1', 'past the end')
    expect_err(root, ['report', 'dev/ng0n1', '-s', '0x3c000'], 2, 'dev/ng0n1', 'past the end')
    for op in ('open', 'close', 'finish', 'reset', 'offline'):
        expect_err(root, [op, 'dev/ng0n2', '-s', '0', '-f'], 3, 'dev/ng0n2',
                   'not a zoned namespace')
    expect_err(root, ['report', 'dev/ng0n2'], 3, 'dev/ng0n2', 'not a zoned namespace')
    expect_err(root, ['report', 'dev/nvme0'], 3, 'dev/nvme0', 'controller node')
    expect_err(root, ['reset', 'dev/nvme0', '-a', '-f'], 3, 'dev/nvme0', 'controller node')
    expect_err(root, ['check', 'dev/ng0n1', '-n', '2'], 3, 'dev/ng0n1', 'is namespace 1, not 2')
    expect_err(root, ['reset', 'dev/nvme4n1', '-s', '0', '-f'], 4, 'dev/nvme4n1', 'in use')
    expect_err(root, ['reset', 'dev/ng4n1', '-a', '-f'], 4, 'dev/ng4n1', 'in use')
    expect_err(root, ['reset', 'dev/nvme4n1', '-a', '--dry-run'], 4, 'dev/nvme4n1', 'in use')
    expect_err(root, ['offline', 'dev/ng0n1', '-s', '0'], 4, 'dev/ng0n1', 'add --force')
    expect_err(root, ['reset', 'dev/ng0n1', '-s', '12x', '-f'], 2, 'dev/ng0n1', 'unknown suffix')
    expect_err(root, ['report', 'dev/ng0n1', '-S', 'opened'], 2, 'dev/ng0n1', 'unknown zone state')
    expect_err(root, ['report', 'dev/ng0n1', '-z', '10'], 2, 'dev/ng0n1',
               'zone 10 is past the last zone (the device has 10, numbered from 0)')
    expect_err(root, ['reset', 'dev/ng0n1', '--zone', '10', '-f'], 2, 'dev/ng0n1',
               'zone 10 is past the last zone')
    expect_err(root, ['zonemap', 'dev/ng0n1', '-z', '99'], 2, 'dev/ng0n1',
               'zone 99 is past the last zone')
    expect_err(root, ['reset', 'dev/ng0n1', '-z', '1', '-s', '0', '-f'], 2, 'dev/ng0n1',
               '--zone cannot be combined with --start-lba')
    expect_err(root, ['reset', 'dev/ng0n1', '-z', '1', '-a', '-f'], 2, 'dev/ng0n1',
               '--all cannot be combined with --zone')
    expect_err(root, ['report', 'dev/ng0n1', '-z', '1', '-s', '0'], 2, 'dev/ng0n1',
               '--zone cannot be combined with --start-lba')
    expect_err(root, ['reset', 'dev/ng0n1', '-f'], 2, 'dev/ng0n1',
               'missing --start-lba, --all or --zone')
    expect_err(root, ['open', 'dev/ng3n1', '-s', '0', '-q', '0'], 2, 'dev/ng3n1',
               '--queue-depth must be 1 to')
    expect_err(root, ['open', 'dev/ng3n1', '-s', '0', '-q', '5000'], 2, 'dev/ng3n1',
               '--queue-depth must be 1 to')
    r = Run(root, ['check', 'dev/ng0n1', '-n', '1'])
    check(r.rc == 11, 'check -n matching the NSID is accepted')


def json_error(r, args, rc, dev, nvme_status=None, errno=None):
    """-o json failure: stdout one {"error": {...}} saying what stderr says."""
    line = r.err.rstrip('\n')
    j = r.json()
    e = j.get('error') if isinstance(j, dict) and list(j) == ['error'] else None
    check(r.rc == rc and e is not None and e['exit_code'] == rc and e['device'] == dev and
          line == '%s: %s: %s' % (PROG, dev, e['message']) and
          e['nvme_status'] == nvme_status and e['errno'] == errno and
          (e['nvme_status_name'] is None) == (nvme_status is None) and
          (e['errno_name'] is None) == (errno is None),
          '%s -> exit %d, the error as JSON (status %r, errno %r): %r' %
          (' '.join(args), rc, nvme_status, errno, r.out))
    return e


def test_json_errors(root):
    """With -o json a failure is one JSON object on stdout; stderr and exit unchanged."""
    args = ['offline', 'dev/ng0n1', '-s', '0', '-o', 'json']
    r = Run(root, args)
    e = json_error(r, args, 4, 'dev/ng0n1')
    check(not r.sends() and e and 'add --force' in e['message'],
          'refused offline -o json: nothing sent, the refusal named')
    args = ['reset', 'dev/nvme4n1', '-s', '0', '-f', '-o', 'json']
    json_error(Run(root, args), args, 4, 'dev/nvme4n1', errno=16)
    args = ['report', 'dev/ng0n2', '-o', 'json']
    json_error(Run(root, args), args, 3, 'dev/ng0n2')
    # the configured fault: the 2nd Zone Management Send of ng5n1 fails with 0x4002
    args = ['open', 'dev/ng5n1', '-s', '0', '-c', '3', '-o', 'json']
    r = Run(root, args)
    j = r.json() or {}
    e = j.get('error') or {}
    check(r.rc == 1 and j.get('result') == 'error' and j.get('zones_done') == 1 and
          (e.get('nvme_status'), e.get('nvme_status_name'), e.get('errno'), e.get('device')) ==
          (0x4002, 'Invalid Field in Command', None, 'dev/ng5n1') and len(r.sends()) == 2,
          'open -o json failing at the 2nd zone: zones_done 1, error 0x4002 (%r)' % r.out)


def report_maxrss(root, dev):
    """Peak RSS (KiB) of `report -o json` and the zones it printed."""
    # ASan's quarantine would hold every freed zone object: measure the tool
    env = znptest.emu_env(EMU, root, asan_extra='quarantine_size_mb=0')
    out = os.path.join(root, 'big.json')
    with open(out, 'w') as f:
        p = subprocess.Popen([BIN, 'report', 'dev/' + dev, '-o', 'json'], cwd=root, env=env,
                             stdout=f, stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
    with open(out) as f:
        j = json.load(f)
    n = len(j['zone_list'])
    last = j['zone_list'][-1]['slba'] if n else None
    os.unlink(out)
    return os.waitstatus_to_exitcode(status), ru.ru_maxrss, n, j['nr_reported'], last


def test_streaming(root):
    """A report streams: peak memory does not grow with the zone count."""
    rc1, rss1, n1, nr1, last1 = report_maxrss(root, 'ng6n1')
    rc2, rss2, n2, nr2, last2 = report_maxrss(root, 'ng7n1')
    check(rc1 == rc2 == 0 and (n1, nr1, last1) == (2000, 2000, 1999 * 0x3000) and
          (n2, nr2, last2) == (200000, 200000, 199999 * 0x3000),
          'report -o json of 2000 and 200000 zones: every zone, in order')
    check(rss2 - rss1 < 16 * 1024,
          'report -o json: peak RSS %d KiB for 2000 zones, %d KiB for 200000' % (rss1, rss2))


# A report that fails in its second transfer (8 KiB MDTS: 127 descriptors each);
# a namespace that answers Zone Management Send with Invalid Command Opcode.
FAULT_CONFIG = """\
path=dev/ng8n1 kind=ng ctrl=nvme8 nsid=1 lba=512 zsze=0x3000 zcap=0x3000 zones=200 disk=none mdts=8k fail_io=0x7a:2:0x4002
path=dev/ng9n1 kind=ng ctrl=nvme9 nsid=1 lba=512 zsze=0x3000 zcap=0x3000 zones=4 disk=none fail_io=0x79:*:0x4001
path=dev/ng10n1 kind=ng ctrl=nvme10 nsid=1 lba=512 zsze=0x8000 zcap=0x8000 zones=6 disk=none bad_wp=3
"""


def test_report_fault(root):
    """A device error mid-report: valid JSON up to there, one error line, exit 1."""
    r = Run(root, ['report', 'dev/ng8n1', '-o', 'json'])
    line = r.err.rstrip('\n')
    check(r.rc == 1 and '\n' not in line and
          line.startswith('%s: dev/ng8n1: zone report failed: NVMe status 0x4002' % PROG),
          'report failing mid-way -> exit 1, one line: %r' % line)
    j = r.json()
    if j:
        zl = j['zone_list']
        check(0 < len(zl) < 200 and j['nr_reported'] == len(zl) and j['nr_zones'] == 200 and
              all(z['slba'] == i * 0x3000 for i, z in enumerate(zl)),
              'report failing mid-way: the JSON closes, nr_reported counts the %d zones printed, '
              'nr_zones the namespace\'s'
              % len(zl))
        e = j.get('error') or {}
        check((e.get('nvme_status'), e.get('errno'), e.get('device')) ==
              (0x4002, None, 'dev/ng8n1') and line.endswith(e.get('message', '?')),
              'report failing mid-way: "error" is the configured status 0x4002 (%r)' % e)
    r = Run(root, ['report', 'dev/ng8n1'])
    rows = r.out.splitlines()[1:]
    check(r.rc == 1 and 0 < len(rows) < 200 and r.err.count('\n') == 1,
          'report text failing mid-way -> exit 1 after %d rows' % len(rows))


def test_report_bad_desc(root):
    """Zone 3's write pointer one past its capacity (bad_wp=3): every zone printed
    (golden text and JSON: zone 3 as the drive said it, flagged "bad" in JSON),
    zone 3 named in one line, exit 1; --raw prints the same zones unflagged, exit 0."""
    line = '%s: dev/ng10n1: zone 3: wp 0x20001 beyond slba+cap 0x20000' % PROG
    for fmt, name in (('normal', 'report-bad-wp.txt'), ('json', 'report-bad-wp.json')):
        r = Run(root, ['report', 'dev/ng10n1', '-o', fmt])
        check(r.rc == 1 and r.err == line + '\n',
              'report -o %s, bad wp in zone 3 -> exit 1, %r (got %d, %r)' %
              (fmt, line, r.rc, r.err))
        golden(name, r.out)
    expect(root, ['report', 'dev/ng10n1', '--raw'], 0, 'report-bad-wp-raw.txt')


def test_invalid_opcode(root):
    """Invalid Command Opcode (SC 0x01, DNR) means "not supported": exit 5 from
    every command that sends it, discard as well as the zone operations."""
    zs = 0x3000
    for args in (['reset', 'dev/ng9n1', '-s', '0', '-f'],
                 ['finish', 'dev/ng9n1', '-a', '-f'],
                 ['discard', 'dev/ng9n1', '--lba', '--length', hex(zs), '-f'],
                 ['discard', 'dev/ng9n1', '--lba', '--length', hex(2 * zs), '-q', '1', '-f'],
                 ['discard', 'dev/ng9n1', '-f', '-o', 'json']):
        r = Run(root, args)
        line = r.err.rstrip('\n').split('\n')[-1]
        check(r.rc == 5 and line.startswith('%s: dev/ng9n1: ' % PROG) and '0x4001' in line and
              len(r.sends()) >= 1,
              '%s: Invalid Opcode -> exit 5 (got %d, %d sent, %r)' %
              (' '.join(args), r.rc, len(r.sends()), r.err))


def test_stdout_full(root):
    """A result that cannot be written (stdout on /dev/full) exits 1 with one
    line, although the device did what was asked (util-linux close_stdout)."""
    env = znptest.emu_env(EMU, root)
    for args in (['report', 'dev/ng9n1', '-o', 'json'], ['report', 'dev/ng9n1'],
                 ['check', 'dev/ng9n1', '-o', 'json']):
        with open('/dev/full', 'w') as full:
            p = subprocess.run([BIN] + args, cwd=root, env=env, stdout=full,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        # check keeps its verdict (11: npo2, no block device, needs kernel patches)
        want = {'report': 1, 'check': 11}[args[0]]
        lines = p.stderr.splitlines()
        check(p.returncode == want and len(lines) == 1 and
              lines[0].startswith('%s: %s: cannot write standard output' % (PROG, args[0])),
              '%s >/dev/full -> exit %d, one line (got %d, %r)' %
              (' '.join(args), want, p.returncode, p.stderr))


def main():
    with tempfile.TemporaryDirectory() as root:
        znptest.setup(root, MKFAKE, CONFIG)
        test_list(root)
        test_report(root)
        test_check(root)
        test_zone_ops(root)
        test_bad(root)
        test_json_errors(root)
        test_streaming(root)
        test_progress(root)
    with tempfile.TemporaryDirectory() as root:
        znptest.setup(root, MKFAKE, FAULT_CONFIG)
        test_report_fault(root)
        test_report_bad_desc(root)
        test_invalid_opcode(root)
        test_stdout_full(root)
    return znptest.summary()


if __name__ == '__main__':
    sys.exit(main())

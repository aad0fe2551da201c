#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fault injection through the emulated namespace (tests/emu), CLI level.

Usage: run.py BINARY LIBZNPEMU MKFAKE

For NVMe error statuses / errnos on the first, a middle and the last command
of a zone report, of a batched zone reset and of a discard; a short transfer;
descriptors with a write pointer past the capacity, a zone start that is not
a multiple of the zone size, a capacity above the zone size, an undefined
state; a zone count that differs between Identify and the report, each run
with text and JSON output:
  - exit status 1, exactly one line on stderr naming the device and the
    problem (NVMe status, or "malformed" data), nothing else there;
  - stdout is either empty or one complete JSON document (never cut short);
    a report's zones are exactly the device's first zones, in order, as the
    emulator was configured (zone i starts at i * zone size), nr_zones
    counts them and "error" (errno or NVMe status) says the list is partial;
  - discard when its Ctrl-C handler cannot be installed (sigaction() of
    SIGINT or SIGTERM failing): exit 1, one error line, nothing sent;
  - a batched operation reports exactly how many zones / ranges were done,
    and the emulator's command trace shows that exactly those commands
    succeeded, the failing one was the last one sent, and no LBA outside the
    requested zones / ranges was touched.
"""
import json
import re
import subprocess
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import znptest  # noqa: E402
from znptest import check, not_ok, ok  # noqa: E402

BIN, EMU, MKFAKE = (os.path.abspath(a) for a in sys.argv[1:4])
PROG = 'nvme-zns-npo2'
ZS = 0x3000          # zone size (LBAs of 512 bytes)
NZ = 400             # zones: 8 KiB MDTS = 127 descriptors a command -> 4 report commands
PER_CMD = (8192 - 64) // 64
REPORT_CMDS = -(-NZ // PER_CMD)
# The report's Zone Management Receives are #1+P .. #REPORT_CMDS+P, where P
# (0 or 1) is the probe's own, measured on a healthy namespace first.
FIRST = MIDDLE = LAST = None

BASE = 'kind=ng nsid=1 lba=512 zsze=%#x zcap=%#x zones=%d disk=none mdts=8k' % (ZS, ZS, NZ)

# name: extra emulator keys
def report_faults():
    return {
        'rep-fail-first': 'fail_io=0x7a:%d:0x4002' % FIRST,
        'rep-fail-middle': 'fail_io=0x7a:%d:0x4002' % MIDDLE,
        'rep-fail-last': 'fail_io=0x7a:%d:0x4002' % LAST,
        'rep-internal-middle': 'fail_io=0x7a:%d:0x6' % MIDDLE,
        # NVMe status 0x001 must not read as "a zone" (the iterator's 1)
        'rep-opcode-middle': 'fail_io=0x7a:%d:0x1' % MIDDLE,
        'rep-errno-middle': 'errno_io=0x7a:%d:5' % MIDDLE,
        'rep-short-middle': 'short=%d:1000' % MIDDLE,
        'rep-short-hdr': 'short=%d:10' % FIRST,
        'rep-bad-wp': 'bad_wp=300',
        'rep-bad-start': 'bad_start=130',  # 2nd command
        'rep-bad-cap': 'bad_cap=399',     # last zone
        'rep-bad-cond': 'bad_cond=200',
        'rep-grows': 'zones_delta=5',
        'rep-shrinks': 'zones_delta=-5',
        'probe-bad-wp': 'bad_wp=0',
        'probe-fail': 'fail_io=0x7a:1:0x4002',
        'probe-id-internal': 'fail_admin=0x6:2:0x6',     # Identify Namespace
    }
# zones 0..9 full, reset of zones 0..9 with the Nth Zone Management Send failing
RESET_ZONES = 10
FULL = ' '.join('zone=%d:full' % i for i in range(RESET_ZONES))
RESET_FAULTS = {
    'rst-fail-first': (1, 'fail_io=0x79:1:0x4002'),
    'rst-fail-middle': (5, 'fail_io=0x79:5:0x4002'),
    'rst-fail-last': (RESET_ZONES, 'fail_io=0x79:%d:0x4002' % RESET_ZONES),
    'rst-errno-middle': (5, 'errno_io=0x79:5:5'),
}
# conventional namespace: discard = Dataset Management, one command a range
DISC_RANGES = 6
DISC_FAULTS = {
    'dsc-internal-first': (1, 'fail_io=0x9:1:0x6'),
    'dsc-internal-middle': (3, 'fail_io=0x9:3:0x6'),
    'dsc-internal-last': (DISC_RANGES, 'fail_io=0x9:%d:0x6' % DISC_RANGES),
    'dsc-errno-middle': (3, 'errno_io=0x9:3:5'),
}
ZDISC_FAULTS = {
    'zdsc-fail-middle': (2, 'fail_io=0x79:2:0x4002'),
}


# scenario name -> node (the core knows NVMe nodes by their kernel names)
NODE = {}


def config():
    lines = []

    def add(name, ctrl, keys):
        NODE[name] = 'ng%dn1' % ctrl
        lines.append('path=dev/ng%dn1 ctrl=nvme%d %s  # %s' % (ctrl, ctrl, keys, name))

    for i, (name, extra) in enumerate(REPORT_FAULTS.items()):  # noqa
        add(name, i, '%s %s' % (BASE, extra))
    for j, (name, (_, extra)) in enumerate(RESET_FAULTS.items()):
        add(name, 100 + j, '%s %s %s' % (BASE, FULL, extra))
    for j, (name, (_, extra)) in enumerate(DISC_FAULTS.items()):
        add(name, 200 + j, 'kind=ng nsid=1 csi=0 lba=512 nlbas=1048576 disk=none %s' % extra)
    for j, (name, (_, extra)) in enumerate(ZDISC_FAULTS.items()):
        add(name, 300 + j, '%s %s %s' % (BASE, FULL, extra))
    add('healthy', 400, BASE)
    # discard without its SIGINT handler: zoned (resets) and conventional (DSM)
    add('zdsc-no-handler', 500, '%s %s' % (BASE, FULL))
    add('dsc-no-handler', 501, 'kind=ng nsid=1 csi=0 lba=512 nlbas=1048576 disk=none')
    # capacities that differ: in the probe's first chunk, and only in the last one
    add('cap-varies-first', 401, BASE + ' small_cap=3')
    add('cap-varies-late', 402, BASE + ' small_cap=%d' % (NZ - 2))
    return '\n'.join(lines) + '\n'


class Run(znptest.Run):
    def __init__(self, root, args, scenario, stdin=None, env=None):
        super().__init__(BIN, EMU, root, args, stdin, env)
        self.desc = '[%s] %s' % (scenario, ' '.join(args))

    def one_error_line(self, dev, problem=None):
        line = self.err.rstrip('\n')
        good = (self.err.endswith('\n') and '\n' not in line and
                line.startswith('%s: dev/%s: ' % (PROG, dev)) and
                (problem is None or problem in line))
        return check(good, '%s: one error line naming the device%s: %r' %
                     (self.desc, ' and %r' % problem if problem else '', self.err))

    def json_or_nothing(self):
        """stdout: empty, or exactly one complete JSON document."""
        if self.out == '':
            ok('%s: no JSON (nothing on stdout)' % self.desc)
            return None
        try:
            j = json.loads(self.out)
        except ValueError as e:
            not_ok('%s: stdout is neither empty nor complete JSON: %s: %r' %
                   (self.desc, e, self.out[-200:]))
            return None
        check(isinstance(j, dict), '%s: stdout is one complete JSON object' % self.desc)
        return j


def slba(c):
    return c.get('cdw10', 0) | c.get('cdw11', 0) << 32


def expected_problem(name):
    if 'errno' in name:
        return 'Input/output error'
    if 'internal' in name:
        return 'NVMe status 0x6'
    if 'opcode' in name:
        return None     # "Operation not supported" or "Invalid Command Opcode"
    if 'fail' in name:
        return 'NVMe status 0x4002'
    return None     # malformed data: any wording, but one line


# A descriptor with a valid zone start and one bad field: the report prints
# every zone (the bad one as the drive said it, flagged "bad" in JSON), names
# the bad one with the field and values on stderr, and exits 1; the values
# follow from the emulator's faults (wp one past the capacity, capacity one
# past the zone size, state 0x5) at the configured zone.
KEPT = {
    'rep-bad-wp': (300, 'wp %#x beyond slba+cap %#x' % (300 * ZS + ZS + 1, 300 * ZS + ZS)),
    'rep-bad-cap': (399, 'cap %#x beyond zone size %#x' % (ZS + 1, ZS)),
    'rep-bad-cond': (200, 'state 0x5 unknown'),
    'probe-bad-wp': (0, 'wp %#x beyond slba+cap %#x' % (ZS + 1, ZS)),
}


def test_report_kept(root, name):
    zno, why = KEPT[name]
    line = 'zone %d: %s' % (zno, why)
    for fmt in ('json', 'normal'):
        r = Run(root, ['report', 'dev/' + NODE[name], '-o', fmt], name)
        check(r.rc == 1, '%s: exit 1 (got %d)' % (r.desc, r.rc))
        r.one_error_line(NODE[name], line)
        check(r.err.rstrip('\n').endswith(line), '%s: the line ends with %r' % (r.desc, line))
        if fmt == 'json':
            j = r.json_or_nothing() or {}
            zl = j.get('zone_list', [])
            check(j.get('nr_zones') == NZ and len(zl) == NZ and
                  all(z['slba'] == i * ZS for i, z in enumerate(zl)),
                  '%s: the JSON holds all %d zones' % (r.desc, NZ))
            check([(z['zone'], z['bad']) for z in zl if 'bad' in z] == [(zno, why)],
                  '%s: only zone %d is flagged "bad": %r' % (r.desc, zno, why))
            check(isinstance(j.get('error'), dict),
                  '%s: "error" says the report is not clean: %r' % (r.desc, j.get('error')))
        else:
            rows = r.out.splitlines()
            check(len(rows) == NZ + 1 and rows[1 + zno].split()[0] == str(zno),
                  '%s: the header and all %d zones, zone %d among them' % (r.desc, NZ, zno))
        check(not r.io(0x79) and not r.io(0x01) and not r.io(0x09),
              '%s: nothing but reads sent' % r.desc)
    # check decides on every zone: a bad descriptor leaves it without a verdict
    r = Run(root, ['check', 'dev/' + NODE[name], '-o', 'json'], name)
    check(r.rc == 1, '%s: exit 1 (got %d)' % (r.desc, r.rc))
    r.one_error_line(NODE[name])
    r.json_or_nothing()


def test_report_raw(root):
    """--raw: the descriptors as the drive sent them, nothing validated: exit 0,
    nothing on stderr, the bad values in place, no "bad" flag."""
    bad = {'rep-bad-wp': (300, 'wp', 300 * ZS + ZS + 1),
           'rep-bad-start': (130, 'slba', 130 * ZS + 1),
           'rep-bad-cap': (399, 'cap', ZS + 1)}
    for name, (zno, field, value) in bad.items():
        r = Run(root, ['report', 'dev/' + NODE[name], '--raw', '-o', 'json'], name)
        check(r.rc == 0 and r.err == '', '%s: exit 0, nothing on stderr (got %d, %r)' %
              (r.desc, r.rc, r.err))
        zl = (r.json_or_nothing() or {}).get('zone_list', [])
        check(len(zl) == NZ and zl[zno][field] == value and
              all(z['slba'] == i * ZS for i, z in enumerate(zl) if i != zno) and
              not any('bad' in z for z in zl),
              '%s: all %d descriptors, #%d with %s %#x as sent, none flagged' %
              (r.desc, NZ, zno, field, value))
        r = Run(root, ['report', 'dev/' + NODE[name], '--raw'], name)
        rows = r.out.splitlines()
        check(r.rc == 0 and len(rows) == NZ + 1 and
              ('%#x' % value) in rows[1 + zno].split(),
              '%s: text: all %d zones, %s %#x in row %d' % (r.desc, NZ, field, value, zno))


def test_report(root, name):
    if name in KEPT:
        return test_report_kept(root, name)
    prob = expected_problem(name)
    for fmt in ('json', 'normal'):
        r = Run(root, ['report', 'dev/' + NODE[name], '-o', fmt], name)
        # Invalid Command Opcode mid-report: the device does not support it (exit 5)
        want = 5 if 'opcode' in name else 1
        check(r.rc == want, '%s: exit %d (got %d)' % (r.desc, want, r.rc))
        r.one_error_line(NODE[name], prob)
        if fmt == 'json':
            j = r.json_or_nothing()
            e = (j or {}).get('error')
            if j is not None and list(j) == ['error']:
                # failed before the report began: the error is the document
                check(isinstance(e, dict) and e.get('exit_code') == want and
                      (prob is None or prob in e.get('message', '')),
                      '%s: the error as the JSON document, exit_code %d: %r' % (r.desc, want, e))
            elif j is not None:
                zl = j.get('zone_list', [])
                check(j.get('nr_reported') == len(zl) and j.get('nr_zones') == NZ and len(zl) < NZ and
                      all(z['slba'] == i * ZS for i, z in enumerate(zl)),
                      '%s: the JSON holds the %d zones before the fault, as configured'
                      % (r.desc, len(zl)))
                check(isinstance(e, dict) and (prob is None or prob in e.get('message', '')),
                      '%s: the JSON says the list is partial: "error": %r' % (r.desc, e))
        else:
            rows = r.out.splitlines()
            check(r.out == '' or r.out.endswith('\n'),
                  '%s: text output ends with a whole line' % r.desc)
            check(len(rows) <= NZ + 1, '%s: %d lines, no more than the zones' % (r.desc, len(rows)))
        check(not r.io(0x79) and not r.io(0x01) and not r.io(0x09),
              '%s: nothing but reads sent' % r.desc)
    # check reads the whole report (capacities of every zone decide the
    # verdict): a fault anywhere in it fails the command, no verdict
    r = Run(root, ['check', 'dev/' + NODE[name], '-o', 'json'], name)
    check(r.rc == want, '%s: exit %d (got %d)' % (r.desc, want, r.rc))
    r.one_error_line(NODE[name], prob)
    r.json_or_nothing()


def test_reset(root, name, nth):
    for fmt, extra in (('json', []), ('json', ['-q', '4']), ('normal', [])):
        r = Run(root, ['reset', 'dev/' + NODE[name], '-s', '0', '-c', str(RESET_ZONES), '-f',
                       '-o', fmt] + extra, name)
        sends = r.io(0x79)
        check(r.rc == 1, '%s: exit 1 (got %d)' % (r.desc, r.rc))
        r.one_error_line(NODE[name], expected_problem(name))
        done = nth - 1
        if fmt == 'json':
            j = r.json_or_nothing()
            if j is not None:
                check(j.get('zones_done') == done and j.get('result') == 'error',
                      '%s: zones_done %r == %d (zones before the failing command)'
                      % (r.desc, j.get('zones_done'), done))
        else:
            check(('after %d of %d zones' % (done, RESET_ZONES)) in r.err,
                  '%s: the error says %d of %d zones were done: %r'
                  % (r.desc, done, RESET_ZONES, r.err))
        ok_sends = [c for c in sends if c.get('status', 0) == 0 and c.get('err', 0) == 0]
        lbas = sorted(slba(c) for c in sends)
        check(all(s % ZS == 0 and s < RESET_ZONES * ZS for s in lbas) and
              len(set(lbas)) == len(lbas),
              '%s: only zone starts 0..%d were sent, each once: %s'
              % (r.desc, RESET_ZONES - 1, [s // ZS for s in lbas]))
        if '-q' not in extra:
            check(len(ok_sends) == done and len(sends) == nth and
                  [slba(c) // ZS for c in sends] == list(range(nth)),
                  '%s: zones 0..%d reset, zone %d failed, nothing sent after it'
                  % (r.desc, done - 1, nth - 1))
        else:
            check(len(ok_sends) >= done,
                  '%s: at least the %d zones reported done were reset' % (r.desc, done))


def test_select_all(root):
    name = 'rst-fail-first'
    r = Run(root, ['reset', 'dev/' + NODE[name], '--all', '-f', '-o', 'json'], name)
    check(r.rc == 1, '%s: exit 1 (got %d)' % (r.desc, r.rc))
    r.one_error_line(NODE[name], '0x4002')
    j = r.json_or_nothing()
    if j is not None:
        check(j.get('zones_done') == 0 and j.get('result') == 'error',
              '%s: zones_done 0' % r.desc)


def test_discard(root, name, nth, zoned=False):
    if zoned:
        # 3 ranges of 1 zone each (bytes), the 2nd reset fails
        ranges = ''.join('%d %d\n' % (i * 2 * ZS * 512, ZS * 512) for i in range(3))
        nr = 3
    else:
        # 6 ranges of 1 MiB, 2 MiB apart
        ranges = ''.join('%d %d\n' % (i * 2 << 20, 1 << 20) for i in range(DISC_RANGES))
        nr = DISC_RANGES
    for fmt, q in (('json', '1'), ('json', '8'), ('normal', '1')):
        r = Run(root, ['discard', 'dev/' + NODE[name], '--ranges', '-', '-f', '-q', q,
                       '-o', fmt], name, stdin=ranges)
        check(r.rc == 1, '%s: exit 1 (got %d)' % (r.desc, r.rc))
        r.one_error_line(NODE[name], expected_problem(name))
        opc = 0x79 if zoned else 0x09
        sends = r.io(opc)
        if zoned:
            starts = [slba(c) for c in sends]
            check(set(starts) <= {i * 2 * ZS for i in range(3)},
                  '%s: resets only of the requested zones: %s' % (r.desc, starts))
        else:
            # DSM ranges travel in the data buffer: the command count and the
            # message (which range failed) say what was touched
            check(len(sends) <= nr and all(c.get('nsid') == 1 for c in sends),
                  '%s: at most one DSM command a range (%d)' % (r.desc, len(sends)))
            if q == '1':
                want = 'command %d (start %d, length %d LBAs) failed' % (
                    nth - 1, (nth - 1) * 2 * 2048, 2048)
                check(want in r.err, '%s: the error names the failing range: %r'
                      % (r.desc, want))
        if fmt == 'json':
            j = r.json_or_nothing()
            if j is not None:
                res = j.get('result') or {}
                good = [c for c in sends if c.get('status', 0) == 0 and c.get('err', 0) == 0]
                e = j.get('error') or {}
                check(res.get('completed') == len(good) and res.get('failed', 0) >= 1 and
                      'error' not in res and e.get('exit_code') == r.rc and e.get('message'),
                      '%s: result completed %r == %d commands the device did, failed >= 1; '
                      'the error top-level with exit_code %d: %r'
                      % (r.desc, res.get('completed'), len(good), r.rc, e))
                if q == '1':
                    check(res.get('submitted') == nth and res.get('completed') == nth - 1,
                          '%s: submitted %r == %d, completed %r == %d (synchronous: stops at the fault)'
                          % (r.desc, res.get('submitted'), nth, res.get('completed'), nth - 1))
        elif q == '1':
            check(len(sends) == nth, '%s: %d commands sent, the last one failed' % (r.desc, nth))


def test_discard_no_handler(root):
    """sigaction() failing for SIGINT (the first handler) or SIGTERM (the
    second): the discard fails before anything is sent, exit 1."""
    SIGINT, SIGTERM, EINVAL = 2, 15, 22
    for name, zoned in (('zdsc-no-handler', True), ('dsc-no-handler', False)):
        if zoned:
            ranges = ''.join('%d %d\n' % (i * 2 * ZS * 512, ZS * 512) for i in range(3))
            problem = 'zone reset failed after 0 of 3 commands: Invalid argument'
        else:
            ranges = ''.join('%d %d\n' % (i * 2 << 20, 1 << 20) for i in range(DISC_RANGES))
            problem = 'discard failed after 0 of %d commands: Invalid argument' % DISC_RANGES
        for sig in (SIGINT, SIGTERM):
            for fmt in ('normal', 'json'):
                r = Run(root, ['discard', 'dev/' + NODE[name], '--ranges', '-', '-f', '-o', fmt],
                        '%s, sigaction(%d) fails' % (name, sig), stdin=ranges,
                        env={'ZNP_EMU_SIGACTION_ERRNO': '%d:%d' % (sig, EINVAL)})
                check(r.rc == 1, '%s: exit 1 (got %d)' % (r.desc, r.rc))
                r.one_error_line(NODE[name], problem)
                check(not r.io(0x79) and not r.io(0x09) and not r.io(0x01),
                      '%s: nothing discarded (no reset, DSM or write reached the device)'
                      % r.desc)
                if fmt == 'json':
                    j = r.json_or_nothing()
                    res = (j or {}).get('result') or {}
                    check(res.get('submitted') == 0 and res.get('completed') == 0 and
                          res.get('interrupted') is False and
                          ((j or {}).get('error') or {}).get('errno') == EINVAL and
                          j['error'].get('exit_code') == r.rc,
                          '%s: result: 0 submitted, 0 completed, not interrupted, the error: %r'
                          % (r.desc, res))
                else:
                    check(r.out == '' or r.out.endswith('\n'),
                          '%s: text output ends with a whole line' % r.desc)
        # control: the same discard with the handler sends every command
        r = Run(root, ['discard', 'dev/' + NODE[name], '--ranges', '-', '-f', '-o', 'json'],
                name + ', control', stdin=ranges)
        sent = r.io(0x79 if zoned else 0x09)
        check(r.rc == 0 and len(sent) == (3 if zoned else DISC_RANGES),
              '%s: exit 0 and %d commands sent (got %d, %d)'
              % (r.desc, 3 if zoned else DISC_RANGES, r.rc, len(sent)))


def test_healthy(root):
    r = Run(root, ['report', 'dev/' + NODE['healthy'], '-o', 'json'], 'healthy')
    j = r.json_or_nothing() if r.rc == 0 else None
    check(r.rc == 0 and r.err == '' and j is not None and j['nr_zones'] == NZ and j['nr_reported'] == NZ and
          'error' not in j and
          len(r.io(0x7a)) == LAST,
          'control: the same namespace without faults reports %d zones in %d commands'
          % (NZ, REPORT_CMDS))


def test_cap_varies(root):
    """check and map judge capacities over every zone, not just the first chunk."""
    for name in ('cap-varies-first', 'cap-varies-late'):
        r = Run(root, ['check', 'dev/' + NODE[name], '-o', 'json'], name)
        j = r.json_or_nothing()
        check(r.rc == 13 and j is not None and j.get('verdict') == 'capacity-varies' and
              j.get('zone_cap_varies') is True,
              '%s: check -> capacity-varies, exit 13 (got %d, %r)'
              % (name, r.rc, j and j.get('verdict')))
        r = Run(root, ['map', 'dev/' + NODE[name], '--dry-run'], name)
        check(r.rc != 0 and r.out == '' and r.err.count('\n') == 1,
              '%s: map --dry-run refuses, one line (got %d, %r)' % (name, r.rc, r.err))


def probe_reports():
    """Zone Management Receives a report sends before its own (the probe's)."""
    with tempfile.TemporaryDirectory() as root:
        znptest.setup(root, MKFAKE, 'path=dev/ng0n1 ctrl=nvme0 %s\n' % BASE)
        r = Run(root, ['report', 'dev/ng0n1', '-o', 'json'], 'measure')
        n = len(r.io(0x7a)) - REPORT_CMDS
        check(r.rc == 0 and n in (0, 1), 'a healthy report takes %d commands (+%d for the probe)'
              % (REPORT_CMDS, n))
        return max(n, 0)


def test_list(root):
    """list: every ZNS namespace appears, those that fail to probe with their
    error (a failing Identify must not hide one), the JSON complete."""
    zoned = {NODE[n]: n for n in NODE if not n.startswith('dsc-')}
    r = Run(root, ['list', '-o', 'json'], 'all')
    j = r.json_or_nothing()
    rows = {e['ng']: e for e in (j or {}).get('namespaces', [])}
    # the namespaces whose probe the configuration makes fail (their Identify
    # or first report), as the JSON rows carry them
    probe_failed = sorted(ng for ng, e in rows.items() if 'error' in e)
    check(r.rc == 1 and probe_failed and set(rows) == set(zoned) and j.get('nr_namespaces') == len(zoned),
          'list -o json: all %d ZNS namespaces listed, exit 1 as %d could not be probed '
          '(got %d, exit %d, missing %s)' % (len(zoned), len(probe_failed), len(rows), r.rc,
                                            sorted(set(zoned) - set(rows))))
    list_errors(r, probe_failed)
    bad = [ng for ng, e in rows.items()
           if not (e.get('nr_zones') == NZ or
                   (isinstance(e.get('error'), dict) and e['error'].get('device') == ng and
                    e['error'].get('message') and
                    (e['error'].get('errno') is None) != (e['error'].get('nvme_status') is None)))]
    check(not bad, 'list -o json: each row has its geometry or an "error" object naming it: %s' % bad)
    for ng, name in zoned.items():
        if name.startswith('probe') and ng in rows:
            check(isinstance(rows[ng].get('error'), dict) and 'exit_code' not in rows[ng]['error'],
                  'list -o json: [%s] %s carries its error: %r' % (name, ng, rows[ng].get('error')))
    check(not r.io(0x79) and not r.io(0x09), 'list: nothing but reads sent')
    r = Run(root, ['list'], 'all')
    check(r.rc == 1 and len(r.out.splitlines()) == len(zoned) + 1,
          'list: a header and %d rows, exit 1 (got %d lines, exit %d)'
          % (len(zoned), len(r.out.splitlines()), r.rc))
    list_errors(r, probe_failed)


def list_errors(r, probe_failed):
    """One line on stderr for each namespace list could not probe, naming its node."""
    named = sorted(re.sub(r'^.*/', '', l.split(': ')[1]) for l in r.err.splitlines()
                   if l.startswith(PROG + ': ') and ': cannot probe the namespace: ' in l)
    check(named == probe_failed and len(r.err.splitlines()) == len(probe_failed),
          'list: one stderr line per namespace not probed, naming its node: %s (stderr %r)'
          % (probe_failed, [l for l in r.err.splitlines() if 'cannot probe the namespace' not in l]))


ERROR_KEYS = {'errno', 'errno_name', 'nvme_status', 'nvme_status_name', 'device', 'message',
              'exit_code'}


def json_failure(r, when):
    """A failed command's -o json: one object whose top-level "error" has the
    schema of nvme-zns-npo2(1) "Errors in JSON", exit_code the exit status."""
    j = r.json_or_nothing()
    e = (j or {}).get('error')
    good = (r.rc != 0 and isinstance(e, dict) and set(e) == ERROR_KEYS and
            e['exit_code'] == r.rc and isinstance(e['message'], str) and e['message'] and
            (e['errno'] is None) == (e['errno_name'] is None) and
            (e['nvme_status'] is None) == (e['nvme_status_name'] is None) and
            (e['errno'] is None or e['nvme_status'] is None) and
            all(isinstance(e[k], int) for k in ('errno', 'nvme_status') if e[k] is not None))
    check(good, '%s: %s: top-level "error" with the schema, exit_code %d: %r'
          % (r.desc, when, r.rc, e))
    return j


def test_json_failures(root):
    """Every command of the table that takes -o: a failure before its output
    (a device or mapping that does not exist, else an extra argument), and,
    where the device can stop one midway, a failure during it."""
    table = json.loads(subprocess.run([BIN, '__table'], capture_output=True, text=True,
                                      check=True).stdout)
    fmt = [c for c in table['commands'] if not c['hidden'] and 'output-format' in c['options']]
    check(len(fmt) >= 10, 'json failures: %d commands take -o' % len(fmt))
    for c in fmt:
        if 'device' in c['args'] or 'mapping' in c['args']:
            # a command line that is otherwise complete: the device is what fails
            args = [c['name'], 'dev/ng999n1'] + (['-a', '-f'] if 'all' in c['options'] else [])
        else:
            args = [c['name'], 'extra-argument']
        json_failure(Run(root, args + ['-o', 'json'], 'json-before'), 'before output')
    # during output: the document begun, the failure at its end
    ranges = ''.join('%d %d\n' % (i * 2 << 20, 1 << 20) for i in range(DISC_RANGES))
    for args, stdin in (
            (['report', 'dev/' + NODE['rep-fail-middle']], None),
            (['reset', 'dev/' + NODE['rst-fail-middle'], '-s', '0', '-c', str(RESET_ZONES),
              '-f'], None),
            (['discard', 'dev/' + NODE['dsc-internal-middle'], '--ranges', '-', '-f'], ranges),
            (['list'], None)):
        r = Run(root, args + ['-o', 'json'], 'json-during', stdin=stdin)
        j = json_failure(r, 'during output')
        check(j is not None and len(j) > 1,
              '%s: the document kept beside its error: %s' % (r.desc, sorted(j or {})))
        if j and 'result' in j and isinstance(j['result'], dict):
            res = j['result']
            check('error' not in res and
                  all(len(repr(res[k]).split('.')[-1]) <= n
                      for k, n in (('seconds', 6), ('iops', 1)) if isinstance(res[k], float)),
                  '%s: discard: the error top-level only, seconds/iops rounded: %r'
                  % (r.desc, res))


def main():
    global FIRST, MIDDLE, LAST, REPORT_FAULTS
    p = probe_reports()
    FIRST, MIDDLE, LAST = 1 + p, 2 + p, REPORT_CMDS + p
    REPORT_FAULTS = report_faults()
    with tempfile.TemporaryDirectory() as root:
        znptest.setup(root, MKFAKE, config())
        test_healthy(root)
        test_cap_varies(root)
        test_list(root)
        for name in REPORT_FAULTS:
            test_report(root, name)
        test_report_raw(root)
        for name, (nth, _) in RESET_FAULTS.items():
            test_reset(root, name, nth)
        test_select_all(root)
        for name, (nth, _) in DISC_FAULTS.items():
            test_discard(root, name, nth)
        for name, (nth, _) in ZDISC_FAULTS.items():
            test_discard(root, name, nth, zoned=True)
        test_discard_no_handler(root)
        test_json_failures(root)
    return znptest.summary()


if __name__ == '__main__':
    sys.exit(main())

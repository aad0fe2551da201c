#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Adversarial command lines, table-driven, against the real binary.

Usage: run.py BINARY LIBZNPEMU MKFAKE

Every command of the table (`nvme-zns-npo2 __table`) gets: no argument, an
empty string, a directory, a symlink loop, paths with spaces, a path through
a regular file, an over-long path, /dev/zero, /dev/null, /dev/full (character
devices that are not NVMe), an NVMe controller node (emulated, with a fake
sysfs) instead of a namespace; then numbers with suffixes, overflow and
garbage for every numeric option, and requests that overflow the device.
Each case must: not crash (exit status < 128, no sanitizer/valgrind exit),
print nothing on stdout, print exactly one line on stderr
"nvme-zns-npo2: SUBJECT: PROBLEM", exit with the documented code (exit.h),
and send nothing that changes the emulated namespace (command trace).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import znptest  # noqa: E402
from znptest import not_ok, ok  # noqa: E402

BIN, EMU, MKFAKE = (os.path.abspath(a) for a in sys.argv[1:4])
PROG = 'nvme-zns-npo2'
USAGE, FAILED, UNSUITABLE, REFUSED, UNSUPPORTED = 2, 1, 3, 4, 5
ZS, NZ = 24576, 10

CONFIG = """\
path=dev/nvme0 kind=ctrl ctrl=nvme0
path=dev/ng0n1 kind=ng ctrl=nvme0 nsid=1 lba=4096 zsze=%d zones=%d disk=hidden
path=dev/ng0n2 kind=ng ctrl=nvme0 nsid=2 csi=0 lba=512 nlbas=1048576 disk=hidden
""" % (ZS, NZ)


class Env:
    def __init__(self, root):
        self.root = root
        self.trace = os.path.join(root, 'trace')
        self.env = znptest.emu_env(EMU, root, self.trace)

    def run(self, args):
        if os.path.exists(self.trace):
            os.unlink(self.trace)
        p = subprocess.run([BIN] + args, cwd=self.root, env=self.env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=120)
        writes = 0
        if os.path.exists(self.trace):
            with open(self.trace) as f:
                for line in f:
                    t = line.split()
                    if t[1] == 'io' and t[2] not in ('opc=0x7a', 'opc=0x02'):
                        writes += 1     # anything but a report or a read
                    if t[1] == 'blk' and t[2] != 'op=1':
                        writes += 1
        return p.returncode, p.stdout.decode(errors='replace'), \
            p.stderr.decode(errors='replace'), writes


def expect(env, args, codes, subject, problem):
    """codes: an int or a set; problem: regex on the text after the subject."""
    if isinstance(codes, int):
        codes = {codes}
    rc, out, err, writes = env.run(args)
    line = err.rstrip('\n')
    prefix = '%s: %s: ' % (PROG, subject)
    desc = '%s -> exit %s' % (' '.join(repr(a) if (not a or ' ' in a) else a for a in args),
                              '/'.join(map(str, sorted(codes))))
    why = None
    if rc < 0 or rc >= 126:
        why = 'crashed or killed (exit %d)' % rc
    elif rc not in codes:
        why = 'exit %d' % rc
    elif out:
        why = 'stdout: %r' % out[:200]
    elif not err.endswith('\n') or '\n' in line:
        why = 'stderr is not one line'
    elif any(ord(ch) < 0x20 or ord(ch) == 0x7f for ch in line):
        why = 'control characters reach the terminal'
    elif not line.startswith(prefix):
        why = 'does not start with %r' % prefix
    elif not re.search(problem, line[len(prefix):]):
        why = 'problem does not match /%s/' % problem
    elif writes:
        why = '%d commands that change the device were sent' % writes
    if why:
        not_ok('%s: %s: %r' % (desc, why, err[:300]))
    else:
        ok('%s (%s)' % (desc, line))


def commands(env):
    rc, out, _, _ = env.run(['__table'])
    t = json.loads(out)
    return [c for c in t['commands'] if not c['hidden']]


# extra options that get each command as far as opening its device
PROCEED = {
    'open': ['-s', '0'], 'close': ['-s', '0'], 'finish': ['-s', '0', '-f'],
    'reset': ['-s', '0', '-f'], 'offline': ['-s', '0', '-f'], 'discard': ['-f'],
    'map': ['--dry-run'], 'unmap': ['--dry-run'],
    'export': ['--nqn', 'nqn.2026-12.org.zns-npo2:adversarial', '--allow-any-host',
               '--traddr', '127.0.0.1'],
}
DEVICE_CMDS = ('report', 'check', 'open', 'close', 'finish', 'reset', 'offline', 'discard',
               'map', 'zonemap')
NAME_OR_DEVICE = ('unmap', 'status')   # a mapping name is tried when it is not a path


def test_device_args(env, cmds, paths):
    for c in cmds:
        name = c['name']
        extra = PROCEED.get(name, [])
        # no argument
        if c['min_args'] >= 1:
            expect(env, [name] + extra, USAGE, name, r'^missing argument <')
        elif name == 'map':
            expect(env, [name], USAGE, name, r'^missing argument <device>')
        if c['max_args'] == 0:
            expect(env, [name, 'extra'], USAGE, name, r"^unexpected argument 'extra'$")
            continue
        # an empty string
        expect(env, [name, ''] + extra, USAGE, name, r'^empty argument ')
        if name == 'help':
            for a in ('frobnicate', paths['dir'], 'no such command'):
                expect(env, [name, a], USAGE, a, r'^unknown command')
            continue
        is_disc = name == 'discard'
        notdev = r'^is not a block device or NVMe namespace$' if is_disc else \
            r'^not a block or character device$'
        missing = r'^does not exist$' if is_disc else r'^no such device$'
        table = [
            (paths['dir'], UNSUITABLE, notdev),
            (paths['file'], UNSUITABLE, notdev),
            ('/dev/zero', UNSUITABLE, r'^not an NVMe namespace or zoned block device$'),
            ('/dev/null', UNSUITABLE, r'^not an NVMe namespace or zoned block device$'),
            ('/dev/full', UNSUITABLE, r'^not an NVMe namespace or zoned block device$'),
            ('dev/nvme0', UNSUITABLE, r'^is an NVMe controller node; use a namespace node'),
        ]
        if name in DEVICE_CMDS:
            table += [
                (paths['loop'], UNSUITABLE, r'^too many levels of symbolic links$'),
                (paths['spaces'], UNSUITABLE, missing),
                (paths['notdir'], UNSUITABLE, missing),
                (paths['long'], UNSUITABLE, r'^(path too long|File name too long)$'),
                ('/dev/znp-no-such-device', UNSUITABLE, missing),
            ]
        else:
            # not a path: taken as a mapping name; none exists (or no device-mapper)
            for p in (paths['loop'], paths['spaces'], paths['notdir'],
                      '/dev/znp-no-such-device'):
                table.append((p, {UNSUITABLE, UNSUPPORTED},
                              r'(no such mapping|not mapped|device-mapper is not available|'
                              r'no such device|invalid mapping name|not a valid)'))
        for dev, code, prob in table:
            expect(env, [name, dev] + extra, code, dev, prob)


NUM_OPTS = {
    # option: (commands using it, an argument list making the rest valid)
    '--start-lba': ('report', []),
    '--count': ('report', []),
    '--namespace-id': ('check', []),
    '--queue-depth': ('reset', ['-s', '0', '-f']),
    '--offset': ('discard', ['-f']),
    '--length': ('discard', ['-f']),
}
BAD_NUMBERS = [
    ('', r"empty"),
    ('-1', r'negative'),
    ('-0', r'negative'),
    ('+5', r'not a number'),
    (' 5', r'not a number'),
    ('5 ', r'trailing garbage'),
    ('0x', r'not a number'),
    ('1.5', r'trailing garbage'),
    ('1e3', r'unknown suffix'),
    ('12x', r'unknown suffix'),
    ('1KiBB', r'unknown suffix'),
    ('1 K', r'trailing garbage'),
    ('nan', r'not a number'),
    ('\u0661', r'not a number'),                      # ARABIC-INDIC DIGIT ONE
    ('18446744073709551616', r'out of range'),       # 2^64
    ('99999999999999999999999999', r'out of range'),
    ('0x10000000000000000', r'out of range'),
    ('16E', r'out of range'),
    ('16Ei', r'out of range'),
    ('18446744073709551615K', r'out of range'),
    ('19EB', r'out of range'),
]
U32_OPTS = ('--namespace-id', '--queue-depth')


def test_numbers(env):
    dev = 'dev/ng0n1'
    for opt, (cmd, rest) in NUM_OPTS.items():
        for val, prob in BAD_NUMBERS:
            expect(env, [cmd, dev, opt, val] + rest, USAGE, dev,
                   r"^invalid %s '%s': .*%s" % (re.escape(opt), re.escape(val), prob))
            expect(env, [cmd, dev, '%s=%s' % (opt, val)] + rest, USAGE, dev,
                   r"^invalid %s '%s': .*%s" % (re.escape(opt), re.escape(val), prob))
        if opt in U32_OPTS:
            for val in ('4294967296', '4Gi', '0x100000000', '5GB'):
                expect(env, [cmd, dev, opt, val] + rest, USAGE, dev,
                       r"^invalid %s '%s': out of range" % (re.escape(opt), val))
    # suffixes that parse, then meet the device: past its end, nothing sent
    for val in ('15E', '16Pi', '0xffffffffffffffff', '18446744073709551615', '1EB',
                '%d' % (ZS * NZ)):
        expect(env, ['report', dev, '-s', val], USAGE, dev, r'past the end')
        expect(env, ['reset', dev, '-s', val, '-f'], USAGE, dev, r'past|not a zone start')
    for val in ('96Ki', '0x6000', '24Ki'):
        rc, out, err, writes = env.run(['report', dev, '-s', val, '-c', '1', '-o', 'json'])
        try:
            slba = json.loads(out)['zone_list'][0]['slba'] if rc == 0 else None
        except (ValueError, KeyError, IndexError):
            slba = None
        want = {'96Ki': 4 * ZS, '0x6000': ZS, '24Ki': ZS}[val]
        (ok if slba == want and not writes else not_ok)(
            'report -s %s: the suffix multiplies (LBA %s, want %d)' % (val, slba, want))
    # counts and ranges that overflow the device or 64 bits
    for args, prob in [
            (['open', dev, '-s', '0', '-c', '18446744073709551615'], r'past the last zone|count'),
            (['reset', dev, '-s', str(9 * ZS), '-c', '2', '-f'], r'past the last zone|count'),
            (['finish', dev, '-s', '1', '-f'], r'not a zone start'),
            (['reset', dev, '-s', str(ZS - 1), '-f'], r'not a zone start'),
            (['reset', dev, '-s', '0', '-q', '0', '-f'], r'queue-depth'),
            (['reset', dev, '-s', '0', '-q', '4097', '-f'], r'queue-depth'),
            (['discard', 'dev/ng0n2', '--offset', '18446744073709551615', '-f'], r'past the end|aligned|multiple'),
            (['discard', 'dev/ng0n2', '--offset', '0', '--length', '18446744073709551615', '-f'], r'past the end|multiple'),
            (['discard', 'dev/ng0n2', '--offset', '0x8000000000000000', '--lba', '-f'], r'past the end'),
            (['discard', 'dev/ng0n2', '--offset', '1', '--length', '512', '-f'], r'multiple of the logical block size'),
            (['discard', 'dev/ng0n2', '--offset', '0', '--length', '0', '-f'], r'length is zero|at least'),
            (['discard', dev, '--offset', '0', '--length', '4096', '-f'], r'part of a zone'),
            (['report', dev, '-c', '0'], r'at least 1'),
            (['report', dev, '-S', 'bogus'], r'unknown zone state'),
            (['report', dev, '-S', '8'], r'unknown zone state'),
            (['report', dev, '-S', 'x' * 5000], r'unknown zone state'),
            (['report', dev, '-o', 'json\n'], r'output format'),
    ]:
        expect(env, args, USAGE, args[1], prob)
    # a wrong namespace ID is an unsuitable device, nothing sent
    expect(env, ['reset', dev, '-n', '2', '-s', '0', '-f'], UNSUITABLE, dev, r'is namespace 1, not 2')
    expect(env, ['report', dev, '-n', '0'], UNSUITABLE, dev, r'is namespace 1, not 0')


def test_option_garbage(env):
    dev = 'dev/ng0n1'
    for args, subject, prob in [
            (['report', dev, '--'], dev, None),
            (['report', '--', '-s'], '-s', r'no such device'),
            (['report', dev, '-' * 3000], dev, r'unknown option'),
            (['report', dev, '--start-lba'], dev, r'requires an argument'),
            (['report', dev, '--start'], dev, None),      # getopt abbreviation: -s needs an arg
            (['report', dev, '--s=1', '--st=2'], dev, None),
            (['reset', dev, '--force=1', '-s', '0'], dev, r'takes no argument'),
            (['report', dev, 'a', 'b', 'c', 'd', 'e', 'f'], dev, r"unexpected argument 'a'"),
            (['report', dev, '\x1b[31mred'], dev, r'unexpected argument'),
    ]:
        if prob is None:
            rc, out, err, writes = env.run(args)
            good = rc < 126 and not writes and (rc == 0 or (out == '' and err.count('\n') == 1))
            (ok if good else not_ok)('%s: no crash, one line or success (exit %d, %r)'
                                     % (' '.join(args), rc, err[:200]))
        else:
            expect(env, args, USAGE if 'no such' not in prob else UNSUITABLE, subject, prob)


def test_range_numbers(env):
    """A range file and --offset/--length read numbers alike: "010" is ten
    (never octal), "1kB" is 1000; the dry-run plan shows the LBAs."""
    dev = 'dev/ng0n2'
    rf = os.path.join(env.root, 'ranges')
    for text, want in (('010 1kB\n', [(10, 1000)]), ('0x10,1Ki\n2048 1K # c\n', [(16, 1024), (2048, 1024)]),
                       ('0 1\n', [(0, 1)])):
        with open(rf, 'w') as f:
            f.write(text)
        plans = []
        for args in (['--ranges', rf],) + tuple(
                ['--offset', a, '--length', b] for a, b in
                [l.split('#')[0].replace(',', ' ').split() for l in text.splitlines()][:1]):
            rc, out, err, writes = env.run(['discard', dev, '--lba', '--dry-run', '-o', 'json'] + args)
            try:
                j = json.loads(out)
                cmds = [(c['start'], c['length']) for c in j['plan']]
            except (ValueError, KeyError, TypeError) as e:
                cmds = 'unparsable: %s %r %r' % (e, out[:300], err)
            plans.append(cmds)
            (ok if rc == 0 and not writes and cmds == (want if args[0] == '--ranges' else want[:1])
             else not_ok)('discard --lba --dry-run %s (%r): plan %s, want %s'
                          % (args[0], text, cmds, want))


def main():
    with tempfile.TemporaryDirectory() as root:
        znptest.setup(root, MKFAKE, CONFIG)
        d = os.path.join(root, 'a dir with spaces')
        os.mkdir(d)
        with open(os.path.join(root, 'a file with spaces'), 'w') as f:
            f.write('not a device\n')
        os.symlink('loop-b', os.path.join(root, 'loop-a'))
        os.symlink('loop-a', os.path.join(root, 'loop-b'))
        paths = {
            'dir': d,
            'file': os.path.join(root, 'a file with spaces'),
            'loop': os.path.join(root, 'loop-a'),
            'spaces': os.path.join(root, 'no such device here'),
            'notdir': os.path.join(root, 'a file with spaces', 'ng0n1'),
            'long': os.path.join(root, 'x' * 300),
        }
        env = Env(root)
        cmds = commands(env)
        test_device_args(env, cmds, paths)
        test_numbers(env)
        test_option_garbage(env)
        test_range_numbers(env)
        with open(paths['file']) as f:
            (ok if f.read() == 'not a device\n' else not_ok)('the regular file is untouched')
    return znptest.summary()


if __name__ == '__main__':
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared harness of the CLI tests that run the real binary against
namespaces emulated by the LD_PRELOAD emulator (tests/emu): TAP-style
counters, golden files, the environment that points the binary at the
emulator and its fake sysfs/dev trees, the emulator's command trace, one
run of the binary.

Scripts add this directory to sys.path from their own location:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    '..', 'lib'))
"""
import os
import subprocess
import sys

passed = failed = 0


def ok(desc):
    global passed
    passed += 1
    print('ok - ' + desc)


def not_ok(desc):
    global failed
    failed += 1
    print('not ok - ' + desc)


def check(cond, desc):
    (ok if cond else not_ok)(desc)
    return cond


def summary():
    """Print the counts; Return: the exit status (nothing passed is a failure)."""
    print('# %d passed, %d failed' % (passed, failed))
    return 1 if failed or not passed else 0


def golden(directory, name, text):
    """Check text against the golden file directory/name (a mismatch prints
    text as comments); with ZNP_UPDATE_GOLDEN set, rewrite the file instead."""
    path = os.path.join(directory, name)
    if os.environ.get('ZNP_UPDATE_GOLDEN'):
        with open(path, 'w') as f:
            f.write(text)
        return
    try:
        with open(path) as f:
            want = f.read()
    except OSError as e:
        not_ok('golden %s: %s' % (name, e))
        return
    if not check(want == text, 'golden %s' % name):
        sys.stdout.write(''.join('# ' + l + '\n' for l in text.splitlines()))


def asan_env(extra=''):
    """ASAN_OPTIONS for a sanitizer build (ignored otherwise): the emulator is
    preloaded before the ASan runtime; extra options appended."""
    opts = [o for o in (os.environ.get('ASAN_OPTIONS', ''), 'verify_asan_link_order=0', extra)
            if o]
    return ':'.join(opts)


def emu_env(emu, root, trace=None, asan_extra=''):
    """Environment of a run under the emulator library emu, configured by
    root/emu.conf, with the fake trees root/sys and root/dev (mkfake.py);
    the command trace goes to trace when given."""
    env = dict(os.environ, LD_PRELOAD=emu, ZNP_EMU_CONFIG=os.path.join(root, 'emu.conf'),
               ZNP_SYSFS_ROOT=os.path.join(root, 'sys'), ZNP_DEV_ROOT=os.path.join(root, 'dev'),
               LC_ALL='C', ASAN_OPTIONS=asan_env(asan_extra))
    if trace is not None:
        env['ZNP_EMU_TRACE'] = trace
    return env


def setup(root, mkfake, config):
    """Write root/emu.conf and build the fake sysfs/dev trees from it."""
    with open(os.path.join(root, 'emu.conf'), 'w') as f:
        f.write(config)
    subprocess.run([sys.executable, mkfake, root, os.path.join(root, 'emu.conf')], check=True)


def read_trace(trace):
    """The emulator's trace: one dict a command, 'dev', 'cls' and its fields."""
    cmds = []
    if os.path.exists(trace):
        with open(trace) as f:
            for line in f:
                t = line.split()
                kv = dict(x.split('=', 1) for x in t[2:])
                cmds.append({'dev': t[0], 'cls': t[1], **{k: int(v, 0) for k, v in kv.items()}})
    return cmds


class Run:
    """One run of binary under the emulator in root (env: more variables):
    rc, out, err (text) and cmds, the commands that reached the emulated
    device."""
    timeout = 120

    def __init__(self, binary, emu, root, args, stdin=None, env=None):
        self.args = args
        trace = os.path.join(root, 'trace')
        if os.path.exists(trace):
            os.unlink(trace)
        self.execute([binary] + args, root, dict(emu_env(emu, root, trace), **(env or {})), stdin)
        self.cmds = read_trace(trace)

    def execute(self, argv, root, env, stdin):
        p = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True,
                           input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                           timeout=self.timeout)
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr

    def io(self, opc):
        """The I/O commands of opcode opc that reached the device."""
        return [c for c in self.cmds if c['cls'] == 'io' and c['opc'] == opc]

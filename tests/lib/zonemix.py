# SPDX-License-Identifier: GPL-2.0-or-later
"""A known mixed zone state on an emulated namespace (tests/emu), reached
with real zone operations and writes: the zonemap tests and the script that
draws Documentation/zonemap.png both use it.

The namespace: 50 zones of 24576 LBAs (4 KiB), capacity 20480: npo2, with a
visible block node under a fake dm-po2zone mapping (sysfs holders), so the
picture can show the padding (zones padded to 32768 LBAs). Read-only and
offline zones cannot be made by a host, so the configuration presets them
(zone 5 read-only is then taken offline by the tool).
"""
import ctypes
import fcntl
import os
import struct
import subprocess
import sys

import znptest

ZSZE, ZCAP, NZONES, LBA = 24576, 20480, 50, 4096
PO2 = 32768
MAPPING = 'po2-ZMIX0001-n1'

CONFIG = ('path=dev/ng0n1 kind=ng ctrl=nvme0 nsid=1 lba=%d zsze=%d zcap=%d zones=%d mdts=2M '
          'serial=ZMIX0001 zone=5:ro zone=6:ro zone=9:offline zone=45:ro zone=46:offline '
          'state=mix.state\n'
          'path=dev/nvme0n1 kind=nvme twin=ng0n1\n' % (LBA, ZSZE, ZCAP, NZONES))

# What the operations below leave: zone -> (state, LBAs written). Every zone
# not listed is empty.
EXPECT = {
    1: ('implicit-open', 100), 2: ('closed', 10240), 3: ('explicit-open', 5120),
    4: ('full', ZCAP), 5: ('offline', 0), 6: ('read-only', ZCAP), 7: ('full', ZCAP),
    9: ('offline', 0), 10: ('full', ZCAP), 11: ('full', ZCAP),
    13: ('implicit-open', 20000), 20: ('closed', 15360), 21: ('explicit-open', 0),
    **{z: ('full', ZCAP) for z in range(30, 40)},
    40: ('closed', 2048), 45: ('read-only', ZCAP), 46: ('offline', 0),
}


def expect(zone):
    return EXPECT.get(zone, ('empty', 0))


def z(n):
    return hex(n * ZSZE)


# (tool arguments) or ('write', zone, LBAs), in order
OPS = [
    ('write', 1, 100),
    ('write', 2, 10240), ['close', '-s', z(2)],
    ['open', '-s', z(3)], ('write', 3, 5120),
    ['finish', '-s', z(4), '-f'],
    ('write', 7, ZCAP),
    ['offline', '-s', z(5), '-f'],
    ['finish', '-s', z(10), '-c', '2', '-f'],
    ('write', 13, 20000),
    ('write', 20, 15360), ['close', '-s', z(20)],
    ['open', '-s', z(21)],
    ['finish', '-s', z(30), '-c', '10', '-f'],
    ('write', 40, 2048), ['close', '-s', z(40)],
]

NVME_IOCTL_IO_CMD = 0xC0484E43  # _IOWR('N', 0x43, struct nvme_passthru_cmd)


def nvme_write(dev, slba, nlb, lba_size, nsid=1, max_lbas=512):
    """Write nlb zeroed LBAs at slba through NVMe passthrough (this process
    must run under the emulator)."""
    fd = os.open(dev, os.O_RDWR)
    try:
        while nlb:
            n = min(nlb, max_lbas)
            buf = ctypes.create_string_buffer(n * lba_size)
            cmd = bytearray(struct.pack('<BBHIIIQQII6III', 0x01, 0, 0, nsid, 0, 0, 0,
                                        ctypes.addressof(buf), 0, n * lba_size,
                                        slba & 0xffffffff, slba >> 32, n - 1, 0, 0, 0, 0, 0))
            status = fcntl.ioctl(fd, NVME_IOCTL_IO_CMD, cmd, True)
            if status:
                raise OSError('NVMe status 0x%x' % status)
            slba += n
            nlb -= n
    finally:
        os.close(fd)


def setup(root, mkfake, extra=''):
    """Configure the namespace (plus @extra config lines)."""
    znptest.setup(root, mkfake, CONFIG + extra)


def add_mapping(root):
    """Put the namespace under a fake dm-po2zone mapping (sysfs holders).
    Zone commands refuse a namespace whose block device is held, so this
    comes after drive()."""
    holder = os.path.join(root, 'sys', 'block', 'nvme0n1', 'holders', 'dm-0', 'dm')
    os.makedirs(holder)
    with open(os.path.join(holder, 'name'), 'w') as f:
        f.write(MAPPING + '\n')
    with open(os.path.join(holder, 'uuid'), 'w') as f:
        f.write('ZNPO2-sn:ZMIX0001:nsid:1\n')


def drive(binary, emu, root):
    """Run OPS, then add the fake mapping; Return: list of failures (empty
    when all went through)."""
    errors = []
    env = znptest.emu_env(emu, root)
    for op in OPS:
        if isinstance(op, tuple):
            _, zone, nlb = op
            argv = [sys.executable, os.path.abspath(__file__), 'write', 'dev/ng0n1',
                    str(zone * ZSZE), str(nlb), str(LBA)]
        else:
            argv = [binary] + op[:1] + ['dev/ng0n1'] + op[1:]
        p = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
        if p.returncode:
            errors.append('%s: exit %d: %s' % (' '.join(argv[1:] if argv[0] == sys.executable
                                                        else argv), p.returncode, p.stderr))
    add_mapping(root)
    return errors


if __name__ == '__main__' and sys.argv[1:2] == ['write']:
    dev, slba, nlb, lba_size = sys.argv[2], *map(int, sys.argv[3:6])
    try:
        nvme_write(dev, slba, nlb, lba_size)
    except OSError as e:
        sys.exit('write %s at %d: %s' % (dev, slba, e))

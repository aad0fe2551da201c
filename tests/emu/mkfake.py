#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Build a fake sysfs + /dev tree for the devices of a znpemu config file.

Usage: mkfake.py ROOT [CONFIG]     (CONFIG defaults to ROOT/emu.conf)

Creates ROOT/sys (laid out like Linux 6.12 sysfs for NVMe controllers,
generic char nodes, namespace disks and other zoned block devices) and a
placeholder file for every device path of the config (normally under
ROOT/dev). Point the tool at it with ZNP_SYSFS_ROOT=ROOT/sys and
ZNP_DEV_ROOT=ROOT/dev, and run it with LD_PRELOAD=libznpemu.so and
ZNP_EMU_CONFIG=CONFIG. See README.md.
"""
import os
import re
import sys

SUFFIX = {'k': 10, 'm': 20, 'g': 30, 't': 40}


def num(v):
    if v[-1:].lower() in SUFFIX:
        return int(v[:-1], 0) << SUFFIX[v[-1].lower()]
    return int(v, 0)


def parse(conf):
    devs = []
    cdir = os.path.dirname(os.path.abspath(conf))
    with open(conf) as f:
        for idx, line in enumerate(f):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            kv = {}
            for tok in line.split():
                k, _, v = tok.partition('=')
                kv.setdefault(k, v)
            d = {'kind': kv.get('kind', 'ng'), 'idx': len(devs), 'kv': kv}
            path = kv['path']
            d['path'] = path if path.startswith('/') else os.path.join(cdir, path)
            d['name'] = os.path.basename(d['path'])
            devs.append(d)
    byname = {d['name']: d for d in devs}
    for d in devs:
        kv = d['kv']
        twin = byname.get(kv.get('twin', ''))
        src = twin['kv'] if twin else kv
        m = re.match(r'(?:ng|nvme)(\d+)', d['name'])
        d['ctrl'] = kv.get('ctrl') or src.get('ctrl') or ('nvme%s' % m.group(1) if m else 'nvme0')
        d['major'] = int(kv.get('major', {'ng': 242, 'ctrl': 241, 'nvme': 259}.get(d['kind'], 254)))
        d['minor'] = int(kv.get('minor', d['idx']))
        d['nsid'] = int(src.get('nsid', '1'), 0)
        d['csi'] = int(src.get('csi', '2'), 0)
        d['lba'] = num(src.get('lba', '4096'))
        zsze = num(src.get('zsze', '0'))
        nlbas = num(src['nlbas']) if 'nlbas' in src else num(src.get('zones', '0')) * zsze
        d['zsze'], d['nlbas'] = zsze, nlbas
        d['nzones'] = -(-nlbas // zsze) if zsze else 0
        mdts = num(src.get('mdts', '512K'))
        d['max_xfer'] = num(src.get('max_xfer', '0')) or mdts or 4 << 20
        d['max_open'] = num(src.get('max_open', '0'))
        d['max_active'] = num(src.get('max_active', '0'))
        d['serial'] = src.get('serial', 'ZNPEMU%04d' % (twin or d)['idx'])
        d['model'] = src.get('model', 'znpemu ZNS emulated namespace')
        d['fw'] = src.get('firmware', '1.0')
        d['twin'] = twin
        d['disk'] = kv.get('disk', '')
    return devs


class Tree:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.sys = os.path.join(self.root, 'sys')

    def p(self, rel):
        return os.path.join(self.sys, rel)

    def write(self, rel, val):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write('%s\n' % val)

    def link(self, rel, target_rel):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(os.path.relpath(self.p(target_rel), os.path.dirname(path)), path)

    def device(self, rel, name, cls, major=None, minor=None, parent=None):
        """A device dir with uevent, subsystem link, dev attr and class link."""
        os.makedirs(self.p(rel), exist_ok=True)
        uevent = 'DEVNAME=%s\n' % name
        if major is not None:
            self.write(rel + '/dev', '%d:%d' % (major, minor))
            uevent = 'MAJOR=%d\nMINOR=%d\n' % (major, minor) + uevent
            kind = 'block' if cls == 'block' else 'char'
            self.link('dev/%s/%d:%d' % (kind, major, minor), rel)
        self.write(rel + '/uevent', uevent.rstrip('\n'))
        self.link(rel + '/subsystem', 'class/' + cls)
        self.link('class/%s/%s' % (cls, name), rel)
        if cls == 'block':
            self.link('block/' + name, rel)
            # every disk has them (empty: nothing stacked on it)
            os.makedirs(self.p(rel + '/holders'), exist_ok=True)
            os.makedirs(self.p(rel + '/slaves'), exist_ok=True)
        if parent:
            self.link(rel + '/device', parent)


def ctrl_dir(tree, ctrl, d, done):
    inst = int(ctrl[4:]) if ctrl[4:].isdigit() else 0
    rel = 'devices/pci0000:00/0000:00:%02x.0/nvme/%s' % (4 + inst, ctrl)
    if ctrl not in done:
        done[ctrl] = rel
        tree.device(rel, ctrl, 'nvme')
        tree.write(rel + '/serial', d['serial'])
        tree.write(rel + '/model', d['model'])
        tree.write(rel + '/firmware_rev', d['fw'])
        tree.write(rel + '/transport', 'pcie')
        tree.write(rel + '/state', 'live')
        tree.write(rel + '/subsysnqn', 'nqn.2019-08.org.qemu:%s' % d['serial'])
    return done[ctrl]


def disk_attrs(tree, rel, d, visible, nvme=True):
    zoned = d['csi'] == 2 and visible
    sect = d['lba'] // 512
    if nvme:
        tree.write(rel + '/nsid', d['nsid'])
    tree.write(rel + '/hidden', 0 if visible else 1)
    tree.write(rel + '/size', d['nlbas'] * sect if visible else 0)
    q = rel + '/queue/'
    tree.write(q + 'logical_block_size', d['lba'])
    tree.write(q + 'physical_block_size', d['lba'])
    tree.write(q + 'max_hw_sectors_kb', d['max_xfer'] // 1024)
    tree.write(q + 'zoned', 'host-managed' if zoned else 'none')
    tree.write(q + 'chunk_sectors', d['zsze'] * sect if zoned else 0)
    tree.write(q + 'nr_zones', d['nzones'] if zoned else 0)
    tree.write(q + 'max_open_zones', d['max_open'] if zoned else 0)
    tree.write(q + 'max_active_zones', d['max_active'] if zoned else 0)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    root = sys.argv[1]
    conf = sys.argv[2] if len(sys.argv) == 3 else os.path.join(root, 'emu.conf')
    devs = parse(conf)
    tree = Tree(root)
    ctrls = {}
    visible_disks = {d['twin']['name'] for d in devs if d['kind'] == 'nvme' and d['twin']}
    for d in devs:
        os.makedirs(os.path.dirname(d['path']), exist_ok=True)
        open(d['path'], 'a').close()
        kind, name = d['kind'], d['name']
        if kind == 'ctrl':
            rel = ctrl_dir(tree, name, d, ctrls)
            tree.write(rel + '/dev', '%d:%d' % (d['major'], d['minor']))
            tree.link('dev/char/%d:%d' % (d['major'], d['minor']), rel)
        elif kind == 'ng':
            crel = ctrl_dir(tree, d['ctrl'], d, ctrls)
            tree.device(crel + '/' + name, name, 'nvme-generic', d['major'], d['minor'], crel)
            m = re.match(r'ng(\d+)n(\d+)$', name)
            if m and name not in visible_disks and d['disk'] != 'none':
                disk = 'nvme%sn%s' % m.groups()
                rel = crel + '/' + disk
                tree.device(rel, disk, 'block', parent=crel)
                disk_attrs(tree, rel, d, False)
        elif kind == 'nvme':
            crel = ctrl_dir(tree, d['ctrl'], d, ctrls)
            rel = crel + '/' + name
            tree.device(rel, name, 'block', d['major'], d['minor'], crel)
            disk_attrs(tree, rel, d, True)
        else:
            rel = 'devices/virtual/block/' + name
            tree.device(rel, name, 'block', d['major'], d['minor'])
            disk_attrs(tree, rel, d, True, nvme=False)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Host-side checks of a 58-vm-plugin run: the JSON that `nvme zns-npo2`
printed in the guest parses and matches what QEMU was configured with.

    check-plugin.py CONSOLE_LOG TRANSCRIPT_OUT [--patched]

--patched: the run booted the patched kernel, which shows npo2 block devices
(of namespaces whose zone capacity equals the zone size).

Writes the `nvme zns-npo2 list -o json` section to TRANSCRIPT_OUT.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from vmcheck import finish, nsconf, ok, sections  # noqa: E402


def main():
    patched = '--patched' in sys.argv[3:]
    log = open(sys.argv[1], errors='replace').read().replace('\r', '')
    secs = sections(log)
    conf = nsconf(secs)
    ok(len(conf) == 5, 'nsconf: the 5 namespaces of the standard preset')
    ng = {}
    for line in secs.get('layout', '').splitlines():
        f = line.split()
        if len(f) == 3:
            ng[f[0].split('/')[-1]] = (int(f[1]), int(f[2]))
    ok(len(ng) == 5, 'layout: ng node of every namespace')

    try:
        lst = json.loads(secs['plugin-list-json'])
    except (KeyError, ValueError) as e:
        ok(False, 'nvme zns-npo2 list -o json parses', e)
        return finish()
    with open(sys.argv[2], 'w') as f:
        f.write(secs['plugin-list-json'].strip() + '\n')
    ok(True, 'nvme zns-npo2 list -o json parses')
    zoned = sorted(k for k, v in conf.items() if v['zoned'])
    seen = []
    for ns in lst.get('namespaces', []):
        key = ng.get(ns.get('ng'))
        if not ok(key in conf, 'list entry %s is a configured namespace' % ns.get('ng')):
            continue
        seen.append(key)
        c = conf[key]
        npo2 = c['zsze_bytes'] & (c['zsze_bytes'] - 1) != 0
        ok(ns['nsid'] == key[1], '%s: nsid %d' % (ns['ng'], key[1]), ns['nsid'])
        ok(ns['lba_size'] == c['lbas'], '%s: lba_size %d' % (ns['ng'], c['lbas']), ns['lba_size'])
        ok(ns['zone_size'] == c['zsze'], '%s: zone_size %d LBAs' % (ns['ng'], c['zsze']),
           ns['zone_size'])
        ok(ns['zone_cap'] == c['zcap'], '%s: zone_cap %d LBAs' % (ns['ng'], c['zcap']),
           ns['zone_cap'])
        ok(ns['nr_zones'] == c['nzones'], '%s: nr_zones %d' % (ns['ng'], c['nzones']),
           ns['nr_zones'])
        ok(ns['zone_size_po2'] == (not npo2), '%s: zone_size_po2 %s' % (ns['ng'], not npo2))
        if patched:
            # the npo2 patches accept npo2 zones only when capacity == size
            want = not npo2 or c['zcap'] == c['zsze']
            ok(ns['block_visible'] == want, '%s: block device %s on the patched kernel' % (
                ns['ng'], 'visible' if want else 'hidden (npo2, capacity < size)'))
        else:
            ok(ns['block_visible'] == (not npo2), '%s: block device %s on the stock kernel' % (
                ns['ng'], 'hidden' if npo2 else 'visible'))
    ok(sorted(seen) == zoned, 'list shows exactly the zoned namespaces', (seen, zoned))
    ok(lst.get('nr_namespaces') == len(zoned), 'nr_namespaces %d' % len(zoned))

    try:
        rep = json.loads(secs['plugin-report-json'])
        key = ng[rep['device'].split('/')[-1]]
        c = conf[key]
        zl = rep['zone_list']
        ok(len(zl) == 2 and rep['nr_reported'] == 2 and rep['nr_zones'] == c['nzones'],
           'report -c 2 gives 2 zones of the namespace\'s %d' % c['nzones'])
        ok([z['slba'] for z in zl] == [0, c['zsze']], 'zone starts 0 and %d (npo2)' % c['zsze'],
           [z['slba'] for z in zl])
        ok(all(z['cap'] == c['zcap'] and z['len'] == c['zsze'] for z in zl),
           'zone cap/len as configured')
    except (KeyError, ValueError) as e:
        ok(False, 'nvme zns-npo2 report -o json parses', e)
    return finish()


if __name__ == '__main__':
    sys.exit(main())

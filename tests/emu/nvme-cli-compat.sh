#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian's unmodified nvme-cli 2.3 against the emulator: what `make bench`
# compares against must see the namespace the config describes.
# Usage: nvme-cli-compat.sh LIBZNPEMU MKFAKE
set -euo pipefail
emu=$(realpath "$1") mkfake=$(realpath "$2")
nvme=$(command -v nvme) || { echo "nvme (nvme-cli) not installed: run make deps"; exit 1; }
dir=$(mktemp -d /tmp/znpemu-cli-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail=0
not_ok() { echo "not ok: $*"; fail=1; }

cat > "$dir/emu.conf" <<EOF
path=dev/ng0n1 nsid=1 zsze=24576 zcap=24000 nlbas=246000 max_open=5 max_active=6 zdes=64 state=st zone=3:ro zone=4:closed:100
EOF
python3 "$mkfake" "$dir"
export LD_PRELOAD=$emu ZNP_EMU_CONFIG=$dir/emu.conf ZNP_EMU_STATS=$dir/stats
dev=$dir/dev/ng0n1

"$nvme" zns report-zones "$dev" -o json > "$dir/r1.json"
"$nvme" zns id-ns "$dev" -o json > "$dir/idns.json"
"$nvme" zns open-zone -s 49152 "$dev" > /dev/null
"$nvme" zns zone-append -s 0 -z 8192 -d /dev/zero "$dev" > "$dir/append.txt"
"$nvme" zns report-zones "$dev" -o json > "$dir/r2.json"
"$nvme" zns report-zones "$dev" -o json -S 4 > "$dir/closed.json"
grep -q "LBA 0" "$dir/append.txt" || not_ok "zone append result: $(cat "$dir/append.txt")"
"$nvme" zns finish-zone -s 24576 "$dev" > /dev/null
if "$nvme" zns reset-zone -s 73728 "$dev" > "$dir/ro.txt" 2>&1 && ! grep -q "Invalid Zone State Transition" "$dir/ro.txt"; then
	not_ok "reset of a read-only zone: $(cat "$dir/ro.txt")"
fi

python3 - "$dir" <<'EOF' || fail=1
import json, sys
d = sys.argv[1]
zsze, zcap, nlbas = 24576, 24000, 246000
nz = -(-nlbas // zsze)
bad = []
idns = json.load(open(d + '/idns.json'))
if idns['lbafe'][0]['zsze'] != zsze or idns['lbafe'][0]['zdes'] != 1:
    bad.append('id-ns lbafe %r' % idns['lbafe'][0])
if idns['mor'] != 4 or idns['mar'] != 5:
    bad.append('id-ns mor/mar %r %r' % (idns['mor'], idns['mar']))
want = {3: ('READONLY', None), 4: ('CLOSED', 4 * zsze + 100)}
for name, extra in (('r1', {}), ('r2', {0: ('IMP_OPENED', 2), 2: ('EXP_OPENED', 2 * zsze)})):
    r = json.load(open('%s/%s.json' % (d, name)))
    zl = r['zone_list']
    if r['nr_zones'] != nz or len(zl) != nz:
        bad.append('%s: %d/%d zones, want %d' % (name, r['nr_zones'], len(zl), nz))
    for i, z in enumerate(zl):
        cap = min(zcap, nlbas - i * zsze)
        exp = dict(want)
        exp.update(extra)
        st, wp = exp.get(i, ('EMPTY', i * zsze))
        if st == 'READONLY':
            wp = 2 ** 64 - 1
        if (z['slba'], z['cap'], z['state'], z['wp']) != (i * zsze, cap, st, wp):
            bad.append('%s zone %d: %r' % (name, i, z))
c = json.load(open(d + '/closed.json'))
if [z['slba'] for z in c['zone_list']] != [4 * zsze] or c['nr_zones'] != 1:
    bad.append('state filter: %r' % c)
for b in bad:
    print('not ok:', b)
sys.exit(1 if bad else 0)
EOF

# state persisted across the processes above: finish took zone 1 to full
"$nvme" zns report-zones "$dev" -o json -S 5 | grep -q '"slba":24576' || not_ok "finish not persisted"
n=$(awk '$2=="io" && $3=="0x7a" {n+=$4} END {print n+0}' "$dir/stats")
# every report-zones: one 64-byte count + one chunk (10 zones < 1024)
[ "$n" = 8 ] || not_ok "Zone Management Receive count $n, want 8"
[ $fail = 0 ] && echo "ok: nvme-cli 2.3 against the emulator"
exit $fail

#!/bin/bash
# Layer 80: map / unmap / status / list and persistence in QEMU.
# Boot 0 (tests/vm/patched-map/stock.sh) checks the refusals on Debian's stock
# kernel, which hides npo2 namespaces. Boot 1 (tests/vm/patched-map/map.sh) maps QEMU's
# npo2 namespaces and an npo2 null_blk, checks every refusal and kills `map`
# at each creation step; boot 2 (restore.sh) restores the recorded mappings
# with the namespaces declared in another order, so instance names change.
# Needs build/kernel/bzImage (layer 60, make kernel). tsc=unstable: on a busy
# host the guest can calibrate its TSC far too slow and then its clock (and
# the guest-side timeout) runs several times too fast; HPET keeps real time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh

# KERNEL, or ZNP_PATCHED_KERNEL as in tests/vm/layer.sh (layer_patched_kernel)
kernel=${KERNEL:-${ZNP_PATCHED_KERNEL:-build/kernel/bzImage}}
if [ ! -f "$kernel" ]; then
	echo "80-vm-map: $kernel not found: run make kernel first" >&2
	exit 1
fi
work=build/vm-map
rm -rf "$work"
mkdir -p "$work" build/vm-logs
log1=build/vm-logs/map-boot1-$(date +%Y%m%d-%H%M%S).log
log2=${log1/boot1/boot2}

echo "== 80-vm-map: boot 0: stock kernel, map refused (kernel lacks npo2 support)"
layer_boot 80-vm-map "boot 0" "${log1/boot1/stock}" --kernel stock --guest tests/vm/patched-map/stock.sh \
	--preset standard --append tsc=unstable --timeout 180 --quiet || exit 1
echo "== 80-vm-map: boot 1: map, refusals, kills, null_blk"
layer_boot 80-vm-map "boot 1" "$log1" --kernel "$kernel" --guest tests/vm/patched-map/map.sh \
	--preset standard --append "null_blk.nr_devices=0 tsc=unstable" --timeout 420 --quiet || exit 1
# the mapping file boot 1 left, and its instance names
sed -n '/^### BEGIN mappings-conf$/,/^### END mappings-conf$/p' "$log1" |
	sed '1d;$d' | { grep -v '^$' || true; } >"$work/mappings.conf"
grep -q '^po2-znsnpo2-c0-n1 ' "$work/mappings.conf" || {
	echo "80-vm-map: no mapping file in the boot 1 log" >&2
	exit 1
}
sed -n 's/^# ctrl 0 (nvme[0-9]*) nsid 1: ns \(nvme[0-9]*n[0-9]*\) .*/A \1/p;
	s/^# ctrl 1 (nvme[0-9]*) nsid 1: ns \(nvme[0-9]*n[0-9]*\) .*/E \1/p' "$log1" >"$work/boot1-names"
[ "$(wc -l <"$work/boot1-names")" = 2 ] || {
	echo "80-vm-map: boot 1 instance names not found in $log1" >&2
	exit 1
}

echo "== 80-vm-map: boot 2: restore with the namespaces declared in another order"
layer_boot 80-vm-map "boot 2" "$log2" --kernel "$kernel" --guest tests/vm/patched-map/restore.sh \
	--ns ctrl=1,nsid=2,size=256M,lbas=4096,zoned=1,zsze=32M,zcap=32M \
	--ns ctrl=1,nsid=1,size=480M,lbas=512,zoned=1,zsze=48M,zcap=48M \
	--ns ctrl=0,nsid=2,size=1G,lbas=4096,zoned=1,zsze=128M,zcap=96M \
	--ns ctrl=0,nsid=1,size=1G,lbas=4096,zoned=1,zsze=96M,zcap=96M \
	--add "$work/mappings.conf:/etc/zns-npo2/mappings.conf" \
	--add "$work/boot1-names:/vm/boot1-names" \
	--add "systemd/zns-npo2-restore.service.in:/vm/zns-npo2-restore.service" \
	--append tsc=unstable --timeout 300 --quiet || exit 1
echo "80-vm-map: $(layer_totals "${log1/boot1/stock}" "$log1" "$log2")"
echo "== 80-vm-map: passed (logs ${log1/boot1/stock}, $log1, $log2)"

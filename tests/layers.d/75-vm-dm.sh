#!/bin/bash
# Layer 75: device mapper on the patched kernel in QEMU. dm-po2zone
# (and the dm core changes) with real I/O on an npo2 null_blk and on QEMU's
# npo2 ZNS namespaces, f2fs on a mapping, bad tables.
# Needs build/kernel/bzImage (layer 60, make kernel).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh

# KERNEL, or ZNP_PATCHED_KERNEL as in tests/vm/layer.sh (layer_patched_kernel)
kernel=${KERNEL:-${ZNP_PATCHED_KERNEL:-build/kernel/bzImage}}
if [ ! -f "$kernel" ]; then
	echo "75-vm-dm: $kernel not found: run make kernel first" >&2
	exit 1
fi

mkdir -p build/vm-logs
rc=0
# run NAME DESC VM_RUN_ARGS...: one boot, console log build/vm-logs/dm-NAME.log
run() {
	local name=$1
	echo "== 75-vm-dm: $name: $2"
	shift 2
	layer_boot 75-vm-dm "$name" "build/vm-logs/dm-$name.log" --kernel "$kernel" \
		--append "null_blk.nr_devices=0" --quiet "$@" || rc=1
}

run nullb "dm-po2zone on npo2 null_blk" --guest tests/vm/patched-dm/nullb.sh \
	--ns ctrl=0,nsid=1,size=64M,lbas=4096 --timeout 240
run qemu "dm-po2zone on QEMU ZNS namespaces, f2fs" --guest tests/vm/patched-dm/qemu.sh \
	--preset standard --ns ctrl=0,nsid=5,size=2040M,lbas=4096,zoned=1,zsze=24M,zcap=24M \
	--ns ctrl=0,nsid=6,size=2048M,lbas=4096,zoned=1,zsze=32M,zcap=24M \
	--timeout 420
echo "75-vm-dm: $(layer_totals build/vm-logs/dm-nullb.log build/vm-logs/dm-qemu.log)"
exit $rc

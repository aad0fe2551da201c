#!/bin/bash
# Layer 75: device mapper on the patched kernel in QEMU. dm-po2zone
# (and the dm core changes) with real I/O on an npo2 null_blk and on QEMU's
# npo2 ZNS namespaces, f2fs on a mapping, bad tables.
# Needs build/kernel/bzImage (layer 60, make kernel).
set -euo pipefail
cd "$(dirname "$0")/../.."

kernel=${KERNEL:-build/kernel/bzImage}
if [ ! -f "$kernel" ]; then
	echo "75-vm-dm: $kernel not found: run make kernel first" >&2
	exit 1
fi

rc=0
run() {
	local name=$1
	shift
	echo "== 75-vm-dm: $name"
	if tests/vm/vm-run.sh --kernel "$kernel" --append "null_blk.nr_devices=0" \
		--quiet "$@"; then
		echo "== 75-vm-dm: $name passed"
	else
		echo "== 75-vm-dm: $name FAILED" >&2
		rc=1
	fi
}

run "dm-po2zone on npo2 null_blk" --guest tests/vm/patched-dm/nullb.sh \
	--ns ctrl=0,nsid=1,size=64M,lbas=4096 --timeout 240
run "dm-po2zone on QEMU ZNS namespaces, f2fs" --guest tests/vm/patched-dm/qemu.sh \
	--preset standard --ns ctrl=0,nsid=5,size=2040M,lbas=4096,zoned=1,zsze=24M,zcap=24M \
	--ns ctrl=0,nsid=6,size=2048M,lbas=4096,zoned=1,zsze=32M,zcap=24M \
	--timeout 420
exit $rc

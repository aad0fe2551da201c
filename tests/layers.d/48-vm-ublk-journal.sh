#!/bin/bash
# Layer 48: the ublk server's append journal on Debian's stock kernels in QEMU
# with ublk_drv, one boot each (ZNP_UBLK_KERNELS, default 6.12 and the newest
# 7.x: tests/vm/layer.sh layer_kernels): zoned btrfs on a ublk device while
# the server (built with test hooks) kills itself between an append's
# completion and its commit, after placing one while commits wait, at a zone's
# hand-over, or abandons its queues; a new server takes the device back each
# time. Then the namespace is read through its generic node: every
# acknowledged block is there exactly once (tests/vm/ublk-journal/guest.sh).
# Per boot: measured 217 s (7.3: 156 s beside a full test run) on a 2-core
# machine running one other QEMU guest, 522-645 s at load 15-25 (shared with
# other QEMU runs), hence the limit.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "48-vm-ublk-journal: nvme-zns-npo2 not built: run make" >&2; exit 1; }
adds=()
layer_btrfs_tools 48-vm-ublk-journal
# boot LOG: one run (on the kernel layer_kernels gives)
boot() {
	bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-journal/guest.sh \
		--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=48M,zcap=48M \
		--modules "ublk_drv crc32c_generic? crc32_generic? btrfs" "${adds[@]}" \
		--timeout 1200 --log "$1" --quiet
}
layer_kernels 48-vm-ublk-journal ublk-journal boot

#!/bin/bash
# Layer 76: the patched kernel in QEMU, what the series adds beyond
# layers 70 and 75: f2fs directly on npo2 zoned devices (the raw npo2 NVMe
# namespace, an npo2 null_blk with a smaller last zone), formatted with
# Debian's f2fs-tools plus kernel-patches/f2fs-tools/ (and Debian's own
# mkfs.f2fs refusing them); dm-po2zone at non-zero table offsets, two npo2
# namespaces concatenated into one mapping. Guest scripts:
# tests/vm/patched/f2fs.sh, tests/vm/patched-dm/concat.sh.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/layer.sh

layer_patched_kernel 76-vm-series || exit 1
bash scripts/f2fs-tools-build.sh || exit 1
out=build/vm-patched
mkdir -p "$out"
gcc -static -O2 -Wall -Wextra -Werror -o "$out/zonectl" tests/vm/patched/helpers/zonectl.c || exit 1

vm() {
	local guest=$1 name
	shift
	name=$(basename "${guest%.sh}")
	layer_boot 76-vm-series "$name" "build/vm-logs/series-$name.log" \
		--kernel "$img" --guest "tests/vm/$guest" --quiet \
		--add "$out/zonectl" \
		--add build/f2fs-tools/mkfs.f2fs:/opt/f2fs-npo2/mkfs.f2fs \
		--add build/f2fs-tools/fsck.f2fs:/opt/f2fs-npo2/fsck.f2fs "$@"
}

fail=0
# f2fs: Z (npo2 24M/24M) with D (conventional) for the metadata, the po2
# control P (32M/32M) with E; the null_blk is made in the guest (configfs)
vm patched/f2fs.sh --append "null_blk.nr_devices=0" --timeout 600 \
	--ns ctrl=0,nsid=1,size=2040M,lbas=4096,zoned=1,zsze=24M,zcap=24M \
	--ns ctrl=0,nsid=2,size=256M,lbas=4096 \
	--ns ctrl=0,nsid=3,size=2048M,lbas=4096,zoned=1,zsze=32M,zcap=32M \
	--ns ctrl=0,nsid=4,size=256M,lbas=4096 || fail=1
# dm-po2zone concatenation: A and B npo2 96M/96M (5 zones each), C npo2
# 48M/48M for the mixed-geometry refusal
vm patched-dm/concat.sh --append "null_blk.nr_devices=0" --timeout 360 \
	--ns ctrl=0,nsid=1,size=480M,lbas=4096,zoned=1,zsze=96M,zcap=96M \
	--ns ctrl=0,nsid=2,size=480M,lbas=4096,zoned=1,zsze=96M,zcap=96M \
	--ns ctrl=0,nsid=3,size=240M,lbas=4096,zoned=1,zsze=48M,zcap=48M || fail=1

echo "76-vm-series: $(layer_totals build/vm-logs/series-f2fs.log build/vm-logs/series-concat.log)"
exit $fail

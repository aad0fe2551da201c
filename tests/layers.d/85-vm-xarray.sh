#!/bin/bash
# Layer 85: the nvme host xarray series (kernel-patches/xarray) in QEMU on
# the patched kernel: namespace churn on an NVMe-oF loop controller with 42+
# namespaces added and removed through configfs while fio runs on the
# others, a QEMU controller with 34 namespaces rescanned under I/O, and
# Namespace Attachment churn (nvme detach-ns/attach-ns) on a QEMU controller
# in an NVMe subsystem with 32 namespaces while fio runs on 5 that stay; the
# kernel's, nvme-cli's and nvme-zns-npo2's view of the namespaces checked
# against the configuration after every step (tests/vm/xarray/). Each run
# fails on a failed check or on BUG:/WARNING:/Oops/panic in the console log.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/layer.sh

layer_patched_kernel 85-vm-xarray || exit 1
# the list of patches scripts/kernel-build.sh writes next to the image
grep -qs 'nvme: track the namespaces of a controller in an xarray' "$(dirname "$img")/applied" ||
	{ echo "85-vm-xarray: $img lacks the xarray series"; exit 1; }
out=build/vm-xarray
mkdir -p "$out"
gcc -static -O2 -Wall -Wextra -Werror -o "$out/ioctl-io" tests/vm/xarray/ioctl-io.c || exit 1
# vm-run.sh packs the tool only when it exists; the guests check its list
[ -x build/nvme-zns-npo2 ] || { echo "85-vm-xarray: build/nvme-zns-npo2 missing: run make" >&2; exit 1; }

fail=0
start=$SECONDS
# nvmet loop: 44 null_blk devices (1 GiB, not memory backed) as backends
layer_boot 85-vm-xarray nvmet build/vm-logs/xarray-nvmet.log \
	--kernel "$img" --guest tests/vm/xarray/nvmet.sh --quiet \
	--ns ctrl=0,nsid=1,size=64M,lbas=4096 --timeout 420 \
	--append "null_blk.nr_devices=44 null_blk.gb=1 null_blk.bs=4096" || fail=1
# QEMU: controller 0 with 32 conventional + 2 zoned namespaces, controller 1
# with one
ns=()
for i in $(seq 1 32); do ns+=(--ns "ctrl=0,nsid=$i,size=16M,lbas=4096"); done
ns+=(--ns ctrl=0,nsid=33,size=384M,lbas=4096,zoned=1,zsze=96M,zcap=96M)
ns+=(--ns ctrl=0,nsid=34,size=512M,lbas=4096,zoned=1,zsze=128M,zcap=128M)
ns+=(--ns ctrl=1,nsid=1,size=16M,lbas=4096)
layer_boot 85-vm-xarray qemu build/vm-logs/xarray-qemu.log \
	--kernel "$img" --guest tests/vm/xarray/qemu.sh --quiet \
	"${ns[@]}" --timeout 360 --add "$out/ioctl-io" || fail=1
# QEMU: controller 0 in an NVMe subsystem (Namespace Attachment), NSIDs 1-24,
# 64, 100, 255, 256 conventional, 25 npo2 and 26 po2 zoned, 128 and 200
# detached at boot
ns=()
for i in $(seq 1 24) 64 100 255 256; do ns+=(--ns "ctrl=0,nsid=$i,size=16M,lbas=4096"); done
ns+=(--ns ctrl=0,nsid=25,size=384M,lbas=4096,zoned=1,zsze=96M,zcap=96M)
ns+=(--ns ctrl=0,nsid=26,size=512M,lbas=4096,zoned=1,zsze=128M,zcap=128M)
ns+=(--ns ctrl=0,nsid=128,size=16M,lbas=4096,detached=1)
ns+=(--ns ctrl=0,nsid=200,size=16M,lbas=4096,detached=1)
layer_boot 85-vm-xarray attach build/vm-logs/xarray-attach.log \
	--kernel "$img" --guest tests/vm/xarray/attach.sh --quiet \
	--subsys 0 "${ns[@]}" --timeout 300 || fail=1

echo "85-vm-xarray: $(layer_totals build/vm-logs/xarray-nvmet.log build/vm-logs/xarray-qemu.log \
	build/vm-logs/xarray-attach.log) ($((SECONDS - start)) s)"
exit $fail

#!/bin/bash
# `make demo`: boot the issue-3 VM layout and narrate the main job
# (tests/vm/guest/demo.sh): the patched kernel when build/kernel/bzImage
# exists, then Debian's stock kernel, ending with the hidden npo2 namespace
# served through ublk (map --ublk) and btrfs mounted on it.
set -uo pipefail
cd "$(dirname "$0")/../.."
VMRUN=tests/vm/vm-run.sh
NS=(--ns ctrl=0,nsid=1,size=1G,lbas=4096,zoned=1,zsze=96M,zcap=96M
    --ns ctrl=0,nsid=2,size=1G,lbas=4096,zoned=1,zsze=128M,zcap=96M
    --ns ctrl=0,nsid=3,size=1G,lbas=4096,zoned=1,zsze=80M,zcap=64M
    --ns ctrl=0,nsid=4,size=256M,lbas=4096)
# only the guest's narration: not the boot log, result lines or dmesg dump
narrate() {
	sed -u -n '/^vm-init: running/,/^### BEGIN dmesg/{/^vm-init: running/d;/^### BEGIN dmesg/d;/^\(ok\|not ok\) [0-9]/d;p}'
}
rc=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT
# boot LABEL VM-RUN-ARGS...: narrated run; vm-run's own messages only on failure
boot() {
	echo "demo: booting $1 in QEMU (about 15 s) ..."
	shift
	bash $VMRUN "$@" "${NS[@]}" --timeout 300 2>"$err" | narrate
	if [ "${PIPESTATUS[0]}" -ne 0 ]; then
		cat "$err" >&2
		rc=1
	fi
	echo
}

[ -x build/nvme-zns-npo2 ] || echo "demo: build/nvme-zns-npo2 is not built: run 'make' first"
patched=0
[ -f build/kernel/bzImage ] && patched=1
[ $patched = 1 ] &&
	boot "the patched kernel (build/kernel/bzImage)" --kernel build/kernel/bzImage --guest tests/vm/guest/demo.sh
# the stock kernel last: it ends with the ublk mapping and a mounted btrfs
ublk=(--modules "ublk_drv crc32c_generic btrfs")
for t in mkfs.btrfs btrfs; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v $t) && ublk+=(--add "$p:/usr/bin/$t")
done
boot "Debian's stock kernel" --kernel stock --guest tests/vm/guest/demo.sh \
	--append "vm_demo_patched=$patched" "${ublk[@]}"
exit $rc

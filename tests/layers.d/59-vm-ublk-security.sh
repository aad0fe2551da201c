#!/bin/bash
# Layer 59: the ublk route's security on Debian's stock 6.12 kernel in QEMU
# with ublk_drv: modes of the state files, the start time in a record, the
# device classes zns-npo2-ublk@.service allows checked against the
# kernel's /proc/devices and the nodes a server holds open, and unmap of a
# hung server whose record names a recycled pid (not signalled; record and
# lock kept). Guest script: tests/vm/ublk-security/.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "59-vm-ublk-security: nvme-zns-npo2 not built: run make" >&2; exit 1; }
log=build/vm-logs/ublk-security-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-security/guest.sh \
	--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=48M,zcap=48M \
	--modules "ublk_drv" \
	--add "systemd/zns-npo2-ublk@.service.in:/vm/zns-npo2-ublk@.service.in" \
	--timeout 300 --log "$log" --quiet
vm=$?
layer_report 59-vm-ublk-security "$log" $vm $start || exit 1

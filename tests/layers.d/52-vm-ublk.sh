#!/bin/bash
# Layer: the ublk server on Debian's stock kernels (ublk_drv, no kernel
# patches): hidden npo2 namespaces served as po2 zoned ublk devices by
# `map --ublk --foreground` (tests/vm/ublk/ublk.sh), one boot per kernel:
# Debian 12's 6.12 and the newest 7.x of Debian 13 (scripts/stock-kernel.sh;
# there the server uses TRY_STOP_DEV and no partition scan, checked under a
# loop device and an nvmet export, where it parks by QUIESCE_DEV). ZNP_UBLK_KERNELS="6.12 7" picks.
# Namespaces are small (8 zones of 96 MiB) to keep the run within a few
# minutes under TCG.
# no_timer_check: a loaded host can make TCG miss the boot-time IO-APIC
# timer check ("IO-APIC + timer doesn't work!" panic).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || [ -x build/src/cli/nvme-zns-npo2 ] || { echo "52-vm-ublk: nvme-zns-npo2 not built: run make" >&2; exit 1; }
# boot LOG: one run of tests/vm/ublk/ublk.sh (on the kernel layer_kernels gives)
boot() {
	bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk/ublk.sh \
		--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=96M,zcap=96M,max_open=4,max_active=6 \
		--ns ctrl=0,nsid=2,size=512M,lbas=4096,zoned=1,zsze=128M,zcap=96M \
		--ns ctrl=0,nsid=3,size=480M,lbas=4096,zoned=1,zsze=80M,zcap=64M \
		--ns ctrl=0,nsid=4,size=64M,lbas=4096 \
		--ns ctrl=1,nsid=1,size=240M,lbas=512,zoned=1,zsze=48M,zcap=48M \
		--ns ctrl=1,nsid=2,size=3000M,lbas=4096,zoned=1,zsze=1536K,zcap=1536K \
		--modules "ublk_drv nvmet nvme-loop loop" \
		--append no_timer_check \
		--timeout 420 --log "$1" --quiet
}
layer_kernels 52-vm-ublk ublk boot

#!/bin/bash
# Layer: the ublk server on Debian's stock 6.12 kernel (ublk_drv, no kernel
# patches): hidden npo2 namespaces served as po2 zoned ublk devices by
# `map --ublk --foreground` (tests/vm/ublk/ublk.sh). Namespaces are small
# (8 zones of 96 MiB) to keep the run within a few minutes under TCG.
# no_timer_check: a loaded host can make TCG miss the boot-time IO-APIC
# timer check ("IO-APIC + timer doesn't work!" panic).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || [ -x build/src/cli/nvme-zns-npo2 ] || { echo "52-vm-ublk: nvme-zns-npo2 not built: run make" >&2; exit 1; }
log=build/vm-logs/ublk-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk/ublk.sh \
	--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=96M,zcap=96M,max_open=4,max_active=6 \
	--ns ctrl=0,nsid=2,size=512M,lbas=4096,zoned=1,zsze=128M,zcap=96M \
	--ns ctrl=0,nsid=3,size=480M,lbas=4096,zoned=1,zsze=80M,zcap=64M \
	--ns ctrl=0,nsid=4,size=64M,lbas=4096 \
	--ns ctrl=1,nsid=1,size=240M,lbas=512,zoned=1,zsze=48M,zcap=48M \
	--ns ctrl=1,nsid=2,size=3000M,lbas=4096,zoned=1,zsze=1536K,zcap=1536K \
	--modules "ublk_drv nvmet nvme-loop" \
	--append no_timer_check \
	--timeout 420 --log "$log" --quiet
vm=$?
layer_report 52-vm-ublk "$log" $vm $start || exit 1

#!/bin/bash
# Layer: LBA formats on Debian's stock 6.12 kernel with ublk_drv
# (tests/vm/ublk-formats/guest.sh): npo2 namespaces with per-LBA metadata
# (extended and separate) and with protection information are refused by
# check and map --ublk, creating nothing; one with zone descriptor
# extensions is mapped and served. Small namespaces keep it short under TCG.
# no_timer_check: a loaded host can make TCG miss the boot-time IO-APIC
# timer check ("IO-APIC + timer doesn't work!" panic).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || [ -x build/src/cli/nvme-zns-npo2 ] || { echo "54-vm-ublk-formats: nvme-zns-npo2 not built: run make" >&2; exit 1; }
log=build/vm-logs/ublk-formats-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-formats/guest.sh \
	--ns ctrl=0,nsid=1,size=384M,lbas=4096,zoned=1,zsze=96M,zcap=96M,ms=8,mset=1 \
	--ns ctrl=0,nsid=2,size=384M,lbas=4096,zoned=1,zsze=96M,zcap=96M,ms=8,mset=0 \
	--ns ctrl=0,nsid=3,size=384M,lbas=4096,zoned=1,zsze=96M,zcap=96M,ms=8,pi=1 \
	--ns ctrl=0,nsid=4,size=768M,lbas=4096,zoned=1,zsze=96M,zcap=96M,zdes=64 \
	--ns ctrl=0,nsid=5,size=384M,lbas=4096,zoned=1,zsze=96M,zcap=96M,ms=8,mset=1,pi=1,pil=1 \
	--modules "ublk_drv" \
	--append no_timer_check \
	--timeout 240 --log "$log" --quiet
vm=$?
layer_report 54-vm-ublk-formats "$log" $vm $start || exit 1

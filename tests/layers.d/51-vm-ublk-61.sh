#!/bin/bash
# Layer 51: Debian 12's default 6.1 kernel (no ublk_drv), fetched by
# scripts/stock-kernel.sh into build/: `check` and `map --ublk` refuse the
# ublk route with the kernel it needs and the Debian 12 package that
# provides one, exit codes as documented, nothing created
# (tests/vm/ublk-61/guest.sh). One short boot.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "51-vm-ublk-61: nvme-zns-npo2 not built: run make" >&2; exit 1; }
kdir=$(layer_stock_kdir 51-vm-ublk-61 6.1) || exit 1
log=build/vm-logs/ublk-61-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
STOCK_KDIR=$kdir bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-61/guest.sh \
	--ns ctrl=0,nsid=1,size=384M,lbas=4096,zoned=1,zsze=96M,zcap=96M \
	--append no_timer_check \
	--timeout 300 --log "$log" --quiet
vm=$?
layer_report "51-vm-ublk-61 ($(cat "$kdir/KVER"))" "$log" $vm $start || exit 1

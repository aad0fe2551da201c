#!/bin/bash
# Layer 56: the ublk server's death and restart under load on Debian's stock
# kernels in QEMU with ublk_drv, one boot each (ZNP_UBLK_KERNELS, default 6.12
# and the newest 7.x of Debian 13: tests/vm/layer.sh layer_kernels): the
# server SIGKILLed at random moments with requests in flight (the server is
# SIGSTOPped at the moment, so that they stay in flight until the signal;
# zoned btrfs with fsync'ing and buffered writers, f2fs, fio zbd write+verify
# at iodepth 16, no writer frozen), SIGTERMed under the same load (systemd's
# restart: the server parks by QUIESCE_DEV on 7.x, by closing its rings on
# 6.12, as its log must say), each time a new `map --ublk --foreground`
# taking the device back;
# double faults under btrfs (SIGKILL or SIGTERM, then the recovering server
# SIGKILLed during its start, a third one serving); and recovery binding (a
# server asked to take back another namespace's device, a record with a stale
# pid). Guest scripts: tests/vm/ublk-crash/. Per boot: measured 149 s on a
# quiet 2-core machine (6.12; 7.3: 632 s beside a full test run), 550-890 s on
# one shared with other QEMU runs (load 15-20; the new servers' start took
# 2-15 s each): hence the limit.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "56-vm-ublk-crash: nvme-zns-npo2 not built: run make" >&2; exit 1; }
adds=()
layer_btrfs_tools 56-vm-ublk-crash
# boot LOG: one run of the scenarios (on the kernel layer_kernels gives)
boot() {
	bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-crash/guest.sh \
		--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=48M,zcap=48M \
		--ns ctrl=0,nsid=2,size=1152M,lbas=4096,zoned=1,zsze=24M,zcap=24M \
		--ns ctrl=0,nsid=3,size=64M,lbas=4096 \
		--ns ctrl=0,nsid=4,size=384M,lbas=4096,zoned=1,zsze=24M,zcap=24M \
		--ns ctrl=0,nsid=5,size=384M,lbas=4096,zoned=1,zsze=24M,zcap=24M \
		--modules "ublk_drv crc32c_generic? crc32_generic? btrfs f2fs" "${adds[@]}" \
		--timeout 1200 --log "$1" --quiet
}
layer_kernels 56-vm-ublk-crash ublk-crash boot

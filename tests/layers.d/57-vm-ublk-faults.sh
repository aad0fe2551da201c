#!/bin/bash
# Layer 57: the ublk server against device faults and memory pressure on
# Debian's stock kernels (ZNP_UBLK_KERNELS, default 6.12 and the newest 7.x:
# tests/vm/layer.sh; tests/vm/ublk-faults/guest.sh; faults and detach on
# each kernel):
# - faults: two `nvme reset`s of the controller during a fio zbd write +
#   verify (retried commands, writes reconciled with the write pointer: fio
#   passes, no I/O error); the whole controller removed under the server
#   (PCI remove: the server exits with a failure, the device stays
#   quiesced, fio waits), brought back by a PCI rescan, and taken back by a
#   new server: fio's verify passes;
# - detach: the controller in an NVMe subsystem, the server on the
#   multipath head's node (which refuses commands while no path is live):
#   an `nvme reset` during fio write + verify (requests wait for the path:
#   fio passes, no I/O error); the namespace detached under fio (the server
#   exits 1, the device stays quiesced, fio waits), attached again, a new
#   server takes the device back: fio's verify and a pattern written
#   before the detach verify, no I/O error;
# - memory pressure: a 512 MiB guest writes twice its memory through
#   btrfs on the ublk device with the hung-task detector at 20 s: no hang,
#   no I/O error, data verifies after a remount.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "57-vm-ublk-faults: nvme-zns-npo2 not built: run make" >&2; exit 1; }
adds=()
layer_btrfs_tools 57-vm-ublk-faults
start=$SECONDS
rc=0
logs=()
for k in ${ZNP_UBLK_KERNELS:-6.12 7}; do
	kdir=$(layer_stock_kdir 57-vm-ublk-faults "$k") || { rc=1; continue; }
	export STOCK_KDIR=$kdir
	log1=build/vm-logs/ublk-faults-$k-$(date +%Y%m%d-%H%M%S).log
	kstart=$SECONDS
	bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-faults/guest.sh \
		--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=48M,zcap=48M \
		--modules "ublk_drv" --append "no_timer_check FAULTS=1" \
		--timeout 300 --log "$log1" --quiet
	vm=$?
	layer_report "57-vm-ublk-faults ($k: faults)" "$log1" $vm $kstart || rc=1
	log3=build/vm-logs/ublk-detach-$k-$(date +%Y%m%d-%H%M%S).log
	kstart=$SECONDS
	bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-faults/guest.sh --subsys 0 \
		--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=48M,zcap=48M \
		--modules "ublk_drv" --append "no_timer_check DETACH=1" \
		--timeout 420 --log "$log3" --quiet
	vm=$?
	layer_report "57-vm-ublk-faults ($k: detach)" "$log3" $vm $kstart || rc=1
	logs+=("$log1" "$log3")
	log2=build/vm-logs/ublk-mempress-$k-$(date +%Y%m%d-%H%M%S).log
	kstart=$SECONDS
	bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-faults/guest.sh \
		--ns ctrl=0,nsid=1,size=2304M,lbas=4096,zoned=1,zsze=48M,zcap=48M \
		--modules "ublk_drv crc32c_generic? crc32_generic? btrfs" "${adds[@]}" \
		--mem 512M --append "no_timer_check MEMPRESS=1" \
		--timeout 330 --log "$log2" --quiet
	vm=$?
	layer_report "57-vm-ublk-faults ($k: memory pressure)" "$log2" $vm $kstart || rc=1
	unset STOCK_KDIR
	logs+=("$log2")
done
echo "57-vm-ublk-faults: $(layer_totals "${logs[@]}"), $((SECONDS - start)) s"
exit $rc

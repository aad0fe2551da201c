#!/bin/bash
# Layer 53: ublk mappings on Debian's stock 6.12 kernel in QEMU with ublk_drv:
# life cycle (daemon, state under /run/zns-npo2, status, list, check, the
# namespace lock, two namespaces at once, unmap refusals), btrfs zoned and
# f2fs on the ublk devices, the server SIGKILLed during a fio zbd verify run
# and taken back by a new server, the ublk device exported through the
# kernel's NVMe target (nvmet loop), SIGTERM while only a loop device, an
# nvmet namespace or another user's hidden process holds it (parked, served
# again), and another program's device at a recorded id (left alone).
# Guest script: tests/vm/ublk-life/.
# no_timer_check: a loaded host can make TCG miss the boot-time IO-APIC
# timer check (a panic before the guest runs).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "53-vm-ublk-life: nvme-zns-npo2 not built: run make" >&2; exit 1; }
log=build/vm-logs/ublk-life-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
adds=()
layer_btrfs_tools 53-vm-ublk-life
# systemd's notification socket, for the Type=notify check of --foreground
mkdir -p build/vm-ublk-life
gcc -static -O2 -Wall -Wextra -Werror -o build/vm-ublk-life/notify-listen \
	tests/vm/helpers/notify-listen.c || exit 1
adds+=(--add "build/vm-ublk-life/notify-listen:/usr/bin/notify-listen")
# another program's ublk device, a server without CAP_SYS_PTRACE, a holder
# of another uid: tests/vm/helpers/ublk-other.c (vm-run.sh builds the helpers)
bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-life/guest.sh \
	--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=48M,zcap=48M \
	--ns ctrl=0,nsid=2,size=1152M,lbas=4096,zoned=1,zsze=24M,zcap=24M \
	--ns ctrl=0,nsid=3,size=256M,lbas=4096 \
	--modules "ublk_drv crc32c_generic crc32_generic btrfs f2fs nvmet nvme-loop loop" "${adds[@]}" \
	--append no_timer_check --timeout 560 --log "$log" --quiet
vm=$?
layer_report 53-vm-ublk-life "$log" $vm $start || exit 1

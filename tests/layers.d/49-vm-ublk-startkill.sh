#!/bin/bash
# Layer 49: the ublk server killed while it starts or takes a device back, on
# Debian's stock kernels in QEMU with ublk_drv, one boot each
# (ZNP_UBLK_KERNELS, default 6.12 and the newest 7.x: tests/vm/layer.sh
# layer_kernels; tests/vm/ublk-startkill/guest.sh): 20 rounds
# alternating a fresh START_DEV (after a clean unmap) and a recovery (after a
# SIGKILL of the serving server), the new server SIGKILLed at delays spread
# over its start (0 to 90 % of the last start's duration; in a fresh start
# held before START_DEV, inside which a SIGKILL deadlocks 6.12's driver: see
# src/ublk/README.md and the guest script) or at points placed with the test
# hook ZNP_TEST_UBLK_STOP_AT (START_USER_RECOVERY returned; every tag fetched,
# just before START_DEV or END_USER_RECOVERY; live, before the record is
# rewritten): the killed server is gone within 5 s, the next `map --ublk`
# serves on its first try, every zone written before verifies; double faults:
# a saturated queue (every tag held by the server), SIGKILL, the recovering
# server SIGKILLed too, and a third server takes the device back on its first
# try, with a 30 s request timeout (the kernel's default) and with 5 s; no hung task, no
# I/O error. Measured 588 s on a 2-core machine at load 20 (starts took 1-9
# s); a quieter run took 266 s (7.3: 108 s beside a full test run): hence the
# limit.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "49-vm-ublk-startkill: nvme-zns-npo2 not built: run make" >&2; exit 1; }
# boot LOG: one run (on the kernel layer_kernels gives)
boot() {
	bash tests/vm/vm-run.sh --kernel stock --guest tests/vm/ublk-startkill/guest.sh \
		--ns ctrl=0,nsid=1,size=1008M,lbas=4096,zoned=1,zsze=24M,zcap=24M \
		--modules "ublk_drv" --append "no_timer_check" \
		--timeout 1500 --log "$1" --quiet
}
layer_kernels 49-vm-ublk-startkill ublk-startkill boot

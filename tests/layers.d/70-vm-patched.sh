#!/bin/bash
# Layer 70: the patched kernel in QEMU: npo2 NVMe ZNS namespaces as zoned
# block devices (and the po2 ones unchanged), npo2 null_blk through module
# parameters and configfs, the NVMe target exporting npo2 zoned devices,
# zonefs, zone append, dm-zoned refusing npo2, failed zone reports while a
# namespace is set up, and the results of the KUnit suites of the series,
# which the kernel runs at boot. Guest scripts live in
# tests/vm/patched/; each run fails on any failed check or on BUG:/WARNING:/
# Oops/panic in the console log (tests/vm/vm-run.sh).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/layer.sh

layer_patched_kernel 70-vm-patched || exit 1
out=build/vm-patched
mkdir -p "$out"
gcc -static -O2 -Wall -Wextra -Werror -o "$out/zonectl" tests/vm/patched/helpers/zonectl.c || exit 1
python3 tests/vm/patched/helpers/zonefs-sb.py "$out/zonefs-sb.img" || exit 1

vm() {
	local guest=$1
	shift
	layer_boot 70-vm-patched "${guest%.sh}" "build/vm-logs/patched-${guest%.sh}.log" \
		--kernel "$img" --guest "tests/vm/patched/$guest" --quiet \
		--add "$out/zonectl" --add "$out/zonefs-sb.img:/vm/zonefs-sb.img" "$@"
}

fail=0
# NVMe host: the standard namespace layout (A 96M/96M npo2, B 128M/96M po2,
# C 80M/64M npo2 with capacity < size, D conventional, E 48M/48M npo2 512 B);
# first the KUnit suites the kernel ran at this boot (tests/vm/patched/kunit.sh)
vm nvme.sh --preset standard --timeout 420 || fail=1
# null_blk: one device from module parameters (1 GiB, 96 MiB zones), the
# others through configfs; a small conventional namespace keeps /init simple
vm nullblk.sh --ns ctrl=0,nsid=1,size=64M,lbas=4096 --timeout 420 \
	--append "null_blk.nr_devices=1 null_blk.zoned=1 null_blk.zone_size=96 null_blk.gb=1 null_blk.memory_backed=1 null_blk.bs=4096" ||
	fail=1
# NVMe target (loop transport) exporting npo2 null_blk devices
vm nvmet.sh --ns ctrl=0,nsid=1,size=64M,lbas=4096 --timeout 300 || fail=1
# failed zone reports on a first scan and on rescans (nvmet over suspended
# dm-linear mappings), controllers deleted and connected again; zones of
# 1025 sectors (an odd npo2 zone size) on 512 B LBAs; dm-po2zone refusing
# a resume after its device's zone size changed
vm faults.sh --ns ctrl=0,nsid=1,size=33587200,lbas=512,zoned=1,zsze=524800,zcap=524800 \
	--timeout 300 || fail=1

# the suites' counts as nvme.sh read them from the kernel's KTAP output
grep -a '^# \[[0-9.]*s\] kunit [a-z0-9_]*: ' build/vm-logs/patched-nvme.log |
	sed 's/^# \[[0-9.]*s\] /70-vm-patched: /' || true
echo "70-vm-patched: $(layer_totals build/vm-logs/patched-nvme.log build/vm-logs/patched-nullblk.log build/vm-logs/patched-nvmet.log build/vm-logs/patched-faults.log)"
exit $fail

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: every benchmark of the project, each printing its figures
# side by side in one run. Benchmarks measure; they do not gate (a missed
# target is printed as MISS). Exit status is non-zero only when a benchmark
# could not run or produced wrong results.
set -uo pipefail
cd "$(dirname "$0")/.."

rc=0
run() {
	echo
	echo "=== $*"
	"$@"
	local r=$?
	if [ "$r" -ne 0 ]; then
		echo "=== FAILED (exit $r): $*"
		rc=1
	fi
}

# zone report: nvme-zns-npo2 vs nvme-cli 2.3 on an emulated namespace
run python3 bench/report-bench.py "$@"

# other layers' benchmarks, when present (guest-side parts are run by their host script)
for s in bench/discard-*.sh bench/kernel-*.sh bench/dm-*.sh bench/ublk-*.sh bench/tcp-*.sh; do
	[ -f "$s" ] || continue
	case "$s" in *-guest.sh) continue ;; esac
	run bash "$s"
done
exit $rc

#!/bin/bash
# nvme host namespace lookup benchmark (part of `make bench`): the shape of
# the 2020 "nvme: use xarray for ns tracking" posting where the host lookup
# is on the I/O path: the NVMe target in passthrough mode over a QEMU NVMe
# controller with 32 namespaces, exported over nvmet loop; fio with 32 jobs
# (4 KiB random reads, libaio) over the first 16 and the last 16
# namespaces (bench/kernel-xarray-guest.sh). Every command the target
# forwards calls nvme_find_get_ns() on the QEMU controller.
#   without: the npo2 series only  (scripts/kernel-build.sh --no-xarray,
#            build/kernel-npo2/bzImage)
#   with:    npo2 + xarray series  (scripts/kernel-build.sh, build/kernel/bzImage)
# Same config, same VM setup; the kernels alternate, one boot each per
# round. QEMU runs with -icount (as bench/kernel-perf.sh): IOPS then count
# guest instructions per I/O, not host load; cache misses of a list walk,
# which dominate on real hardware, do not exist there.
# Output: Markdown table on stdout and in build/bench/kernel-xarray.md.
# Environment: KXA_ROUNDS (2 boots per kernel), KXA_REPS (fio runs per
# boot, 3), KXA_RUNTIME (virtual seconds per run, 5), KXA_NS (namespaces on
# the QEMU controller, 32; QEMU allows up to 256), KXA_ICOUNT (1),
# KXA_REPORT_ONLY=1 (print the table of the last run again, no VM).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${KXA_ROUNDS:-2} reps=${KXA_REPS:-3} rt=${KXA_RUNTIME:-5} nns=${KXA_NS:-32}
icount=${KXA_ICOUNT:-1}
out=build/bench
mkdir -p "$out" build/vm-logs
. bench/icount.sh
qpath=$PATH
[ "$icount" != 1 ] || qpath=$(icount_path "$out/qemu-icount" shift=1,sleep=off)

report_only=${KXA_REPORT_ONLY:-0}
if [ "$report_only" != 1 ]; then
bash scripts/kernel-build.sh
bash scripts/kernel-build.sh --no-xarray
grep -q 'xarray' build/kernel/applied || { echo "kernel-xarray: build/kernel lacks the xarray series" >&2; exit 1; }
! grep -q 'xarray' build/kernel-npo2/applied || { echo "kernel-xarray: build/kernel-npo2 has the xarray series" >&2; exit 1; }

ns=()
for i in $(seq 1 "$nns"); do ns+=(--ns "ctrl=0,nsid=$i,size=64M,lbas=4096"); done
[ "$report_only" = 1 ] || : >"$out/kernel-xarray.txt"
session() { # NAME BZIMAGE ROUND
	local log=build/vm-logs/kernel-xarray-$1-$3.log
	PATH=$qpath tests/vm/vm-run.sh --kernel "$2" --guest bench/kernel-xarray-guest.sh --quiet \
		"${ns[@]}" --timeout 900 --mem 1G --log "$log" \
		--append "kxa.reps=$reps kxa.runtime=$rt" ||
		{ echo "kernel-xarray: $1 session failed, log $log" >&2; exit 1; }
	sed -n '/^### BEGIN xarray-perf/,/^### END xarray-perf/p' "$log" |
		grep -v '^###' | sed "s/^/$1 $3 /" >>"$out/kernel-xarray.txt"
}
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then
		session without build/kernel-npo2/bzImage "$r"
		session with build/kernel/bzImage "$r"
	else
		session with build/kernel/bzImage "$r"
		session without build/kernel-npo2/bzImage "$r"
	fi
done
fi

python3 - "$out/kernel-xarray.txt" "$nns" "$rounds" "$reps" "$rt" "$icount" <<'PY' | tee "$out/kernel-xarray.md"
import statistics, sys
path, nns, rounds, reps, rt, icount = sys.argv[1:7]
rows = {}
for line in open(path):
    kern, rnd, rep, iops, slat = line.split()
    rows.setdefault(kern, []).append((float(iops), float(slat)))
def med(k, i): return statistics.median(v[i] for v in rows[k])
def rng(k, i, f):
    return f % min(v[i] for v in rows[k]) + "-" + f % max(v[i] for v in rows[k])
clock = "QEMU -icount virtual time" if icount == "1" else "wall-clock time"
print(f"nvmet passthrough over a QEMU controller with {nns} namespaces, nvmet loop, fio 32 jobs "
      f"(first 16 + last 16 namespaces), 4 KiB randread, libaio; {rounds} boots x {reps} runs of {rt} s "
      f"per kernel, {clock}; median [min-max]")
print()
print("| kernel | IOPS | mean submission latency (usec) | anchor IOPS | anchor slat (usec) |")
print("|---|---|---|---|---|")
names = {"without": "npo2 series only (list walk)", "with": "npo2 + xarray series"}
anchor = {"without": ("820K-835K", "20.2-25.2"), "with": ("965K-966K", "14.8-15.1")}
for k in ("without", "with"):
    print(f"| {names[k]} | {med(k, 0):.0f} [{rng(k, 0, '%.0f')}] | {med(k, 1):.2f} [{rng(k, 1, '%.2f')}] "
          f"| {anchor[k][0]} | {anchor[k][1]} |")
ri = med("with", 0) / med("without", 0)
rs = med("with", 1) / med("without", 1)
overlap = (min(v[0] for v in rows["with"]) <= max(v[0] for v in rows["without"]))
print()
print(f"xarray / list, ratio of medians: IOPS x{ri:.3f} ({(ri - 1) * 100:+.1f}%; anchor +16.4%), "
      f"submission latency x{rs:.3f} ({(rs - 1) * 100:+.1f}%; anchor -25%)"
      + ("; the IOPS ranges overlap: within the run-to-run spread" if overlap else ""))
print("anchor: the 2020 posting, nvme-loop over null_blk on real hardware, 3 runs of 60 s per kernel")
PY

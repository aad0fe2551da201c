#!/bin/bash
# Kernel series benchmark (part of `make bench`): fio io_uring, 4 KiB blocks,
# seq write / seq read / rand read at iodepth 8 and 16 on zoned null_blk, as
# the 2022 npo2 series measured it.
#   1. unpatched vs patched kernel on a po2 null_blk (128 MiB zones): one VM
#      session per kernel (same config: scripts/kernel-build.sh --base);
#   2. po2 (128 MiB) vs npo2 (96 MiB zones) null_blk on the patched kernel,
#      in one VM session, jobs interleaved.
# Under TCG absolute numbers mean nothing; the ratios of medians do.
# By default QEMU runs with -icount (through a qemu-system-x86_64 wrapper put
# first on PATH for tests/vm/vm-run.sh): guest time then advances with the
# guest instructions executed, so IOPS measure the instructions per I/O and
# do not depend on the load of the host (on a shared 2-core host wall-clock
# IOPS under TCG vary by 3x between identical runs). A division counts as
# one instruction there: the ratios show extra code, not divider latency.
# KPERF_ICOUNT=0 measures wall-clock time instead.
# Output: a Markdown table on stdout and in build/bench/kernel-perf.md.
# Environment: KPERF_REPS (default 3), KPERF_IO (io_size per job, 64M),
# KPERF_ICOUNT (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${KPERF_REPS:-3}
io=${KPERF_IO:-64M}
icount=${KPERF_ICOUNT:-1}
out=build/bench
mkdir -p "$out" build/vm-patched build/vm-logs
. bench/icount.sh
qpath=$PATH
[ "$icount" != 1 ] || qpath=$(icount_path "$out/qemu-icount" shift=1,sleep=off)

bash scripts/kernel-build.sh
bash scripts/kernel-build.sh --base
gcc -static -O2 -Wall -o build/vm-patched/zonectl tests/vm/patched/helpers/zonectl.c

session() { # NAME BZIMAGE DEVS
	PATH=$qpath tests/vm/vm-run.sh --kernel "$2" --guest bench/kernel-perf-guest.sh --quiet \
		--ns ctrl=0,nsid=1,size=64M,lbas=4096 --timeout 1800 --mem 1G \
		--add build/vm-patched/zonectl --log "build/vm-logs/kernel-perf-$1.log" \
		--append "kperf.devs=$3 kperf.reps=$reps kperf.io=$io"
	sed -n '/^### BEGIN perf/,/^### END perf/p' "build/vm-logs/kernel-perf-$1.log" |
		grep -v '^###' | sed "s/^/$1 /" >"$out/kernel-perf-$1.txt"
}

echo "kernel-perf: unpatched kernel, po2 null_blk"
session base build/kernel-base/bzImage po2
echo "kernel-perf: patched kernel, po2 and npo2 null_blk"
session patched build/kernel/bzImage po2,npo2

python3 - "$out/kernel-perf-base.txt" "$out/kernel-perf-patched.txt" "$reps" "$io" "$icount" <<'PY' | tee "$out/kernel-perf.md"
import statistics, sys
rows = {}
for path in sys.argv[1:3]:
    for line in open(path):
        kern, dev, rw, qd, rep, iops = line.split()
        rows.setdefault((kern, dev, rw, int(qd)), []).append(float(iops))
med = {k: statistics.median(v) for k, v in rows.items()}
clock = "QEMU -icount virtual time" if sys.argv[5] == "1" else "wall-clock time"
print(f"fio io_uring, bs=4k, zonemode=zbd, io_size={sys.argv[4]} per job, median of {sys.argv[3]} runs, {clock};")
print("null_blk not memory backed, 96 zones: po2 128 MiB zones, npo2 96 MiB zones")
print()
print("| workload | iodepth | unpatched po2 (IOPS) | patched po2 (IOPS) | patched/unpatched | patched npo2 (IOPS) | npo2/po2 |")
print("|---|---|---|---|---|---|---|")
worst = 0.0
for rw, name in (("write", "seq write"), ("read", "seq read"), ("randread", "rand read")):
    for qd in (8, 16):
        b = med.get(("base", "po2", rw, qd), 0)
        p = med.get(("patched", "po2", rw, qd), 0)
        n = med.get(("patched", "npo2", rw, qd), 0)
        r1 = p / b if b else 0
        r2 = n / p if p else 0
        worst = max(worst, abs(1 - r1), abs(1 - r2))
        print(f"| {name} | {qd} | {b:.0f} | {p:.0f} | {r1:.3f} | {n:.0f} | {r2:.3f} |")
print()
verdict = "met" if worst <= 0.02 else "MISS"
print(f"largest deviation from 1.000: {worst * 100:.1f}% (target within 2%: {verdict})")
PY

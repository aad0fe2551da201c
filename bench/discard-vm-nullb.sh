#!/bin/bash
# Async discard on null_blk, the setup of the io_uring discard posting
# (part of `make bench`): in the patched-kernel VM (QEMU -icount, as
# bench/kernel-perf.sh), a memory-backed null_blk with discard, random
# distinct 4 KiB and 1 MiB discards; nvme-zns-npo2 discard (io_uring, QD 64)
# vs a synchronous BLKDISCARD loop vs fio randtrim (io_uring, QD 64),
# interleaved rounds (bench/discard-vm-nullb-guest.sh). Median IOPS,
# min-max, and the median [min-max] of the per-round ratios.
# Targets (seed: 144K -> 1353K IOPS = 9.4x at 4 KiB, 56K -> 94K = 1.7x at
# 1 MiB): ours >= 9x the sync loop at 4 KiB, >= 1.6x at 1 MiB.
# Under -icount virtual time advances with guest instructions: the ratios
# show the CPU work per discard, not device latency.
# Env: DNB_N4K (20000), DNB_N1M (2000), DNB_ROUNDS (3), DNB_QD (64), DNB_ICOUNT (1).
# Output: table on stdout, build/bench/discard-vm-nullb.md.
set -euo pipefail
cd "$(dirname "$0")/.."
n4k=${DNB_N4K:-20000} n1m=${DNB_N1M:-2000} rounds=${DNB_ROUNDS:-3} qd=${DNB_QD:-64}
icount=${DNB_ICOUNT:-1}
out=build/bench
mkdir -p "$out" build/vm-logs
. bench/icount.sh
qpath=$PATH
[ "$icount" != 1 ] || qpath=$(icount_path "$out/qemu-icount" shift=1,sleep=off)
bash scripts/kernel-build.sh
gcc -static -O2 -Wall -o "$out/discard-helper.static" bench/discard-helper.c
log=build/vm-logs/discard-vm-nullb.log
PATH=$qpath tests/vm/vm-run.sh --kernel build/kernel/bzImage --guest bench/discard-vm-nullb-guest.sh \
	--quiet --ns ctrl=0,nsid=1,size=64M,lbas=4096 --timeout 1500 --mem 2G \
	--add "$out/discard-helper.static:/usr/bin/discard-helper" --log "$log" \
	--append "dnb.n4k=$n4k dnb.n1m=$n1m dnb.rounds=$rounds dnb.qd=$qd" ||
	{ echo "discard-vm-nullb: VM run failed, log $log" >&2; exit 1; }
python3 - "$log" "$out/discard-vm-nullb.md" "$n4k" "$n1m" "$rounds" "$qd" "$icount" <<'PY'
import re, statistics, sys
log, md, n4k, n1m, rounds, qd, icount = sys.argv[1:8]
text = open(log, errors="replace").read()
sec = re.search(r"### BEGIN discard-nullb\n(.*?)### END discard-nullb", text, re.S).group(1)
rows = {}
for line in sec.splitlines():
    p = line.split()
    if len(p) == 4:
        rows.setdefault((int(p[0]), p[2]), {})[int(p[1])] = float(p[3])
names = {"ours": f"nvme-zns-npo2 discard (io_uring, QD {qd})", "sync_loop": "BLKDISCARD loop, 1 thread",
         "fio_run": f"fio randtrim io_uring QD {qd}"}
seed = {4096: ("144K", "1353K", 9.4, 9.0), 1048576: ("56K", "94K", 1.7, 1.6)}
clock = "QEMU -icount virtual time" if icount == "1" else "wall-clock time"
out = [f"null_blk (memory backed, discard=1, 4 GiB, nothing written) in the patched-kernel VM, {clock}; "
       f"{n4k} x 4 KiB / {n1m} x 1 MiB random distinct ranges, {rounds} interleaved rounds", "",
       "| size | method | median IOPS | min-max | ours / method, median [min-max] of rounds | seed |",
       "|---|---|---|---|---|---|"]
verdicts = []
for bs in (4096, 1048576):
    label = "4 KiB" if bs == 4096 else "1 MiB"
    ours = rows[(bs, "ours")]
    for m in ("ours", "sync_loop", "fio_run"):
        v = rows[(bs, m)]
        rs = [ours[r] / v[r] for r in ours if v.get(r)]
        s = {"ours": f"{seed[bs][1]} async", "sync_loop": f"{seed[bs][0]} sync", "fio_run": "-"}[m]
        out.append(f"| {label} | {names[m]} | {statistics.median(v.values()):.0f} | "
                   f"{min(v.values()):.0f}-{max(v.values()):.0f} | "
                   f"{statistics.median(rs):.2f} [{min(rs):.2f}-{max(rs):.2f}] | {s} |")
    r = statistics.median(ours[k] / rows[(bs, "sync_loop")][k] for k in ours)
    verdicts.append(f"{label}: ours/sync {r:.2f}x (target >= {seed[bs][3]}x, seed {seed[bs][2]}x): "
                    + ("MET" if r >= seed[bs][3] else "MISS"))
out += [""] + verdicts
print("\n".join(out))
open(md, "w").write("\n".join(out) + "\n")
PY

#!/bin/bash
# ublk server vs dm-po2zone vs the raw namespace, on the same emulated npo2
# ZNS namespace (QEMU, 4 KiB LBAs, 96 MiB zones = capacity, 42 zones):
#   ublk  Debian's stock kernel, ublk_drv, `nvme-zns-npo2 map --ublk` (/dev/ublkbN):
#         zero copy where the kernel has it (UBLK_F_SUPPORT_ZERO_COPY, 6.15+)
#   ublkuc on such a kernel, the same server moving data by user copy
#         (ZNP_UBLK_USER_COPY=1): zero copy / user copy in one session
#         (targets >= 1.5 on sequential write, >= 1.1 on random read); with
#         a 7.x stock kernel and the series on the same 7.x, ublk (patched) /
#         dm-po2zone >= 0.85 on random read, >= 0.90 on sequential write and
#         CPU per I/O <= 1.35 (one kernel, zero copy)
#   raw   stock kernel, fio io_uring_cmd on /dev/ngXnY (NVMe passthrough);
#         random read only: stock 6.12 keeps a hidden namespace at 255 sectors
#         per passthrough command, so 128 KiB writes fail there (EINVAL)
#   dm    patched kernel (build/kernel/bzImage), dm-po2zone over /dev/nvmeXnY
#   rawp  patched kernel, fio io_uring_cmd on /dev/ngXnY (the same namespace
#         with the limits of a visible one: a check that both sessions compare)
# fio: 4 KiB random read, iodepth 16, over zone 0 (written first), and
# 128 KiB sequential write, iodepth 4, zonemode=zbd, zones 1.. (reset before
# each run). Each round boots both kernels (order alternating), each session
# runs its two devices in alternating order. Prints medians over rounds,
# min-max spread, ratios (median of per-round ratios) and the targets:
# ublk >= 70% of dm-po2zone's IOPS on random read, >= 80% of its bandwidth on
# sequential write.
#
# usage: bench/ublk-bench.sh [BZIMAGE|none]   (default build/kernel/bzImage;
#        none: the stock kernel's sessions only, no dm-po2zone column; its
#        rows say "not run")
#        STOCK_KVER (tests/vm/vm-run.sh) picks the stock kernel, e.g. 7.3's
# env:   UBLK_BENCH_ROUNDS (3), UBLK_BENCH_RUNTIME seconds per fio run (10),
#        UBLK_BENCH_ICOUNT QEMU -icount options (shift=3,sleep=on: the
#        shift of bench/dm-perf.sh, but an idle guest's clock runs at host
#        speed while it waits for the emulated controller; "off": host
#        time), UBLK_BENCH_DIAG (1: the last
#        round also counts the server's syscalls under strace and the
#        requests per I/O; 0: no), UBLK_BENCH_OUT (build/bench/ublk-bench.txt),
#        UBLK_BENCH_RAW=FILE re-renders earlier raw results without a VM run,
#        UBLK_BENCH_TIMEOUT seconds per session (300 + 30 x runtime; more on a
#        loaded host),
#        UBLK_BENCH_BASE=BINARY a baseline nvme-zns-npo2 (another build) served
#        in turn with this one on the stock kernel ("ublk baseline" column).
# Under TCG the absolute numbers mean little; compare the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:-build/kernel/bzImage}
rounds=${UBLK_BENCH_ROUNDS:-3}
runtime=${UBLK_BENCH_RUNTIME:-10}
diag=${UBLK_BENCH_DIAG:-1}
out=${UBLK_BENCH_OUT:-build/bench/ublk-bench.txt}
icount=${UBLK_BENCH_ICOUNT:-shift=3,sleep=on}
base=${UBLK_BENCH_BASE:-}
[ -z "$base" ] || [ -x "$base" ] || { echo "ublk-bench: UBLK_BENCH_BASE $base is not an executable" >&2; exit 1; }
ns=ctrl=0,nsid=1,size=4032M,lbas=4096,zoned=1,zsze=96M,zcap=96M
mkdir -p build/bench build/vm-logs
raw=build/bench/ublk-bench.raw

if [ -n "${UBLK_BENCH_RAW:-}" ]; then
	cp "$UBLK_BENCH_RAW" "$raw.in"
	icount=re-rendered
else
	# "none": the stock kernel's columns only (no patched kernel built)
	[ "$kernel" = none ] || [ -f "$kernel" ] ||
		{ echo "ublk-bench: $kernel not found (run make kernel, or pass none)" >&2; exit 1; }
	[ -x build/nvme-zns-npo2 ] || { echo "ublk-bench: build/nvme-zns-npo2 not built (run make)" >&2; exit 1; }
	strace=$(command -v strace || true)
	[ -n "$strace" ] || diag=0
	. bench/icount.sh
	qpath=$(icount_path build/bench/qemu-icount-ublk "$icount")
	stamp=$(date +%Y%m%d-%H%M%S)
	: >"$raw.in"
	: >build/bench/ublk-bench.diag
	: >"$raw.excluded"
	# session KERNEL ROUND DIAG
	session() {
		local k=$1 r=$2 d=$3 name log adds=()
		name=$([ "$k" = stock ] && echo stock || echo patched)
		log=build/vm-logs/ublk-bench-$stamp-$name-$r.log
		if [ "$d" = 1 ]; then
			[ "$k" = stock ] && adds+=(--add "$strace")
		fi
		[ "$k" = stock ] && [ -n "$base" ] && adds+=(--add "$base:/usr/bin/nvme-zns-npo2-base")
		echo "ublk-bench: round $r/$rounds, $name kernel" >&2
		PATH=$qpath STOCK_MODULES="configfs nvme-core:io_timeout=10 nvme null_blk:nr_devices=0 dm-mod" \
			bash tests/vm/vm-run.sh --kernel "$k" --guest bench/ublk-bench-guest.sh \
			--ns "$ns" --modules "ublk_drv" ${adds[@]+"${adds[@]}"} \
			--append "UB_ROUND=$r UB_RUNTIME=$runtime UB_DIAG=$d nvme_core.io_timeout=10" \
			--timeout "${UBLK_BENCH_TIMEOUT:-$((300 + 30 * runtime))}" --log "$log" --quiet ||
			{ echo "ublk-bench: $name session of round $r failed, log $log" >&2; return 1; }
		sed -n '/^### BEGIN ublk-bench/,/^### END ublk-bench/p' "$log" |
			grep -E '^(ublk|ublkuc|ublk0|ublkp|raw|dm|rawp) ' >>"$raw.in" ||
			{ echo "ublk-bench: no results in $log" >&2; return 1; }
		grep '^excluded ' "$log" >>"$raw.excluded" || true
		grep -E '^# \[.*(ublk|dm-po2zone) ' "$log" | sed "s/^# \[[0-9.]*s\] /$name: /" | head -1 \
			>>build/bench/ublk-bench.diag
		sed -n '/^### BEGIN ublk-diag/,/^### END ublk-diag/p' "$log" | grep '^diag ' |
			sed "s/^/$name: /" >>build/bench/ublk-bench.diag || true
	}
	for r in $(seq 1 "$rounds"); do
		d=0
		[ "$r" = "$rounds" ] && d=$diag
		if [ "$kernel" = none ]; then
			session stock "$r" "$d"
		elif [ $((r % 2)) = 1 ]; then
			session stock "$r" "$d"; session "$kernel" "$r" "$d"
		else
			session "$kernel" "$r" "$d"; session stock "$r" "$d"
		fi
	done
fi
cp "$raw.in" "$raw"

rc=0
# the stock kernel's version, for the rows a run without its series cannot fill
kshort=$(echo "${STOCK_KVER:-6.12}" | cut -d. -f1,2)
python3 - "$raw" "$rounds" "$runtime" "$icount" "$kshort" <<'PY' | tee "$out" || rc=$?
import statistics, sys
path, rounds, runtime, icount, kshort = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
v = {}   # (dev, workload) -> {round: (iops, bw_kib, busy, all, srv)}
bad = 0
for line in open(path):
    f = line.split()
    dev, w, r = f[0], f[1], int(f[2])
    iops, bw, busy, allt, srv = (int(x) for x in f[3:8])
    ms = int(f[8]) if len(f) > 8 else int(runtime) * 1000
    if iops <= 0:
        print(f"no result for {dev} {w} round {r}")
        bad = 1
        continue
    v.setdefault((dev, w), {})[r] = (iops, bw, busy, allt, srv, ms)

def col(dev, w, i):
    return [x[i] for x in v.get((dev, w), {}).values()]

def cell(dev, w, i, fmt):
    xs = col(dev, w, i)
    if not xs:
        return "n/a"
    m = statistics.median(xs)
    return f"{fmt(m)} ({fmt(min(xs))}-{fmt(max(xs))})"

def ratio(a, b, w, i):
    xs = [v[(a, w)][r][i] / v[(b, w)][r][i] for r in v.get((a, w), {}) if r in v.get((b, w), {})]
    if not xs:
        return None, "n/a"
    m = statistics.median(xs)
    return m, f"{m:.2f} ({min(xs):.2f}-{max(xs):.2f})"

# guest CPU per I/O: busy ticks (1/100 s) over the run / I/Os in the run
def cpu_us(dev, w):
    xs = []
    for x in v.get((dev, w), {}).values():
        ios = x[0] * x[5] / 1000.0
        xs.append(x[2] * 10000.0 / ios)
    return f"{statistics.median(xs):.0f}" if xs else "n/a"

clock = {"off": "host time", "re-rendered": "re-rendered results"}.get(icount, f"-icount {icount} (guest time counts instructions)")
print(f"ublk vs dm-po2zone vs raw io_uring_cmd: fio, npo2 ZNS namespace 96 MiB zones (QEMU),")
print(f"{len({r for d in v.values() for r in d})} rounds x {runtime} s per run, QEMU TCG, {clock};")
print("median over rounds (min-max); ratios: median of per-round ratios (min-max)")
print()
print("| workload | ublk (stock) | ublk user copy (stock) | ublk baseline (stock) | dm-po2zone (patched) | ublk (patched) | raw ngXnY (stock) | raw ngXnY (patched) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
rows = (("randread", "4k qd16 IOPS", 0, lambda x: f"{x:.0f}"),
        ("seqwrite", "128k qd4 MiB/s", 1, lambda x: f"{x / 1024:.1f}"),
        ("randread4j", "4k 4 jobs x qd16, 2 queues, IOPS", 0, lambda x: f"{x:.0f}"))
for w, label, i, fmt in rows:
    print(f"| {w} {label} | {cell('ublk', w, i, fmt)} | {cell('ublkuc', w, i, fmt)} | {cell('ublk0', w, i, fmt)} | {cell('dm', w, i, fmt)} | "
          f"{cell('ublkp', w, i, fmt)} | {cell('raw', w, i, fmt)} | {cell('rawp', w, i, fmt)} |")
print()
print("| ratio | randread IOPS | seqwrite bandwidth | randread4j IOPS |")
print("|---|---:|---:|---:|")
pairs = (("ublk (stock) / ublk user copy (stock): zero copy, one session", "ublk", "ublkuc"),
         ("ublk user copy (stock) / raw (stock)", "ublkuc", "raw"),
         ("ublk (stock) / dm-po2zone (patched): the target", "ublk", "dm"),
         ("ublk baseline (stock) / dm-po2zone (patched)", "ublk0", "dm"),
         ("ublk (stock) / ublk baseline (stock): the change, one session", "ublk", "ublk0"),
         ("ublk (patched) / dm-po2zone (patched): one kernel, one session", "ublkp", "dm"),
         ("ublk (stock) / raw (stock)", "ublk", "raw"),
         ("dm-po2zone / raw (patched)", "dm", "rawp"),
         ("ublk (patched) / raw (patched)", "ublkp", "rawp"),
         ("raw (stock) / raw (patched): the two kernels", "raw", "rawp"))
verdict = []
have_dm = any(d == "dm" for d, _ in v)
for name, a, b in pairs:
    if b == "dm" and not have_dm:
        # no patched kernel in this run (none), or no series for this stock kernel
        print(f"| {name} | not run: needs the series on {kshort} | | |")
        continue
    print(f"| {name} | {ratio(a, b, 'randread', 0)[1]} | {ratio(a, b, 'seqwrite', 1)[1]} | "
          f"{ratio(a, b, 'randread4j', 0)[1]} |")
# zero copy over the user copy, same kernel, same session
for w, label, i, fmt in rows[:2]:
    target = 1.1 if w == "randread" else 1.5
    what = "IOPS" if w == "randread" else "bandwidth"
    m, _ = ratio("ublk", "ublkuc", w, i)
    if m is None:
        verdict.append(f"{w} {what} ublk zero copy / user copy: not run (the stock kernel has no zero copy)")
    else:
        verdict.append(f"{w} {what} ublk zero copy / user copy {m:.2f} (target >= {target:.2f}): "
                       + ("MET" if m >= target else "MISS"))
for w, label, i, fmt in rows[:2]:
    m, _ = ratio("ublk", "dm", w, i)
    target = 0.70 if w == "randread" else 0.80
    what = "IOPS" if w == "randread" else "bandwidth"
    if not have_dm:
        verdict.append(f"{w} {what} ublk / dm-po2zone: not run: needs the series on {kshort}")
        continue
    if m is None:
        verdict.append(f"{w}: no ratio")
        bad = 1
    else:
        verdict.append(f"{w} {what} ublk (stock) / dm-po2zone {m:.2f} (target >= {target:.2f}): "
                       + ("MET" if m >= target else "MISS"))
    mp, _ = ratio("ublkp", "dm", w, i)
    if mp is not None:
        verdict.append(f"{w} {what} ublk (patched) / dm-po2zone {mp:.2f} (same kernel; target >= {target:.2f}): "
                       + ("MET" if mp >= target else "MISS"))
        if kshort.startswith("7"):
            # on one 7.x kernel, with zero copy: the targets of the 7.x matrix
            t7 = 0.85 if w == "randread" else 0.90
            verdict.append(f"{w} {what} ublk (patched) / dm-po2zone {mp:.2f} (one {kshort} kernel, zero "
                           f"copy; target >= {t7:.2f}): " + ("MET" if mp >= t7 else "MISS"))
print()
print("guest CPU busy per I/O, us of guest time (median; both vCPUs, /proc/stat):")
print("| workload | ublk (stock) | ublk user copy (stock) | ublk baseline (stock) | dm-po2zone | ublk (patched) | raw (stock) | raw (patched) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for w, *_ in rows:
    print(f"| {w} | {cpu_us('ublk', w)} | {cpu_us('ublkuc', w)} | {cpu_us('ublk0', w)} | {cpu_us('dm', w)} | {cpu_us('ublkp', w)} | {cpu_us('raw', w)} | {cpu_us('rawp', w)} |")
# CPU per I/O, ublk over dm-po2zone (median of per-round ratios); targets 1.5 and 2.5
def cpu_ratio(a, b, w):
    xs = []
    for r in v.get((a, w), {}):
        if r in v.get((b, w), {}):
            x, y = v[(a, w)][r], v[(b, w)][r]
            xs.append((x[2] / (x[0] * x[5])) / (y[2] / (y[0] * y[5])))
    return statistics.median(xs) if xs else None
for w, target in (("randread", 1.5), ("seqwrite", 2.5), ("randread4j", 1.5)):
    for dev, name in (("ublk", "stock"), ("ublk0", "baseline, stock"), ("ublkp", "patched")):
        m = cpu_ratio(dev, "dm", w)
        if m is not None:
            verdict.append(f"{w} CPU per I/O ublk ({name}) / dm-po2zone {m:.2f} (target <= {target:.1f}): "
                           + ("MET" if m <= target else "MISS"))
if kshort.startswith("7"):
    for w in ("randread", "seqwrite", "randread4j"):
        m = cpu_ratio("ublkp", "dm", w)
        if m is not None:
            verdict.append(f"{w} CPU per I/O ublk (patched) / dm-po2zone {m:.2f} (one {kshort} kernel; "
                           f"target <= 1.35): " + ("MET" if m <= 1.35 else "MISS"))
for dev, name in (("ublk", "stock"), ("ublkuc", "user copy, stock"), ("ublk0", "baseline, stock"),
                  ("ublkp", "patched")):
    sh = [f"{w} {statistics.median(xs):.2f}" for w in ("randread", "seqwrite", "randread4j")
          for xs in [[x[4] / x[2] for x in v.get((dev, w), {}).values() if x[2]]] if xs]
    if sh:
        print(f"ublk server's share of the busy guest CPU ({name} kernel): " + ", ".join(sh))
print()
for x in verdict:
    print("target " + x)
sys.exit(bad)
PY
if [ -s "$raw.excluded" ] && [ -z "${UBLK_BENCH_RAW:-}" ]; then
	echo
	echo "runs excluded (the emulated controller left commands unanswered until the driver's 10 s timeout):"
	sed 's/^excluded /  /' "$raw.excluded"
fi | tee -a "$out"
if [ -s build/bench/ublk-bench.diag ] && [ -z "${UBLK_BENCH_RAW:-}" ]; then
	echo
	echo "queue layout and per-I/O counts (build/bench/ublk-bench.diag):"
	awk '!seen[$0]++' build/bench/ublk-bench.diag
fi | tee -a "$out"
exit "$rc"

#!/bin/bash
# Side-by-side discard benchmark, one run, interleaved repeats (root).
#
# A loop device backed by a file on tmpfs, N random distinct 4 KiB discards
# (same list for every method), the file re-allocated before every method:
#   ours       nvme-zns-npo2 discard --ranges LIST -q QD (io_uring BLOCK_URING_CMD_DISCARD)
#   sync       one thread, one BLKDISCARD ioctl per range (bench/discard-helper.c)
#   blkdiscard util-linux blkdiscard driven range by range (one process per range; the first
#              BD_N ranges only, it is that slow)
#   fio        fio --rw=randtrim --ioengine=io_uring --iodepth=QD, N trims
#   punch      fallocate(PUNCH_HOLE) per range on the backing file: what the loop driver does
#              per discard, without the block layer: the limit
# Each round runs every method once, in an order rotated per round; the table
# gives the median IOPS with its min-max, and the median of the per-round
# ratios with their min-max (the spread: the host is shared and noisy).
# Targets: ours >= 3.5x sync and fio (goal 4x), ours >= 60% of punch.
# Env: N (200000), ROUNDS (5), QD (64), SIZE (2G), BD_N (300), WBT (0: wbt_lat_usec of the
# loop device; the kernel default is 2000), ZNP_BIN.
# Output: the table on stdout, build/bench/discard-loop.{md,json}.
# Exit: 0 (targets met or not: see the verdict line); 1 setup/run failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${N:-200000} ROUNDS=${ROUNDS:-5} QD=${QD:-64} SIZE=${SIZE:-2G} BD_N=${BD_N:-300}
BIN=${ZNP_BIN:-$ROOT/build/nvme-zns-npo2}
OUT=$ROOT/build/bench
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "discard-loop: needs root (loop devices)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "discard-loop: $BIN missing: run make" >&2; exit 1; }
command -v fio >/dev/null || { echo "discard-loop: fio missing: run make deps" >&2; exit 1; }
gcc -O2 -Wall -o "$OUT/discard-helper" bench/discard-helper.c
HELPER=$OUT/discard-helper

WORK=$(mktemp -d /dev/shm/znp-bench.XXXXXX)
DEV=
cleanup() {
	[ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

IMG=$WORK/backing.img
truncate -s "$SIZE" "$IMG"
DEV=$(losetup -f --show "$IMG")
BYTES=$(blockdev --getsize64 "$DEV")
"$HELPER" gen "$BYTES" "$N" 4096 42 >"$WORK/ranges"
head -n "$BD_N" "$WORK/ranges" >"$WORK/ranges.bd"
Q=/sys/block/${DEV#/dev/}/queue
# Write-back throttling caps discards in flight at its background limit and
# makes a non-blocking submitter fall back to a worker thread: it measures
# wbt, not the submission method. Off for every method (our own loop device).
WBT=${WBT:-0}
[ -w "$Q/wbt_lat_usec" ] && echo "$WBT" >"$Q/wbt_lat_usec"

refill() { fallocate -l "$SIZE" "$IMG"; sync; }

ours() {
	"$BIN" discard "$DEV" --ranges "$WORK/ranges" --force -q "$QD" -o json >"$WORK/ours.json"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]
assert r["completed"] == int(sys.argv[2]) and r["engine"] == "io_uring-discard", r
print("%.0f" % r["iops"])' "$WORK/ours.json" "$N"
}
sync_loop() { "$HELPER" sync "$DEV" "$WORK/ranges" | awk '{print $3}'; }
punch() { "$HELPER" punch "$IMG" "$WORK/ranges" | awk '{print $3}'; }
blkdiscard_loop() {
	local t0 t1 off len
	t0=$(date +%s.%N)
	while read -r off len; do
		blkdiscard -o "$off" -l "$len" "$DEV" 2>/dev/null
	done <"$WORK/ranges.bd"
	t1=$(date +%s.%N)
	python3 -c "print('%.0f' % ($BD_N / ($t1 - $t0)))"
}
fio_run() {
	fio --name=randtrim --filename="$DEV" --rw=randtrim --bs=4k --ioengine=io_uring \
		--iodepth="$QD" --direct=1 --number_ios="$N" --size="$SIZE" \
		--output-format=json >"$WORK/fio.json" 2>/dev/null
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]["trim"]
print("%.0f" % j["iops"])' "$WORK/fio.json"
}

METHODS=(ours sync_loop blkdiscard_loop fio_run punch)
: >"$WORK/results"
echo "# discard-loop: $N random 4 KiB discards, loop on tmpfs ($SIZE), QD $QD, $ROUNDS rounds," \
	"kernel $(uname -r), wbt_lat_usec $(cat "$Q/wbt_lat_usec" 2>/dev/null || echo n/a)"
for r in $(seq 1 "$ROUNDS"); do
	line="round $r:"
	for i in "${!METHODS[@]}"; do
		m=${METHODS[$(((i + r) % ${#METHODS[@]}))]}
		refill
		v=$($m) || { echo "discard-loop: $m failed" >&2; exit 1; }
		echo "$r $m $v" >>"$WORK/results"
		line+=" $m=$v"
	done
	echo "# $line"
done

python3 - "$WORK/results" "$OUT" "$N" "$QD" "$ROUNDS" "$BD_N" <<'EOF'
import json, statistics, sys
res, out, n, qd, rounds, bd_n = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
rows = {}
for line in open(res):
    r, m, v = line.split()
    rows.setdefault(m, {})[int(r)] = float(v)
names = {"ours": "nvme-zns-npo2 discard (io_uring, QD %s)" % qd,
         "sync_loop": "BLKDISCARD loop, 1 thread",
         "blkdiscard_loop": "util-linux blkdiscard per range (%s ranges)" % bd_n,
         "fio_run": "fio 3.33 randtrim io_uring QD %s" % qd,
         "punch": "fallocate punch-hole on the backing file (limit)"}
med = {m: statistics.median(v.values()) for m, v in rows.items()}
def ratios(m):
    return [rows["ours"][r] / rows[m][r] for r in rows["ours"]]
def ratio(m):
    return statistics.median(ratios(m))
lines = ["| method | median IOPS | min-max | ours / method, median [min-max] of rounds |", "|---|---|---|---|"]
for m in ["ours", "sync_loop", "blkdiscard_loop", "fio_run", "punch"]:
    v = rows[m].values()
    rs = ratios(m)
    lines.append("| %s | %.0f | %.0f-%.0f | %.2f [%.2f-%.2f] |" % (names[m], med[m], min(v), max(v), ratio(m), min(rs), max(rs)))
r_sync, r_fio, r_punch = ratio("sync_loop"), ratio("fio_run"), ratio("punch")
ok = r_sync >= 3.5 and r_fio >= 3.5 and r_punch >= 0.6
lines.append("")
lines.append("verdict: %s (targets: >= 3.5x sync loop [%.2fx], >= 3.5x fio [%.2fx], >= 60%% of punch-hole [%.0f%%]; goal 4x)"
             % ("MET" if ok else "MISS", r_sync, r_fio, 100 * r_punch))
text = "\n".join(lines)
print(text)
open(out + "/discard-loop.md", "w").write(text + "\n")
json.dump({"n": n, "qd": int(qd), "rounds": rounds, "iops": rows, "median_iops": med,
           "ratio_vs_sync": r_sync, "ratio_vs_fio": r_fio, "ratio_vs_punch": r_punch,
           "targets_met": ok}, open(out + "/discard-loop.json", "w"), indent=1)
EOF

#!/bin/bash
# dm-po2zone overhead: fio io_uring 4 KiB (randread and sequential write,
# iodepth 16) on one npo2 null_blk (1536 MiB zones, not memory backed),
# directly, through dm-linear and through dm-po2zone, in one VM session with
# the rounds interleaved, in instruction-counted guest time. Prints the
# median IOPS of each and the ratios.
#
# usage: bench/dm-perf.sh [BZIMAGE]   (default build/kernel/bzImage)
# env:   DM_PERF_ROUNDS (5), DM_PERF_RUNTIME seconds per run (2),
#        DM_PERF_ICOUNT QEMU -icount options (shift=3,sleep=off; "off": host time),
#        DM_PERF_OUT report file (build/bench/dm-perf.txt),
#        DM_PERF_RAW=FILE re-renders earlier raw results without a VM run
# Numbers come from a TCG-emulated CPU whose clock counts instructions
# (-icount): they compare the work per I/O; compare the ratios, not the IOPS.
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:-build/kernel/bzImage}
rounds=${DM_PERF_ROUNDS:-5}
runtime=${DM_PERF_RUNTIME:-2}
out=${DM_PERF_OUT:-build/bench/dm-perf.txt}
[ -f "$kernel" ] || { echo "dm-perf: $kernel not found (run make kernel)" >&2; exit 1; }
mkdir -p build/bench build/vm-logs
log=build/vm-logs/dm-perf-$(date +%Y%m%d-%H%M%S).log

timeout=$((120 + rounds * 6 * (runtime + 6)))
if [ -n "${DM_PERF_RAW:-}" ]; then
	# re-render earlier results (lines: DEVICE WORKLOAD ROUND IOPS)
	{ echo "### BEGIN dm-perf"; cat "$DM_PERF_RAW"; echo "### END dm-perf"; } >build/bench/dm-perf.raw.in
	log=build/bench/dm-perf.raw.in
else
# Instruction-counted time (QEMU -icount, fixed shift, no sleep): the guest
# clock advances with the instructions it executes, so IOPS measure the
# work per I/O and not how much CPU the busy host lends the emulator.
# DM_PERF_ICOUNT=off measures in host time instead.
icount=${DM_PERF_ICOUNT:-shift=3,sleep=off}
. bench/icount.sh
PATH=$(icount_path build/bench/qemu-icount "$icount")
tests/vm/vm-run.sh --kernel "$kernel" --guest tests/vm/patched-dm/perf.sh \
	--ns ctrl=0,nsid=1,size=64M,lbas=4096 \
	--append "null_blk.nr_devices=0 DM_PERF_ROUNDS=$rounds DM_PERF_RUNTIME=$runtime" \
	--timeout "$timeout" --log "$log" --quiet >/dev/null ||
	{ echo "dm-perf: VM run failed, log $log" >&2; exit 1; }
fi

sed -n '/^### BEGIN dm-perf/,/^### END dm-perf/p' "$log" | tr -d '\r' |
	grep -E '^(raw|linear|po2zone) ' >build/bench/dm-perf.raw ||
	{ echo "dm-perf: no results in $log" >&2; exit 1; }

awk -v rounds="$rounds" -v runtime="$runtime" -v icount="${icount:-}" '
function median(arr, n,   i, j, t, a) {
	for (i = 1; i <= n; i++) a[i] = arr[i]
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# median over rounds of a per-round value: IOPS of D, or IOPS of D / IOPS of E
function med(w, d, e,   r, n, x) {
	n = 0
	for (r = 1; r <= rounds; r++) {
		if (!((d, w, r) in v) || (e != "" && !((e, w, r) in v))) continue
		x[++n] = e == "" ? v[d, w, r] : v[d, w, r] / v[e, w, r]
	}
	return n ? median(x, n) : 0
}
{
	v[$1, $2, $3] = $4
	if ($4 + 0 <= 0) { printf "no IOPS for %s %s round %s\n", $1, $2, $3; bad = 1 }
}
END {
	printf "dm-po2zone overhead: fio io_uring bs=4k iodepth=16, npo2 null_blk (1536 MiB zones),\n"
	printf "one VM session, QEMU TCG, %s;\n%d rounds of %d s per device, order rotated; ",
		icount == "" ? "re-rendered results" : icount == "off" ? "host time" : "-icount " icount \
		" (guest time counts instructions)", rounds, runtime
	printf "IOPS: median over rounds;\nratios: median of the per-round ratios\n\n"
	printf "| workload | raw null_blk | dm-linear | dm-po2zone | po2zone/linear | po2zone/raw | linear/raw |\n"
	printf "|---|---:|---:|---:|---:|---:|---:|\n"
	split("randread seqwrite", w, " ")
	for (i = 1; i <= 2; i++) {
		r = med(w[i], "raw", ""); l = med(w[i], "linear", ""); p = med(w[i], "po2zone", "")
		if (!r || !l || !p) { printf "missing results for %s\n", w[i]; bad = 1; continue }
		pl = med(w[i], "po2zone", "linear")
		printf "| %s | %.0f | %.0f | %.0f | %.3f | %.3f | %.3f |\n", w[i], r, l, p, pl,
			med(w[i], "po2zone", "raw"), med(w[i], "linear", "raw")
		verdict[i] = sprintf("%s %s (%+.1f%%)", w[i], pl >= 0.97 ? "MET" : "MISS", (pl - 1) * 100)
	}
	printf "\ntarget dm-po2zone within 3%% of dm-linear: %s, %s\n", verdict[1], verdict[2]
	exit bad
}' build/bench/dm-perf.raw | tee "$out"

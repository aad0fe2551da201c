#!/bin/bash
# dm-po2zone overhead: fio io_uring 4 KiB (randread and sequential write,
# iodepth 16) on one npo2 null_blk (1536 MiB zones, not memory backed),
# directly, through dm-linear and through dm-po2zone, in one VM session with
# the rounds interleaved. Prints the median IOPS of each and the ratios.
#
# usage: bench/dm-perf.sh [BZIMAGE]   (default build/kernel/bzImage)
# env:   DM_PERF_ROUNDS (3), DM_PERF_RUNTIME seconds per run (4),
#        DM_PERF_OUT report file (build/bench/dm-perf.txt)
# Numbers come from a TCG-emulated CPU: compare the ratios, not the IOPS.
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:-build/kernel/bzImage}
rounds=${DM_PERF_ROUNDS:-3}
runtime=${DM_PERF_RUNTIME:-4}
out=${DM_PERF_OUT:-build/bench/dm-perf.txt}
[ -f "$kernel" ] || { echo "dm-perf: $kernel not found (run make kernel)" >&2; exit 1; }
mkdir -p build/bench build/vm-logs
log=build/vm-logs/dm-perf-$(date +%Y%m%d-%H%M%S).log

timeout=$((120 + rounds * 6 * (runtime + 6)))
tests/vm/vm-run.sh --kernel "$kernel" --guest tests/vm/patched-dm/perf.sh \
	--ns ctrl=0,nsid=1,size=64M,lbas=4096 \
	--append "null_blk.nr_devices=0 DM_PERF_ROUNDS=$rounds DM_PERF_RUNTIME=$runtime" \
	--timeout "$timeout" --log "$log" --quiet >/dev/null ||
	{ echo "dm-perf: VM run failed, log $log" >&2; exit 1; }

sed -n '/^### BEGIN dm-perf/,/^### END dm-perf/p' "$log" | tr -d '\r' |
	grep -E '^(raw|linear|po2zone) ' >build/bench/dm-perf.raw ||
	{ echo "dm-perf: no results in $log" >&2; exit 1; }

awk -v rounds="$rounds" -v runtime="$runtime" '
function median(key,   n, i, j, t, a) {
	n = cnt[key]
	for (i = 1; i <= n; i++) a[i] = v[key, i]
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ key = $1 SUBSEP $2; cnt[key]++; v[key, cnt[key]] = $4 }
END {
	printf "dm-po2zone overhead: fio io_uring bs=4k iodepth=16, npo2 null_blk (1536 MiB zones),\n"
	printf "one VM session (QEMU TCG), %d interleaved rounds of %d s, median IOPS\n\n", rounds, runtime
	printf "| workload | raw null_blk | dm-linear | dm-po2zone | po2zone/linear | po2zone/raw | linear/raw |\n"
	printf "|---|---:|---:|---:|---:|---:|---:|\n"
	split("randread seqwrite", w, " ")
	for (i = 1; i <= 2; i++) {
		r = median("raw" SUBSEP w[i]); l = median("linear" SUBSEP w[i])
		p = median("po2zone" SUBSEP w[i])
		if (!r || !l || !p) { printf "missing results for %s\n", w[i]; bad = 1; continue }
		printf "| %s | %.0f | %.0f | %.0f | %.3f | %.3f | %.3f |\n", w[i], r, l, p, p / l, p / r, l / r
	}
	exit bad
}' build/bench/dm-perf.raw | tee "$out"

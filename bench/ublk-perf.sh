#!/bin/bash
# ublk server vs dm-po2zone: fio 4 KiB random read (iodepth 16) and 128 KiB
# sequential write (iodepth 4, --zonemode=zbd) on one emulated npo2 ZNS
# namespace (QEMU, 96 MiB zones): through the ublk device on Debian's stock
# kernel, through dm-po2zone on the patched kernel (build/kernel/bzImage),
# and raw through fio's io_uring_cmd engine on /dev/ngXnY on both; the same
# -icount setting for both boots. Prints the medians and the ratios.
#
# usage: bench/ublk-perf.sh [BZIMAGE]   (default build/kernel/bzImage)
# env:   UBLK_PERF_ROUNDS (5), UBLK_PERF_RUNTIME seconds per run (3),
#        UBLK_PERF_ICOUNT QEMU -icount options (shift=3; "off": host time),
#        UBLK_PERF_OUT report file (build/bench/ublk-perf.txt)
# Targets: ublk >= 70% of dm-po2zone's randread IOPS, >= 80% of its seqwrite
# bandwidth. Numbers come from a TCG-emulated CPU whose clock counts
# instructions (and host time while idle): they compare the work per I/O on
# an emulated drive, not real hardware speed.
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:-build/kernel/bzImage}
rounds=${UBLK_PERF_ROUNDS:-5}
runtime=${UBLK_PERF_RUNTIME:-3}
out=${UBLK_PERF_OUT:-build/bench/ublk-perf.txt}
[ -f "$kernel" ] || { echo "ublk-perf: $kernel not found (run make kernel)" >&2; exit 1; }
mkdir -p build/bench build/vm-logs
# -icount shift=3 with sleep on: CPU work is counted in instructions, and
# while the guest waits for the emulated drive (QEMU's host I/O) its clock
# runs at host speed. sleep=off would jump the clock to the next timer
# deadline on every wait: I/O latency becomes timer ticks, NVMe commands
# time out (fio sees EINTR) and the figures scatter tenfold between rounds.
icount=${UBLK_PERF_ICOUNT:-shift=3}
if [ "$icount" != off ]; then
	wrap=build/bench/qemu-icount
	mkdir -p "$wrap"
	real=$(command -v qemu-system-x86_64)
	printf '#!/bin/sh\nexec %s -icount %s "$@"\n' "$real" "$icount" >"$wrap/qemu-system-x86_64"
	chmod +x "$wrap/qemu-system-x86_64"
	PATH=$PWD/$wrap:$PATH
fi
timeout=$((240 + rounds * 120))
: >build/bench/ublk-perf.raw
for k in stock "$kernel"; do
	log=build/vm-logs/ublk-perf-$(basename "$k")-$(date +%Y%m%d-%H%M%S).log
	mods=()
	[ "$k" = stock ] && mods=(--modules ublk_drv)
	tests/vm/vm-run.sh --kernel "$k" --guest bench/ublk-perf-guest.sh \
		--ns ctrl=0,nsid=1,size=1G,lbas=4096,zoned=1,zsze=96M,zcap=96M "${mods[@]}" \
		--append "UBLK_PERF_ROUNDS=$rounds UBLK_PERF_RUNTIME=$runtime" \
		--timeout "$timeout" --log "$log" --quiet >/dev/null ||
		{ echo "ublk-perf: VM run on $k failed, log $log" >&2; exit 1; }
	sed -n '/^### BEGIN ublk-perf/,/^### END ublk-perf/p' "$log" | tr -d '\r' |
		grep -E '^(raw|ublk|dm) ' | sed "s/^raw /raw-$([ "$k" = stock ] && echo stock || echo patched) /" \
		>>build/bench/ublk-perf.raw
done

awk -v rounds="$rounds" -v runtime="$runtime" -v icount="$icount" '
function median(arr, n,   i, j, t, a) {
	for (i = 1; i <= n; i++) a[i] = arr[i]
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function med(w, d,   r, n, x) {
	n = 0
	for (r = 1; r <= rounds; r++)
		if ((d, w, r) in v) x[++n] = v[d, w, r]
	return n ? median(x, n) : 0
}
# a failed fio run leaves its round out (said so); a cell without any result fails
{
	if ($4 + 0 > 0) v[$1, $2, $3] = $4
	else printf "no result for %s %s round %s (fio failed; see the guest log)\n", $1, $2, $3
}
END {
	printf "ublk server vs dm-po2zone on one npo2 ZNS namespace (QEMU, 96 MiB zones),\n"
	printf "QEMU TCG %s; median of %d rounds.\n", icount == "off" ? "host time" : "-icount " icount, rounds
	printf "randread: fio 4 KiB iodepth 16, IOPS; seqwrite: fio 128 KiB iodepth 4 (zbd on the po2\n"
	printf "devices), MiB/s; each run %s s, time based\n\n", runtime
	printf "| workload | ublk (stock) | dm-po2zone (patched) | raw ng (stock) | raw ng (patched) | ublk/dm | ublk/raw stock | dm/raw patched |\n"
	printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
	split("randread seqwrite", w, " ")
	for (i = 1; i <= 2; i++) {
		div = w[i] == "seqwrite" ? 1024 : 1
		u = med(w[i], "ublk") / div; d = med(w[i], "dm") / div
		rs = med(w[i], "raw-stock") / div; rp = med(w[i], "raw-patched") / div
		if (!u || !d) { printf "missing results for %s\n", w[i]; bad = 1; continue }
		printf "| %s | %.0f | %.0f | %s | %s | %.3f | %s | %s |\n", w[i], u, d,
			rs ? sprintf("%.0f", rs) : "n/a (255-sector limit)", rp ? sprintf("%.0f", rp) : "-",
			u / d, rs ? sprintf("%.3f", u / rs) : "-", rp ? sprintf("%.3f", d / rp) : "-"
		tgt = w[i] == "randread" ? 0.70 : 0.80
		verdict[i] = sprintf("%s %s (%.0f%% of dm-po2zone, target %.0f%%)", w[i],
			u / d >= tgt ? "MET" : "MISS", u / d * 100, tgt * 100)
	}
	printf "\n%s\n%s\n", verdict[1], verdict[2]
	exit bad
}' build/bench/ublk-perf.raw | tee "$out"

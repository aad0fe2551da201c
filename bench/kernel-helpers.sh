#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Native per-I/O cost of the zone helpers of the kernel series on the host
# CPU (part of `make bench`): bench/zone-helpers.c runs the helper calls of
# one zoned write in 6.12 (split, straddle check, conventional-zone check,
# write-plug lookup, sequential check, completion lookups) with a po2 zone
# size (shift/mask fast path), npo2 zone sizes with the 64-bit division of
# "block: make the zone number and zone offset helpers npo2-generic", and
# npo2 with the reciprocal cached in the queue limits by "block: divide by a
# cached reciprocal of a non-power-of-2 zone size" (patch 22:
# a multiplication, the quotient checked against the zone size, a division
# only when the check fails). Reported as ns per
# I/O above the empty loop and as a share of a 1M IOPS budget (1000 ns per
# I/O); the 0.5% target is printed as OK or MISS. Unlike bench/kernel-perf.sh
# (QEMU -icount: every instruction costs the same, so a division looks as
# cheap as a shift) this measures real instruction latencies, on a machine
# that may be busy: each figure is the minimum over interleaved runs.
#
# Environment: ZH_IOS (I/Os per run, default 200000), ZH_RUNS (default 151):
# many short runs, so that the minimum finds runs no other process disturbed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/bench
mkdir -p "$out"

# The harness must use the series' expressions: fail if the patch no longer
# contains them (the harness then needs updating).
want=(
	'return sector >> ilog2(zone_sectors);'
	'return div_u64(sector, zone_sectors);'
	'return sector & ((sector_t)zone_sectors - 1);'
	'div_u64_rem(sector, zone_sectors, &offset);'
	'lim->zone_recip = div_u64(U64_MAX, lim->chunk_sectors) + 1;'
	'u64 q = mul_u64_u64_shr(sector, READ_ONCE(lim->zone_recip), 64);'
	'if (likely(!check_mul_overflow(q, (u64)zone_sectors, &start) &&'
	'start <= sector && sector - start < zone_sectors))'
	'return blk_zone_npo2_div_slow(sector, zone_sectors);'
)
added=$(grep -h '^+' kernel-patches/*.patch)
for w in "${want[@]}"; do
	grep -qF -- "$w" <<<"$added" || {
		echo "kernel-helpers: the series no longer has '$w': update bench/zone-helpers.c" >&2
		exit 1
	}
	grep -qF -- "$w" bench/zone-helpers.c || {
		echo "kernel-helpers: bench/zone-helpers.c lacks '$w'" >&2
		exit 1
	}
done

gcc -O2 -Wall -Wextra -Werror -o "$out/zone-helpers" bench/zone-helpers.c
raw=$out/zone-helpers.raw
nice -n 10 "$out/zone-helpers" "${ZH_IOS:-200000}" "${ZH_RUNS:-151}" >"$raw" || {
	echo "kernel-helpers: harness failed (reciprocal check?)" >&2
	exit 1
}
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)

awk -v cpu="$cpu" '
	function ispo2(x) { x += 0; while (x > 1 && x % 2 == 0) x /= 2; return x == 1 }
	$1 == "none" { base = $4; next }
	$1 == "check" { next }
	{ key = $1 " " $2; t[key, $3] = $4; if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
	END {
		printf "### Zone helper cost per write I/O, native (%s)\n\n", cpu
		printf "Minimum over interleaved runs, empty-loop time (%.2f ns) subtracted; share of a 1M IOPS budget (1000 ns per I/O).\n\n", base
		printf "| helpers | zone size (sectors) | split | straddle | conv | plug | seq | endio | whole path ns/I/O | share of 1000 ns | target 0.5%% |\n"
		printf "|---|---|---|---|---|---|---|---|---|---|---|\n"
		for (i = 0; i < n; i++) {
			split(order[i], k, " ")
			name = k[1] == "recip" ? "npo2, cached reciprocal" : (ispo2(k[2]) ? "po2 (shift/mask)" : "npo2 (division)")
			all = t[order[i], "all"] - base; if (all < 0) all = 0
			printf "| %s | %s |", name, k[2]
			ns = split("split straddle conv plug seq endio", st, " ")
			for (j = 1; j <= ns; j++) { v = t[order[i], st[j]] - base; printf " %.1f |", v < 0 ? 0 : v }
			printf " %.1f | %.2f%% | %s |\n", all, all / 10, all / 10 <= 0.5 ? "OK" : "MISS"
			if (k[1] == "div" && ispo2(k[2])) po2 = all
			if (k[1] == "div" && !ispo2(k[2])) { d[k[2]] = all }
			if (k[1] == "recip") { r[k[2]] = all }
		}
		printf "\nnpo2 cost over po2 (what the series adds per I/O):\n\n"
		for (z in d)
			printf "- zone size %s sectors: division +%.1f ns (%.2f%% of 1000 ns, %s), cached reciprocal +%.1f ns (%.2f%%, %s)\n", z,
				d[z] - po2, (d[z] - po2) / 10, (d[z] - po2) / 10 <= 0.5 ? "OK" : "MISS",
				r[z] - po2, (r[z] - po2) / 10, (r[z] - po2) / 10 <= 0.5 ? "OK" : "MISS"
		printf "\nSingle steps overlap with the loop (out-of-order execution hides one division whose result is not on the critical path); the whole path is the figure that counts.\n"
	}' "$raw" >"$out/zone-helpers.md"
cat "$out/zone-helpers.md"

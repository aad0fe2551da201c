#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Test harness, not the package: QEMU 7.2 keeps an emulated zoned
# namespace's zone states in memory only, so each QEMU run starts with every
# zone empty, as no drive does. At shutdown (after the ublk server stopped)
# `save` records the write pointers of the test's namespace (znp.zones=C:N
# on the kernel command line: the controller with serial znsnpo2-cC, NSID
# N; 1:1, the ublk route's, when absent); at boot (before zns-npo2-restore.service)
# `replay` reads each recorded zone's written LBAs back and writes the same
# data again from the zone start, so that the write pointers are where the
# previous run left them. The data never changes: QEMU reads what its
# backing file holds.
set -u
zns=$(sed -n 's/.*znp\.zones=\([0-9]*:[0-9]*\).*/\1/p' /proc/cmdline)
zns=${zns:-1:1}
# one state file per namespace: the stock and the patched boots keep theirs
state=/var/lib/znp-test/zones-${zns/:/-}
ng_of() {
	local c d
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$c/serial" 2>/dev/null)" = "znsnpo2-c${zns%:*}" ] || continue
		for d in "$c"/nvme*n*; do
			[ "$(cat "$d/nsid" 2>/dev/null)" = "${zns#*:}" ] && { echo "/dev/ng${c##*nvme}n${d##*n}"; return 0; }
		done
	done
	return 1
}
# the controllers are probed in parallel, slowly under TCG: wait for the node
ng=
while [ "$SECONDS" -lt 300 ]; do ng=$(ng_of) && [ -c "$ng" ] && break; ng=; sleep 1; done
[ -n "$ng" ] || { echo "zone-state: no namespace znsnpo2-c${zns%:*}/${zns#*:} after ${SECONDS} s" >&2; exit 1; }
echo "zone-state: $ng found after ${SECONDS} s"
# "SLBA: 0x0 WP: 0x1000 Cap: 0x3000 State: ..." -> "slba wp" in decimal
zones() {
	local s w
	nvme zns report-zones "$ng" | awk '/SLBA:/ { print $2, $4 }' |
		while read -r s w; do echo $((s)) $((w)); done
}
case "$1" in
save)
	mkdir -p "${state%/*}"
	zones >"$state.tmp" && mv "$state.tmp" "$state"
	echo "zone-state: saved $(awk '$2 > $1' "$state" | wc -l) written zones of $ng"
	;;
replay)
	[ -s "$state" ] || exit 0
	# 31 LBAs (124 KiB) a command: the stock kernel gives the hidden
	# namespace's queue no limits of its own, so passthrough keeps the
	# default 255-sector maximum (a 512 KiB command failed)
	chunk=31 n=0 t=/run/zone-state.chunk
	while read -r slba wp; do
		[ "$wp" -gt "$slba" ] || continue
		cur=$(zones | awk -v s="$slba" '$1 == s { print $2 }')
		[ "$cur" = "$slba" ] || continue	# kept its write pointer
		lba=$slba
		while [ "$lba" -lt "$wp" ]; do
			c=$((wp - lba < chunk ? wp - lba : chunk))
			nvme read "$ng" -s "$lba" -c $((c - 1)) -z $((c * 4096)) -d "$t" >/run/zone-state.out 2>&1 &&
				nvme write "$ng" -s "$lba" -c $((c - 1)) -z $((c * 4096)) -d "$t" >/run/zone-state.out 2>&1 ||
				{ echo "zone-state: replay of $c LBAs at $lba failed: $(tr '\n' ' ' </run/zone-state.out)" >&2; exit 1; }
			lba=$((lba + c)) n=$((n + c))
		done
	done <"$state"
	echo "zone-state: replayed $n LBAs of $ng"
	;;
esac

# SPDX-License-Identifier: GPL-2.0-or-later
# Host-side helpers of the VM test layers (tests/layers.d/NN-vm-*.sh; bash,
# sourced from the repository root). Every VM layer reports through these:
# the guest's result lines, one summary line per boot, the totals of a
# layer with several boots.

# layer_lines LOG [PREFIX]: the guest's result lines (ok, not ok, #) from
# the console LOG, each after PREFIX
layer_lines() {
	grep -aE '^(ok|not ok|#)' "$1" | grep -av '^### ' | sed "s/^/${2:-}/" || true
}

# layer_guest_result LOG: "GUEST-RESULT: P passed, F failed", the counts of
# every boot of the run added (a run with vm-run.sh --reboots has one line
# per boot); nothing when there is no such line
layer_guest_result() {
	grep -a '^GUEST-RESULT: ' "$1" 2>/dev/null |
		sed -nE 's/^GUEST-RESULT: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' |
		awk '{ p += $1; f += $2; n++ } END { if (n) printf "GUEST-RESULT: %d passed, %d failed", p, f }'
}

# layer_result LAYER LOG RC START [HOST_RC]: the summary of one boot:
# "LAYER: GUEST-RESULT: P passed, F failed[, host pass|FAIL], S s" with the
# seconds since START, then the console log. RC is tests/vm/vm-run.sh's exit
# status, HOST_RC that of host-side checks of the same run, if any.
# Returns 1 if either is not 0.
layer_result() {
	local layer=$1 log=$2 rc=$3 start=$4 host=${5:-} h=
	[ -z "$host" ] || h=", host $([ "$host" -eq 0 ] && echo pass || echo FAIL)"
	echo "$layer: $(layer_guest_result "$log")$h, $((SECONDS - start)) s"
	if [ "$rc" -ne 0 ] || [ "${host:-0}" -ne 0 ]; then
		echo "$layer: FAILED; console log: $log"
		return 1
	fi
	echo "$layer: console log: $log"
}

# layer_report LAYER LOG RC START [HOST_RC]: layer_lines, then layer_result
layer_report() {
	layer_lines "$2"
	layer_result "$@"
}

# layer_boot LAYER NAME LOG VM_RUN_ARGS...: one boot, tests/vm/vm-run.sh
# VM_RUN_ARGS --log LOG, reported by layer_report as "LAYER (NAME)".
# Returns 1 if the boot failed.
layer_boot() {
	local layer=$1 name=$2 log=$3 start=$SECONDS rc=0
	shift 3
	tests/vm/vm-run.sh "$@" --log "$log" || rc=$?
	layer_report "$layer ($name)" "$log" $rc $start
}

# layer_kernels LAYER STEM RUN: the layer's boot on each stock kernel named
# by ZNP_UBLK_KERNELS (default "6.12 7": Debian 12's 6.12 and the newest 7.x
# of Debian 13, see layer_stock_kdir). RUN LOG is called with STOCK_KDIR
# exported and runs tests/vm/vm-run.sh --kernel stock ... --log LOG; each
# boot's "# SUMMARY" lines are printed and the boot is reported as
# "LAYER (K: KVER)", then the totals. Returns 1 if any
# boot failed or a kernel could not be had.
layer_kernels() {
	local layer=$1 stem=$2 run=$3 k kdir log kstart vm rc=0 start=$SECONDS logs=()
	for k in ${ZNP_UBLK_KERNELS:-6.12 7}; do
		kdir=$(layer_stock_kdir "$layer" "$k") || { rc=1; continue; }
		log=build/vm-logs/$stem-$k-$(date +%Y%m%d-%H%M%S).log
		logs+=("$log")
		kstart=$SECONDS
		export STOCK_KDIR=$kdir
		"$run" "$log"
		vm=$?
		unset STOCK_KDIR
		grep -a '^# SUMMARY' "$log" | sed 's/^# //'
		layer_report "$layer ($k${kdir:+: $(basename "$kdir")})" "$log" $vm $kstart || rc=1
	done
	echo "$layer: $(layer_totals "${logs[@]}"), $((SECONDS - start)) s"
	return $rc
}

# layer_totals LOG...: "P guest checks passed, F failed", summed over the
# GUEST-RESULT lines of the console logs (a missing log or line counts 0)
layer_totals() {
	local l r p f tot_p=0 tot_f=0
	for l in "$@"; do
		r=$(layer_guest_result "$l")
		p=$(echo "$r" | sed -nE 's/GUEST-RESULT: ([0-9]+) passed.*/\1/p')
		f=$(echo "$r" | sed -nE 's/.* ([0-9]+) failed.*/\1/p')
		tot_p=$((tot_p + ${p:-0})) tot_f=$((tot_f + ${f:-0}))
	done
	echo "$tot_p guest checks passed, $tot_f failed"
}

# layer_btrfs_tools LAYER: append "--add PATH:/usr/bin/TOOL" for mkfs.btrfs
# and btrfs to the caller's array "adds"; a missing tool ends the layer
layer_btrfs_tools() {
	local t p
	for t in mkfs.btrfs btrfs; do
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v $t) ||
			{ echo "$1: $t not installed (make deps: btrfs-progs)" >&2; exit 1; }
		adds+=(--add "$p:/usr/bin/$t")
	done
}

# layer_stock_kdir LAYER NAME: the directory of Debian's stock kernel NAME
# (7: the newest 7.x of Debian 13, 6.1: Debian 12's default) unpacked by
# scripts/stock-kernel.sh (fetched now if `make deps` has not), for
# vm-run.sh's STOCK_KDIR; NAME 6.12: empty (the kernel `make deps`
# installs). Prints "LAYER: kernel NAME is KVER" on stderr, so that the
# layer's log records the version used. Returns 1 if it cannot be had.
layer_stock_kdir() {
	local layer=$1 name=$2 line
	if [ "$name" = 6.12 ]; then
		echo "$layer: kernel 6.12 is Debian 12's installed one" >&2
		return 0
	fi
	line=$(bash scripts/stock-kernel.sh --cached "$name") || {
		echo "$layer: Debian's stock kernel $name cannot be fetched (scripts/stock-kernel.sh)" >&2
		return 1
	}
	set -- $line
	echo "$layer: kernel $name is $2 ($3)" >&2
	echo "$3"
}

# layer_patched_kernel LAYER: set the caller's variable "img" to the patched
# kernel the layer boots. By default build/kernel/bzImage, built (or found up
# to date) by scripts/kernel-build.sh. ZNP_PATCHED_KERNEL=PATH boots that
# image instead, as it is, nothing is built (an image of the same series,
# built elsewhere). Returns 1 if there is no image.
layer_patched_kernel() {
	if [ -n "${ZNP_PATCHED_KERNEL:-}" ]; then
		img=$ZNP_PATCHED_KERNEL
		[ -s "$img" ] || { echo "$1: ZNP_PATCHED_KERNEL=$img not found" >&2; return 1; }
		echo "$1: booting $img (ZNP_PATCHED_KERNEL)" >&2
		return 0
	fi
	bash scripts/kernel-build.sh || return 1
	img=build/kernel/bzImage
}

# layer_pair LISTEN CONNECT: two tests/vm/vm-run.sh runs on one QEMU socket
# network at a free port of 127.0.0.1; LISTEN and CONNECT name arrays of
# their vm-run.sh arguments (without --net). The first run listens; the
# second starts once the first's QEMU listens (it connects at its start,
# and a probe connection would be taken as the peer). Sets pair_lrc and
# pair_crc to their exit statuses (1: a run that could not start).
layer_pair() {
	local -n pair_l=$1 pair_c=$2
	local port i=0 lpid
	pair_lrc=1 pair_crc=1
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
		return 0
	# a socket in state LISTEN (0A) on 127.0.0.1:port
	listening() { grep -qE "^ *[0-9]+: 0100007F:$(printf %04X "$port") 00000000:0000 0A " /proc/net/tcp; }
	tests/vm/vm-run.sh "${pair_l[@]}" --net "listen=127.0.0.1:$port" &
	lpid=$!
	until listening || ! kill -0 $lpid 2>/dev/null || [ $i -ge 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if listening; then
		tests/vm/vm-run.sh "${pair_c[@]}" --net "connect=127.0.0.1:$port"
		pair_crc=$?
	else
		echo "layer_pair: the listening run's QEMU does not listen on port $port" >&2
		kill $lpid 2>/dev/null
	fi
	wait $lpid
	pair_lrc=$?
}

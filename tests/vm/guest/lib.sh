# Guest-side helpers for VM tests (busybox ash).  /init sources this file
# before the guest script; sourcing it again is harmless.
#
# Results print through tests/lib/tap.sh (packed as /vm/tap.sh): ok/not_ok
# print "ok N - DESC" / "not ok N - DESC" and append the line to
# /tmp/vm-results; /init counts them and prints
# "GUEST-RESULT: N passed, M failed".
#
# Namespace layout: /vm/ns.conf holds what QEMU was configured with, one
# namespace a line: "ctrl nsid size_bytes lba_bytes zoned zsze_bytes zcap_bytes"
# (zsze/zcap 0 for conventional namespaces).  Assert against these values.

[ -n "${VM_LIB_LOADED:-}" ] && return 0
VM_LIB_LOADED=1
TAP_RESULTS=/tmp/vm-results
. "${VM_TAP_SH:-/vm/tap.sh}"

# vm_log TEXT: a comment line, stamped with the guest uptime
vm_log() { tap_diag "[$(cut -d" " -f1 /proc/uptime)s] $*"; }

# ok DESC, not_ok DESC [DIAG...]: one passed / failed check
ok() { tap_ok "$@"; }
not_ok() { tap_not_ok "$@"; }

# expect_eq DESC ACTUAL EXPECTED
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "got '$2', expected '$3'"
	fi
}

# expect_rc DESC RC CMD...: run CMD (output to the console), check its exit status
expect_rc() {
	local desc=$1 want=$2 rc
	shift 2
	"$@" >/tmp/vm-cmd.out 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$desc"
	else
		not_ok "$desc" "exit $rc, expected $want: $*"
		tap_diag_file /tmp/vm-cmd.out 20
	fi
}

# expect_ok DESC CMD...: CMD must exit 0
expect_ok() {
	local desc=$1
	shift
	expect_rc "$desc" 0 "$@"
}

# expect_match DESC REGEX TEXT: TEXT must match the extended REGEX
expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		ok "$1"
	else
		not_ok "$1" "'$3' does not match /$2/"
	fi
}

# expect_same DESC FILE1 FILE2: the two files must be byte-identical
expect_same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "$(cmp "$2" "$3" 2>&1 | head -1)"
	fi
}

# proc_gone PID: the process has exited (a zombie not yet reaped counts). The
# state is read once: ash may reap a zombie child between a test of /proc/PID
# and a read of its status, and a status that cannot be read is a process
# that is gone.
proc_gone() {
	local st
	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$1/status 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ]
}
# rd DEV SECTOR BYTES OUT: direct read of BYTES at 512-byte SECTOR
rd() {
	dd if="$1" of="$4" bs="$3" count=1 skip=$(($2 * 512)) \
		iflag=direct,skip_bytes 2>/dev/null
}

# wr DEV SECTOR IN [BS COUNT SKIP]: direct write of IN (or a slice of it) at
# 512-byte SECTOR
wr() {
	local bs=${4:-$(stat -c %s "$3")} count=${5:-1} skip=${6:-0}
	dd if="$3" of="$1" bs="$bs" count="$count" skip="$skip" \
		seek=$(($2 * 512)) oflag=direct,seek_bytes 2>/dev/null
}

# po2_roundup N: the smallest power of two >= N
po2_roundup() {
	local p=1
	while [ "$p" -lt "$1" ]; do p=$((p * 2)); done
	echo "$p"
}

# run_to SEC CMD...: run CMD with a time limit (kills it after SEC seconds)
# copy_seeds DIR N: copy /tmp/seed0../tmp/seed3 in turn to DIR/file0..N-1
# (the caller made the seeds); prints how many copies succeeded
copy_seeds() {
	local i=0
	while [ $i -lt "$2" ]; do
		cp /tmp/seed$((i % 4)) "$1/file$i" || break
		i=$((i + 1))
	done
	echo $i
}

run_to() {
	local sec=$1
	shift
	timeout -s KILL "$sec" "$@"
}

# section NAME CMD...: print CMD's stdout between ### BEGIN/END markers for
# host-side parsing; returns CMD's exit status.
section() {
	local name=$1 rc
	shift
	echo "### BEGIN $name"
	"$@"
	rc=$?
	echo
	echo "### END $name"
	return $rc
}

# ns_conf CTRL NSID FIELD: FIELD of the configured namespace
# (size, lbas, zoned, zsze, zcap; all in bytes, zoned 0/1).
ns_conf() {
	local c n size lbas zoned zsze zcap
	while read -r c n size lbas zoned zsze zcap; do
		case "$c" in '#'*) continue ;; esac
		if [ "$c" = "$1" ] && [ "$n" = "$2" ]; then
			eval "echo \$$3"
			return 0
		fi
	done </vm/ns.conf
	return 1
}

# ns_list: "CTRL NSID" of every configured namespace
ns_list() {
	grep -v '^#' /vm/ns.conf | cut -d' ' -f1,2
}

# vm_ctrl CTRL: kernel name (nvmeX) of configured controller CTRL, found by
# the serial number vm-run.sh gave it.  Instance numbers are not stable.
vm_ctrl() {
	local d
	for d in /sys/class/nvme/nvme*; do
		if [ "$(cat "$d/serial" 2>/dev/null | tr -d ' ')" = "znsnpo2-c$1" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

# vm_ns CTRL NSID: namespace disk name (nvmeXnY) of CTRL/NSID, found through
# sysfs nsid attributes, whether or not the kernel hides the block device.
vm_ns() {
	local c d
	c=$(vm_ctrl "$1") || return 1
	for d in /sys/class/nvme/"$c"/nvme*n*; do
		[ -e "$d/nsid" ] || continue
		if [ "$(cat "$d/nsid")" = "$2" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

# vm_ng CTRL NSID: generic char device path (/dev/ngXnY) of CTRL/NSID
vm_ng() {
	local c d
	c=$(vm_ctrl "$1") || return 1
	d=$(vm_ns "$1" "$2") || return 1
	# ng<ctrl instance>n<head instance>; the disk name carries the same head
	echo "/dev/ng${c#nvme}n${d##*n}"
}

# vm_blk CTRL NSID: block device path (/dev/nvmeXnY), empty and status 1
# when the kernel hides it
vm_blk() {
	local d
	d=$(vm_ns "$1" "$2") || return 1
	[ "$(cat /sys/block/"$d"/hidden 2>/dev/null)" = 1 ] && return 1
	[ -b "/dev/$d" ] || return 1
	echo "/dev/$d"
}

# vm_summary: print the namespace layout as the guest sees it
vm_summary() {
	local c n
	ns_list | while read -r c n; do
		echo "# ctrl $c ($(vm_ctrl "$c")) nsid $n: ns $(vm_ns "$c" "$n") ng $(vm_ng "$c" "$n")" \
			"blk $(vm_blk "$c" "$n" || echo hidden)" \
			"size $(ns_conf "$c" "$n" size) lbas $(ns_conf "$c" "$n" lbas)" \
			"zoned $(ns_conf "$c" "$n" zoned) zsze $(ns_conf "$c" "$n" zsze) zcap $(ns_conf "$c" "$n" zcap)"
	done
}

# jget KEY FILE: value of a top-level key of a JSON object printed by
# nvme-zns-npo2 (one key per line), strings without their quotes
jget() {
	sed -n "s/^  \"$1\": \(.*\)$/\1/p" "$2" | sed -e 's/,$//' -e 's/^"\(.*\)"$/\1/' | head -1
}

# zone_rows DEV: "start len cap wpoff cond" per zone from blkzone report,
# decimal sectors
zone_rows() {
	blkzone report "$1" |
		sed -n 's/.*start: *\(0x[0-9a-f]*\), len *\(0x[0-9a-f]*\), cap *\(0x[0-9a-f]*\), wptr *\(0x[0-9a-f]*\).*zcond: *\([0-9]*\).*/\1 \2 \3 \4 \5/p' |
		while read -r s l c w z; do
			echo "$((s)) $((l)) $((c)) $((w)) $z"
		done
}

# mk_nullb NAME ATTR=VALUE...: create and power on a null_blk device through
# configfs; prints its disk name (6.12 names configfs devices after their
# directory, older kernels nullbN). Fails (status 1) if power-on is refused.
mk_nullb() {
	local name=$1 d=/sys/kernel/config/nullb/$1 kv
	shift
	mkdir "$d" || return 1
	for kv in "$@"; do
		echo "${kv#*=}" >"$d/${kv%%=*}" || return 1
	done
	echo 1 >"$d/power" 2>/dev/null || return 1
	if [ -b "/dev/$name" ]; then
		echo "$name"
	else
		echo "nullb$(cat "$d/index")"
	fi
}

# nvmet_loop_port: NVMe target port 1 on the loop transport
nvmet_loop_port() {
	mkdir /sys/kernel/config/nvmet/ports/1 &&
		echo loop >/sys/kernel/config/nvmet/ports/1/addr_trtype
}

# nvmet_export NQN DEVICE [ATTR=VALUE...]: subsystem NQN (any host allowed)
# with the block device DEVICE (a path) as namespace 1 on loop port 1
# (nvmet_loop_port); each ATTR=VALUE is written to the namespace's configfs
# attribute ATTR before it is enabled. Status 2 if the subsystem cannot be
# set up, 1 if the target refuses to enable the namespace.
nvmet_export() {
	local s=/sys/kernel/config/nvmet/subsystems/$1 a
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" &&
		mkdir "$s/namespaces/1" &&
		echo "$2" >"$s/namespaces/1/device_path" || return 2
	shift 2
	for a in "$@"; do
		echo "${a#*=}" >"$s/namespaces/1/${a%%=*}" || return 2
	done
	echo 1 >"$s/namespaces/1/enable" 2>/dev/null || return 1
	ln -s "$s" "/sys/kernel/config/nvmet/ports/1/subsystems/$1"
}

# nvmet_connect NQN [NSID]: connect the host to NQN over loop, print the
# disk name of its namespace (nvmet_disk)
nvmet_connect() {
	echo "transport=loop,nqn=$1" >/dev/nvme-fabrics || return 1
	nvmet_disk "$@"
}

# nvmet_disk NQN [NSID]: the disk name of the connected subsystem NQN's
# namespace (of namespace NSID when given), once the host's scan has added
# it (up to 30 s). The target reports multi-controller subsystems, so the
# host shows a multipath head disk (nvmeXnY) whose device is the subsystem;
# the per-path disk nvmeXcYnZ is hidden (no device node).
nvmet_disk() {
	local d i=0
	while [ $i -lt 150 ]; do
		for d in /sys/block/nvme*n*; do
			[ "$(cat "$d/device/subsysnqn" 2>/dev/null)" = "$1" ] || continue
			[ -z "${2:-}" ] || [ "$(cat "$d/nsid" 2>/dev/null)" = "$2" ] || continue
			[ -b "/dev/${d##*/}" ] || continue
			echo "${d##*/}"
			return 0
		done
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# ns_wps NG LBAS: the write pointer offset of every zone of the namespace, in
# 512-byte sectors (nvme-cli's report of the namespace itself); a full zone
# (wp reported as 2^64-1) counts as written to its capacity
ns_wps() {
	local lbas=$2
	nvme zns report-zones "$1" -o json >/tmp/ns-rep.json 2>/dev/null
	tr -d ' \n' </tmp/ns-rep.json | tr '{},[]' '\n\n\n\n\n' >/tmp/ns-rep.kv
	grep '^"slba":' /tmp/ns-rep.kv | cut -d: -f2 >/tmp/ns-rep.s
	grep '^"wp":' /tmp/ns-rep.kv | cut -d: -f2 >/tmp/ns-rep.w
	grep '^"cap":' /tmp/ns-rep.kv | cut -d: -f2 >/tmp/ns-rep.c
	paste -d' ' /tmp/ns-rep.s /tmp/ns-rep.w /tmp/ns-rep.c |
		while read -r s w c; do
			if [ "$w" = 18446744073709551615 ]; then
				echo $((c * lbas / 512))
			else
				echo $(((w - s) * lbas / 512))
			fi
		done
}

# Sourced by ublk.sh: what the server uses of the running kernel's ublk_drv,
# by kernel. Linux 7.x's driver has TRY_STOP_DEV (UBLK_F_SAFE_STOP_DEV:
# the stop happens only if nobody has the device open, in-kernel openers
# included), UBLK_F_NO_AUTO_PART_SCAN and UBLK_F_QUIESCE (a device it
# parks is quiesced by QUIESCE_DEV first); 6.12's has none of them. The
# layer boots each kernel; the expectations follow the one running.
kmajor=$(uname -r | cut -d. -f1)
if [ "$kmajor" -ge 7 ]; then safe_stop=yes; else safe_stop=no; fi
echo "# kernel $(uname -r): TRY_STOP_DEV expected: $safe_stop"

# features_check DESC ERRFILE: the server's one features line, by kernel
features_check() {
	local l n
	n=$(grep -c ': features: ' "$2")
	expect_eq "$1: one features line" "$n" 1
	l=$(grep -m1 ': features: ' "$2")
	echo "# $(uname -r): $l"
	expect_match "$1: zoned device with user copy and user recovery" \
		'features: .*user-recovery recovery-reissue ioctl-encode user-copy zoned' "$l"
	if [ $safe_stop = yes ]; then
		expect_match "$1: quiesce, safe stop and no partition scan on $(uname -r)" \
			'features: .* quiesce .* safe-stop no-part-scan \(driver offers 0x' "$l"
	else
		expect_eq "$1: neither quiesce nor safe stop nor no partition scan on $(uname -r)" \
			"$(echo "$l" | grep -c ' quiesce \|safe-stop\|no-part-scan')" 0
	fi
}

# held_term DESC DEV PID ERRFILE: SIGTERM to the server of DEV while an
# in-kernel user holds DEV (which the server's own look does not see): on
# 7.x TRY_STOP_DEV refuses and the server leaves DEV quiesced for the next
# one, exit 0
held_term() {
	kill "$3"
	wait "$3"
	expect_eq "$1: SIGTERM: the server exits 0" "$?" 0
	expect_eq "$1: $2 is kept for its user (not stopped under it)" \
		"$([ -b "$2" ] && echo yes)" yes
	# the server's own look (znp_blk_prove_unused()) sees a loop device or
	# an nvmet export first; TRY_STOP_DEV is what refuses what it cannot see
	expect_match "$1: the server says why" \
		'may be in use \((open: the driver refused TRY_STOP_DEV|backing loop device .*|exported by NVMe target subsystem .*)\): leaving it quiesced' \
		"$(cat "$4")"
	# 7.x: the driver dispatches nothing more before the queues end
	expect_match "$1: parked by QUIESCE_DEV, nothing left in flight" \
		'parked by QUIESCE_DEV: 0 request\(s\) left untouched' "$(cat "$4")"
}

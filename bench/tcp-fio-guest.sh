# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by bench/tcp-node-guest.sh and bench/tcp-host-guest.sh (busybox
# ash, after tests/vm/guest/lib.sh and tcp-common.sh): the workloads, the
# same on the node's ublk device and on the host's NVMe/TCP namespace.
# 4 KiB random read, iodepth 16, over zone 0 (written by tb_fill); 128 KiB
# sequential write, iodepth 4 and 1, fio --zonemode=zbd over zones 1..
# (reset first). Needs RUNTIME (seconds per run).

# tb_fio NAME OUT ARGS...: fio, terse; the result line or nothing
tb_fio() {
	local n=$1 out=$2
	shift 2
	fio --name="$n" --ioengine=io_uring --direct=1 --output-format=terse --terse-version=3 \
		"$@" >"$out" 2>/tmp/fio.err
}

# tb_fill DEV WHERE: zone 0 written to its capacity (the random reads' data)
tb_fill() {
	blkzone reset -o 0 -c 1 "$1" 2>/dev/null
	tb_fio fill /tmp/fill.out --filename="$1" --rw=write --bs=128k --iodepth=4 \
		--zonemode=zbd --offset=0 --size=$((PO2 * 512))
	expect_eq "$2: fio wrote zone 0 of $1 to its capacity" \
		"$(awk -F';' 'NF > 50 && $5 == 0 { print $47 * 1024 }' /tmp/fill.out)" "$((CAP * 512))"
}

# tb_round DEV WHERE ROUND: both workloads; lines for tb_results
tb_round() {
	local dev=$1 where=$2 r=$3 line
	tb_fio rr /tmp/rr.out --filename="$dev" --rw=randread --bs=4k --iodepth=16 --offset=0 \
		--size=$((CAP * 512)) --norandommap=1 --time_based=1 --runtime="$RUNTIME"
	line=$(awk -F';' -v w="$where" -v r="$r" \
		'NF > 50 && $5 == 0 { print "tcpb", w, "randread", r, $8, $7, $9 }' /tmp/rr.out)
	expect_match "$where $r: 4 KiB random read on $dev" "^tcpb " "$line"
	[ -n "$line" ] || tap_diag_file /tmp/fio.err 5
	echo "$line" >>/tmp/tcpb.res
	tb_write "$dev" "$where" "$r" 4 seqwrite
	tb_write "$dev" "$where" "$r" 1 seqwrite1
}

# tb_write DEV WHERE ROUND IODEPTH NAME: 128 KiB sequential write over
# zones 1.., reset first. At iodepth 1 too: the block layer's zone write
# plugging sends a zone's writes one at a time, so depth 4 gains nothing
# over depth 1 when one round trip bounds each write.
tb_write() {
	local dev=$1 where=$2 r=$3 qd=$4 w=$5 line
	expect_ok "$where $r: reset zones 1-$((NS_NZ - 1)) of $dev" \
		blkzone reset -o "$PO2" -c $((NS_NZ - 1)) "$dev"
	tb_fio sw /tmp/sw.out --filename="$dev" --rw=write --bs=128k --iodepth="$qd" \
		--zonemode=zbd --offset=$((PO2 * 512)) --size=$(((NS_NZ - 1) * PO2 * 512)) \
		--runtime="$RUNTIME"
	line=$(awk -F';' -v w="$where" -v r="$r" -v n="$w" \
		'NF > 50 && $5 == 0 { print "tcpb", w, n, r, $49, $48, $50 }' /tmp/sw.out)
	expect_match "$where $r: 128 KiB sequential write, iodepth $qd, on $dev" "^tcpb " "$line"
	[ -n "$line" ] || tap_diag_file /tmp/fio.err 5
	echo "$line" >>/tmp/tcpb.res
}

tb_results() {
	echo "### BEGIN tcp-bench"
	cat /tmp/tcpb.res 2>/dev/null
	echo "### END tcp-bench"
}

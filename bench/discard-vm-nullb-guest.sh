# Guest side of bench/discard-vm-nullb.sh (busybox ash): the io_uring
# discard posting's own setup, a memory-backed null_blk with discard
# support, in the patched-kernel VM. N random distinct ranges (same list for
# every method), per block size:
#   ours   nvme-zns-npo2 discard --ranges LIST -q QD (io_uring BLOCK_URING_CMD_DISCARD)
#   sync   one thread, one BLKDISCARD ioctl per range (discard-helper sync)
#   fio    fio --rw=randtrim --ioengine=io_uring --iodepth=QD, N trims
# Rounds interleave the methods in an order rotated per round.
# Command line: dnb.n4k=N dnb.n1m=N dnb.rounds=R dnb.qd=QD.
# Prints "### BEGIN discard-nullb" lines: "bs round method iops".
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^dnb.$1=//p"; }
n4k=$(arg n4k) n1m=$(arg n1m) rounds=$(arg rounds) qd=$(arg qd)
: "${n4k:=20000}" "${n1m:=2000}" "${rounds:=3}" "${qd:=64}"
SIZE_MB=4096

DEV=/dev/$(mk_nullb dnb size=$SIZE_MB blocksize=4096 memory_backed=1 discard=1) ||
	{ not_ok "memory-backed null_blk with discard"; exit 0; }
Q=/sys/block/${DEV#/dev/}/queue
expect_eq "null_blk $DEV accepts discards" "$([ "$(cat $Q/discard_max_bytes)" -gt 0 ] && echo yes)" yes
# write-back throttling caps discards in flight: off, for every method alike
[ -w $Q/wbt_lat_usec ] && echo 0 >$Q/wbt_lat_usec
BYTES=$((SIZE_MB << 20))

ours() { # RANGES N
	nvme-zns-npo2 discard $DEV --ranges "$1" --force -q "$qd" -o json >/tmp/ours.json 2>/tmp/ours.err ||
		{ cat /tmp/ours.err >&2; return 1; }
	tr -d '\n ' </tmp/ours.json | sed -n 's/.*"completed":\([0-9]*\).*/\1/p' >/tmp/ours.n
	[ "$(cat /tmp/ours.n)" = "$2" ] || { echo "ours: completed $(cat /tmp/ours.n) of $2" >&2; return 1; }
	grep -q '"io_uring-discard"' /tmp/ours.json || { echo "ours: engine not io_uring-discard" >&2; return 1; }
	tr -d '\n ' </tmp/ours.json | sed -n 's/.*"iops":\([0-9.]*\).*/\1/p'
}
sync_loop() { discard-helper sync $DEV "$1" | awk '{ print $3 }'; }
fio_run() { # RANGES N BS
	fio --name=randtrim --filename=$DEV --rw=randtrim --bs="$3" --ioengine=io_uring \
		--iodepth="$qd" --direct=1 --number_ios="$2" --size=$BYTES --norandommap \
		--output-format=json 2>/dev/null >/tmp/fio.json || return 1
	awk '/"trim" : \{/ { t = 1 } t && /"iops" :/ { gsub(/[",]/, "", $3); print $3; exit }' /tmp/fio.json
}

: >/tmp/dres.txt
for bs in 4096 1048576; do
	[ $bs = 4096 ] && n=$n4k || n=$n1m
	discard-helper gen $BYTES "$n" $bs 42 >/tmp/ranges.$bs
	expect_eq "$n distinct $bs-byte ranges" "$(sort -u /tmp/ranges.$bs | wc -l)" "$n"
	# warm-up, not measured
	ours /tmp/ranges.$bs "$n" >/dev/null || not_ok "warm-up: nvme-zns-npo2 discard bs=$bs"
	r=1
	while [ $r -le "$rounds" ]; do
		set -- ours sync_loop fio_run
		[ $((r % 3)) = 2 ] && set -- sync_loop fio_run ours
		[ $((r % 3)) = 0 ] && set -- fio_run ours sync_loop
		for m in "$@"; do
			v=$($m /tmp/ranges.$bs "$n" $bs)
			[ -n "$v" ] || { not_ok "bs=$bs round $r: $m ran"; v=0; }
			echo "$bs $r $m $v" | tee -a /tmp/dres.txt
		done
		r=$((r + 1))
	done
done
# correctness: written data is gone after an io_uring discard of its block,
# the neighbouring block keeps its data
off=$(head -1 /tmp/ranges.4096 | cut -d' ' -f1)
blk=$((off / 4096))
dd if=/dev/urandom of=/tmp/pat bs=4096 count=2 2>/dev/null
dd if=/tmp/pat of=$DEV bs=4096 seek=$blk count=2 conv=notrunc 2>/dev/null && sync
echo "$off 4096" >/tmp/one
expect_ok "discard one written block" nvme-zns-npo2 discard $DEV --ranges /tmp/one --force -q 1
echo 3 >/proc/sys/vm/drop_caches
expect_eq "discarded block reads back zero" \
	"$(dd if=$DEV bs=4096 skip=$blk count=1 2>/dev/null | od -An -v -tx1 | tr -d ' \n0')" ""
expect_eq "next block keeps its data" \
	"$(dd if=$DEV bs=4096 skip=$((blk + 1)) count=1 2>/dev/null | md5sum | cut -c1-32)" \
	"$(dd if=/tmp/pat bs=4096 skip=1 count=1 2>/dev/null | md5sum | cut -c1-32)"
echo "### BEGIN discard-nullb"
cat /tmp/dres.txt
echo "### END discard-nullb"
expect_eq "every run reported IOPS" "$(awk '($4 + 0) <= 0' /tmp/dres.txt | wc -l)" 0

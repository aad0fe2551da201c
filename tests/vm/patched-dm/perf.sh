# Benchmark guest for bench/dm-perf.sh (not part of make test): fio io_uring
# 4 KiB on one npo2 null_blk, raw vs dm-linear vs dm-po2zone, in short
# rounds run back to back (order rotated) so that the load of the host,
# which the emulated CPU feels, hits every device alike.
# Prints "### BEGIN dm-perf" lines: DEVICE WORKLOAD ROUND IOPS.
. /vm/guest/common.sh

ROUNDS=${DM_PERF_ROUNDS:-3}
RUNTIME=${DM_PERF_RUNTIME:-4}
ZMB=1536
NZ=4
Z=$((ZMB * MIB_S))
P=$(po2_roundup $Z)

d=/sys/kernel/config/nullb/perf
mkdir "$d"
echo 4096 >"$d/blocksize"
echo $((ZMB * NZ)) >"$d/size"
echo 1 >"$d/zoned"
echo $ZMB >"$d/zone_size"
echo 0 >"$d/zone_nr_conv"
echo 0 >"$d/memory_backed"
echo 2 >"$d/queue_mode"
echo 1 >"$d/power"
nb=/dev/perf
[ -b "$nb" ] || nb=/dev/nullb$(cat "$d/index")
expect_ok "perf null_blk $nb" test -b "$nb"
expect_ok "dm-linear over $nb" dmsetup create perflin --table "0 $((NZ * Z)) linear $nb 0"
expect_ok "dm-po2zone over $nb" dmsetup create perfpo2 --table "0 $((NZ * P)) po2zone $nb"

# iops DEV ARGS...: IOPS of one fio job (read + write)
iops() {
	local dev=$1
	shift
	fio --name=perf --filename="$dev" --direct=1 --ioengine=io_uring \
		--bs=4k --iodepth=16 --offset=0 --size=$((Z * 512)) \
		--runtime="$RUNTIME" --output-format=terse --terse-version=3 \
		"$@" 2>>/tmp/fio.err | awk -F';' '{ print $8 + $49 }'
}
: >/tmp/fio.err

echo "### BEGIN dm-perf"
r=1
while [ $r -le "$ROUNDS" ]; do
	# rotate the order so that no device always runs first or last
	case $((r % 3)) in
	0) order="raw:$nb linear:/dev/mapper/perflin po2zone:/dev/mapper/perfpo2" ;;
	1) order="po2zone:/dev/mapper/perfpo2 raw:$nb linear:/dev/mapper/perflin" ;;
	2) order="linear:/dev/mapper/perflin po2zone:/dev/mapper/perfpo2 raw:$nb" ;;
	esac
	for dev in $order; do
		name=${dev%%:*}
		path=${dev#*:}
		echo "$name randread $r $(iops "$path" --rw=randread --time_based=1 --norandommap=1)"
		# the mappings hold the null_blk open: blkzone (O_EXCL) resets its
		# zone 0 through dm-linear, which maps it one to one
		blkzone reset -o 0 -c 1 /dev/mapper/perflin
		echo "$name seqwrite $r $(iops "$path" --rw=write)"
	done
	r=$((r + 1))
done
echo "### END dm-perf"
if [ -s /tmp/fio.err ]; then
	not_ok "perf: fio reported errors" "$(head -3 /tmp/fio.err)"
fi

dmsetup remove perfpo2
dmsetup remove perflin
no_kernel_errors "perf: kernel log clean"
true

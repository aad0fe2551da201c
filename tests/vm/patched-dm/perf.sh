# Benchmark guest for bench/dm-perf.sh (not part of make test): fio io_uring
# 4 KiB on one npo2 null_blk, raw vs dm-linear vs dm-po2zone, rounds
# interleaved so that drifts of the emulated CPU hit every device alike.
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
		"$@" 2>/tmp/fio.err | awk -F';' '{ print $8 + $49 }'
}

echo "### BEGIN dm-perf"
r=1
while [ $r -le "$ROUNDS" ]; do
	for dev in raw:$nb linear:/dev/mapper/perflin po2zone:/dev/mapper/perfpo2; do
		name=${dev%%:*}
		path=${dev#*:}
		echo "$name randread $r $(iops "$path" --rw=randread --time_based=1 --norandommap=1)"
		blkzone reset -o 0 -c 1 "$path"
		echo "$name seqwrite $r $(iops "$path" --rw=write)"
	done
	r=$((r + 1))
done
echo "### END dm-perf"

dmsetup remove perfpo2
dmsetup remove perflin
no_kernel_errors "perf: kernel log clean"
true

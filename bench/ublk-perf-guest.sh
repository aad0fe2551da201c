# Benchmark guest for bench/ublk-perf.sh (not part of make test): fio on one
# npo2 ZNS namespace (QEMU), through the ublk server (stock kernel), through
# dm-po2zone (patched kernel), and raw through fio's io_uring_cmd engine on
# /dev/ngXnY; short rounds, order rotated.
# Prints "### BEGIN ublk-perf" lines: DEVICE WORKLOAD ROUND VALUE
# (randread: IOPS, seqwrite: KiB/s).
ROUNDS=${UBLK_PERF_ROUNDS:-5}
RUNTIME=${UBLK_PERF_RUNTIME:-3}
Z=nvme-zns-npo2
NG=$(vm_ng 0 1)
ZSZE=$(ns_conf 0 1 zsze)
LBAS=$(ns_conf 0 1 lbas)
ZLBAS=$((ZSZE / LBAS))
export DM_DISABLE_UDEV=1

if [ "$VM_KERNEL" = stock ]; then
	$Z map --ublk "$NG" -o json >/tmp/map.json || not_ok "map --ublk $NG"
	MAPPED=/dev/ublkb$(sed -n 's/^  "ublk_dev_id": \([0-9]*\).*/\1/p' /tmp/map.json)
	KIND=ublk
else
	BLK=$(vm_blk 0 1)
	$Z map "$BLK" --name perfpo2 >/dev/null || not_ok "map $BLK"
	MAPPED=/dev/mapper/perfpo2
	KIND=dm
fi
expect_ok "$KIND device $MAPPED" test -b "$MAPPED"

# fio_run DEV ARGS...: one fio job, terse v3 (field 8 read IOPS, 48 write KiB/s)
fio_run() {
	local f=$1 rc
	shift
	fio --name=perf --filename="$f" --output-format=terse --terse-version=3 "$@" \
		2>/tmp/fio.last
	rc=$?
	# keep the first error lines of each failed run, tagged
	if [ -s /tmp/fio.last ]; then
		echo "== $f $* (exit $rc)" >>/tmp/fio.err
		sort /tmp/fio.last | uniq -c | sort -rn | head -4 >>/tmp/fio.err
	fi
}
: >/tmp/fio.err
# Reset through the po2 device: that resets the namespace too and keeps the
# block layer's zone write plugs (their cached write pointers) in step; a
# reset sent to the namespace behind their back fails the next write (EIO).
# The namespace is reset by itself as well (raw runs need it empty); failures
# are shown.
reset_all() {
	blkzone reset -o 0 -c "$NZ" "$MAPPED" 2>&1 | sed 's/^/# reset: /'
	nvme zns reset-zone "$NG" -a 2>&1 | grep -v -i success | sed 's/^/# reset: /'
}
NZ=$(($(ns_conf 0 1 size) / ZSZE))
# the first zone's capacity holds data to read back
reset_all
dd if=/dev/urandom of=/tmp/fill bs=1M count=16 2>/dev/null
RR="--rw=randread --bs=4k --iodepth=16 --offset=0 --size=16M --time_based=1 --runtime=$RUNTIME --norandommap=1"
# time-based over every zone: steady state, no zone resets inside a run (the
# zones are reset before each run)
SW="--rw=write --bs=128k --iodepth=4 --offset=0 --time_based=1 --runtime=$RUNTIME"
SW_RAW="$SW --size=$((NZ * ZSZE))"
SW_MAP="$SW --size=$((NZ * $(po2_roundup $((ZSZE / 512))) * 512))"

echo "### BEGIN ublk-perf"
r=1
while [ $r -le "$ROUNDS" ]; do
	reset_all
	fio_run "$MAPPED" --direct=1 --ioengine=io_uring --rw=write --bs=128k --size=16M --zonemode=zbd >/dev/null
	for dev in $( [ $((r % 2)) = 0 ] && echo "raw $KIND" || echo "$KIND raw"); do
		if [ "$dev" = raw ]; then
			v=$(fio_run "$NG" --ioengine=io_uring_cmd --cmd_type=nvme $RR | awk -F';' '{ print $8 }')
		else
			v=$(fio_run "$MAPPED" --direct=1 --ioengine=io_uring $RR | awk -F';' '{ print $8 }')
		fi
		echo "$dev randread $r $v"
	done
	for dev in $( [ $((r % 2)) = 0 ] && echo "raw $KIND" || echo "$KIND raw"); do
		reset_all
		if [ "$dev" = raw ]; then
			# a hidden namespace (stock kernel) takes at most 255 sectors per command
			[ "$VM_KERNEL" = stock ] && continue
			v=$(fio_run "$NG" --ioengine=io_uring_cmd --cmd_type=nvme $SW_RAW | awk -F';' '{ print $48 }')
		else
			v=$(fio_run "$MAPPED" --direct=1 --ioengine=io_uring --zonemode=zbd $SW_MAP |
				awk -F';' '{ print $48 }')
		fi
		echo "$dev seqwrite $r $v"
	done
	r=$((r + 1))
done
echo "### END ublk-perf"
[ -s /tmp/fio.err ] && sed 's/^/# fio: /' /tmp/fio.err | head -80
if [ "$KIND" = ublk ]; then
	$Z unmap "$MAPPED" >/dev/null
else
	$Z unmap perfpo2 >/dev/null
fi
ok "ublk-perf ran on $VM_KERNEL"

# Benchmark guest for bench/ublk-bench.sh (busybox ash; not part of make
# test). One session runs one round on one kernel, on the npo2 namespace
# ctrl 0 nsid 1:
#   stock kernel:   "ublk"  the ublk device (map --ublk, ublk_drv): zero copy
#                           where the driver has it (6.15 and later), else user copy
#                   "ublkuc" the same server moving data by user copy
#                           (ZNP_UBLK_USER_COPY=1), on a kernel with zero copy:
#                           zero copy vs user copy in one session
#                   "ublk0" the same with the baseline's server, when the
#                           host passed one (UBLK_BENCH_BASE), in turn with "ublk"
#                   "raw"   the namespace through fio io_uring_cmd on /dev/ngXnY
#                           (random read only: 128 KiB is over the 255-sector
#                           passthrough limit stock 6.12 keeps on a hidden namespace)
#   patched kernel: "dm"    dm-po2zone over /dev/nvmeXnY
#                   "ublkp" the ublk device (map --ublk --force), when the
#                           kernel has the ublk driver: both ways on one kernel
#                   "rawp"  the namespace through fio io_uring_cmd on /dev/ngXnY
# Workloads: randread (4 KiB, iodepth 16, zone 0, written at the start of the
# session), seqwrite (128 KiB, iodepth 4, zonemode=zbd, zones 1.., reset
# before every run) and randread4j (randread with 4 jobs over both vCPUs; the
# ublk device has 2 queues). Kernel command line: UB_ROUND, UB_RUNTIME (s), UB_DIAG=1
# (after the round: syscall counts of the ublk server under strace, request
# counts from /sys/block/*/stat).
# Prints between "### BEGIN ublk-bench" and "### END ublk-bench":
#   DEV WORKLOAD ROUND IOPS BW_KIB BUSY_TICKS ALL_TICKS SERVER_TICKS RUNTIME_MS
# (ticks: guest CPU time from /proc/stat and /proc/PID/stat, USER_HZ;
# RUNTIME_MS: fio's run time).

ROUND=${UB_ROUND:-1}
RUNTIME=${UB_RUNTIME:-10}
DIAG=${UB_DIAG:-0}
Z=nvme-zns-npo2
export DM_DISABLE_UDEV=1

NG=$(vm_ng 0 1)
ZSZE=$(ns_conf 0 1 zsze)			# bytes
NZ=$(($(ns_conf 0 1 size) / ZSZE))
PO2=$(($(po2_roundup $((ZSZE / 512))) * 512))	# bytes
vm_summary
: >/tmp/fio.err
# fio on the second vCPU, for every device: with fio on the first one, QEMU
# 7.2's controller left 4 KiB random reads of the busy queue unanswered
# (driver timeouts) in most runs; on the second one it did not
PIN=--cpus_allowed=1
SRV=

# cpu_ticks: "busy all" jiffies of all CPUs
cpu_ticks() {
	awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8; print b, b + $5 + $6 }' /proc/stat
}
# srv_ticks: utime + stime of the ublk server (all threads)
srv_ticks() {
	if [ -n "$SRV" ] && [ -r /proc/$SRV/stat ]; then
		sed 's/.*) //' /proc/$SRV/stat | awk '{ print $12 + $13 }'
	else
		echo 0
	fi
}

# nvme_timeouts: commands the NVMe driver has timed out so far
nvme_timeouts() {
	dmesg | grep -c 'nvme nvme[0-9]*: I/O .* timeout'
}
# wait_live: until the controller is back from a reset (at most 60 s)
wait_live() {
	local i=0
	while [ "$(cat /sys/class/nvme/$(vm_ctrl 0)/state)" != live ] && [ $i -lt 60 ]; do
		sleep 1
		i=$((i + 1))
	done
	sleep 2
}

# job NAME DEV WORKLOAD: one result line; a run during which the emulated
# controller stalled is reported as excluded and run again (3 tries)
job() {
	run_job "$@" || run_job "$@" || run_job "$@"
}

# run_job NAME DEV WORKLOAD: one fio run; status 1 when it was excluded
run_job() {
	local name=$1 dev=$2 w=$3 eng zsz c0 c1 s0 s1 t0 t1 e0 res
	case "$dev" in
	/dev/ng*) eng="--ioengine=io_uring_cmd --cmd_type=nvme"; zsz=$ZSZE ;;
	*) eng="--ioengine=io_uring --direct=1"; zsz=$PO2 ;;
	esac
	if [ "$w" = seqwrite ]; then
		case "$dev" in /dev/ng*) reset_writes "$MAPPED" ;; *) reset_writes "$dev" ;; esac
	fi
	t0=$(nvme_timeouts)
	e0=$(wc -c </tmp/fio.err)
	c0=$(cpu_ticks)
	s0=$(srv_ticks)
	if [ "$w" = randread ]; then
		res=$(fio --name=rr --filename="$dev" $eng $PIN --rw=randread --bs=4k --iodepth=16 \
			--offset=0 --size="$ZSZE" --norandommap=1 --time_based=1 --runtime="$RUNTIME" \
			--output-format=terse --terse-version=3 2>>/tmp/fio.err)
	elif [ "$w" = randread4j ]; then
		# 4 jobs over both vCPUs: both ublk queues (and both nvme queues) busy
		res=$(fio --name=rr4 --filename="$dev" $eng --cpus_allowed=0-1 \
			--cpus_allowed_policy=split --numjobs=4 --group_reporting=1 --rw=randread \
			--bs=4k --iodepth=16 --offset=0 --size="$ZSZE" --norandommap=1 --time_based=1 \
			--runtime="$RUNTIME" --output-format=terse --terse-version=3 2>>/tmp/fio.err)
	else
		res=$(fio --name=sw --filename="$dev" $eng $PIN --rw=write --bs=128k --iodepth=4 \
			--zonemode=zbd --offset="$zsz" --size=$(((NZ - 1) * zsz)) \
			--runtime="$RUNTIME" --output-format=terse --terse-version=3 2>>/tmp/fio.err)
	fi
	c1=$(cpu_ticks)
	s1=$(srv_ticks)
	t1=$(nvme_timeouts)
	if [ "$t1" != "$t0" ]; then
		# QEMU 7.2's controller sometimes leaves commands of a busy queue
		# unanswered until the driver times out and resets it: not a figure
		echo "excluded $name $w $ROUND: $((t1 - t0)) NVMe command timeout(s) in the emulated controller"
		# the errors of an excluded run are that run's, not a failure of the bench
		tail -c +$((e0 + 1)) /tmp/fio.err | head -3 | sed 's/^/#   /'
		head -c "$e0" /tmp/fio.err >/tmp/fio.err.keep
		mv /tmp/fio.err.keep /tmp/fio.err
		wait_live
		return 1
	fi
	echo "$res" | awk -F';' -v n="$name" -v w="$w" -v r="$ROUND" -v c0="$c0" -v c1="$c1" \
		-v s=$((s1 - s0)) '
		NF > 50 {
			split(c0, a, " "); split(c1, b, " ")
			if ($5 != 0) { print "# fio error " $5 " on " n " " w; $8 = $49 = $7 = $48 = 0 }
			printf "%s %s %s %d %d %d %d %d %d\n", n, w, r, $8 + $49, $7 + $48,
				b[1] - a[1], b[2] - a[2], s, $9 + $50
		}'
}

fill_zone0() {
	fio --name=fill --filename="$1" --ioengine=io_uring --direct=1 --rw=write --bs=128k \
		--iodepth=4 --zonemode=zbd --offset=0 --size="$PO2" --output-format=terse \
		--terse-version=3 >/tmp/fill.out 2>&1 ||
		{ not_ok "fill zone 0 of $1" "$(grep -v '^$' /tmp/fill.out | tail -3)"; return 1; }
	expect_eq "fio wrote zone 0 of $1 to its capacity" \
		"$(awk -F';' 'NF > 50 { print $47 * 1024 }' /tmp/fill.out)" "$ZSZE"
}

# use_ublk NAME: the namespace served by this build's server ("ublk") or by
# the baseline's (/usr/bin/nvme-zns-npo2-base, "ublk0"), one at a time
UBCUR=
use_ublk() {
	local bin=$Z
	[ "$UBCUR" = "$1" ] && return 0
	[ -n "$UBCUR" ] && { run_to 60 $Z unmap "${UB#/dev/}" >/tmp/vm-cmd.out 2>&1 ||
		{ not_ok "unmap $UB" "$(cat /tmp/vm-cmd.out)"; return 1; }; }
	[ "$1" = ublk0 ] && bin=/usr/bin/nvme-zns-npo2-base
	# "ublkuc": the user copy where the driver offers zero copy (a test hook)
	uc=0
	[ "$1" = ublkuc ] && uc=1
	# two queues (one per vCPU), for randread4j; single-job runs use the one
	# of fio's vCPU either way
	run_to 90 env ZNP_UBLK_USER_COPY=$uc $bin map --ublk --queues 2 "$NG" -o json \
		>/tmp/vm-cmd.out 2>&1 ||
		{ not_ok "map --ublk $NG ($1)" "$(cat /tmp/vm-cmd.out)"; return 1; }
	UB=/dev/ublkb$(sed -n 's/.*"ublk_dev_id": \([0-9]*\).*/\1/p' /tmp/vm-cmd.out | head -1)
	SRV=$(sed -n 's/.*"server_pid": \([0-9]*\).*/\1/p' /tmp/vm-cmd.out | head -1)
	UBCUR=$1
	MAPPED=$UB
	# queue layout, for the report
	vm_log "$1 $UB: $(cat /sys/block/${UB#/dev/}/queue/max_sectors_kb) KiB max I/O," \
		"$(ls /sys/block/${UB#/dev/}/mq | wc -l) hw queue(s)," \
		"nr_requests $(cat /sys/block/${UB#/dev/}/queue/nr_requests), server pid $SRV" \
		"threads $(ls /proc/$SRV/task | wc -l)"
}

if [ "$VM_KERNEL" = stock ]; then
	use_ublk ublk && ok "map --ublk $NG"
	expect_eq "ublk device $UB is a zoned block device" \
		"$(cat /sys/block/${UB#/dev/}/queue/zoned 2>/dev/null)" host-managed
	devs="ublk:ublk raw:$NG"
	[ $((ROUND % 2)) = 0 ] && devs="raw:$NG ublk:ublk"
	# zero copy (UBLK_F_SUPPORT_ZERO_COPY) from 6.15: the user copy beside it
	kv=$(uname -r)
	if [ "${kv%%.*}" -gt 6 ] || { [ "${kv%%.*}" = 6 ] && kvm=${kv#6.} && [ "${kvm%%[!0-9]*}" -ge 15 ]; }; then
		devs="ublk:ublk ublkuc:ublk raw:$NG"
		[ $((ROUND % 2)) = 0 ] && devs="raw:$NG ublkuc:ublk ublk:ublk"
	fi
	if [ -x /usr/bin/nvme-zns-npo2-base ]; then
		devs="ublk:ublk ublk0:ublk raw:$NG"
		[ $((ROUND % 2)) = 0 ] && devs="raw:$NG ublk0:ublk ublk:ublk"
	fi
else
	BLK=$(vm_blk 0 1)
	expect_ok "dm-po2zone over $BLK" dmsetup create ubpo2 --table "0 $((NZ * PO2 / 512)) po2zone $BLK"
	MAPPED=/dev/mapper/ubpo2
	DMB=$(dmsetup info -c --noheadings -o blkdevname ubpo2)
	vm_log "dm-po2zone $MAPPED ($DMB): $(cat /sys/block/$DMB/queue/max_sectors_kb) KiB max I/O;" \
		"$BLK: $(cat /sys/block/${BLK#/dev/}/queue/max_sectors_kb) KiB max I/O," \
		"$(ls /sys/block/${BLK#/dev/}/mq | wc -l) hw queue(s)," \
		"nr_requests $(cat /sys/block/${BLK#/dev/}/queue/nr_requests)"
	devs="dm:$MAPPED rawp:$NG"
	[ $((ROUND % 2)) = 0 ] && devs="rawp:$NG dm:$MAPPED"
	if [ -c /dev/ublk-control ]; then
		# the block device is visible here: --force serves it through ublk anyway
		expect_ok "map --ublk --force $NG" run_to 90 $Z map --ublk --force --queues 2 "$NG" -o json
		UB=/dev/ublkb$(sed -n 's/.*"ublk_dev_id": \([0-9]*\).*/\1/p' /tmp/vm-cmd.out | head -1)
		SRV=$(sed -n 's/.*"server_pid": \([0-9]*\).*/\1/p' /tmp/vm-cmd.out | head -1)
		expect_eq "ublk device $UB is a zoned block device" \
			"$(cat /sys/block/${UB#/dev/}/queue/zoned 2>/dev/null)" host-managed
		vm_log "ublk on the patched kernel $UB: $(cat /sys/block/${UB#/dev/}/queue/max_sectors_kb) KiB max I/O"
		devs="dm:$MAPPED ublkp:$UB rawp:$NG"
		[ $((ROUND % 2)) = 0 ] && devs="rawp:$NG ublkp:$UB dm:$MAPPED"
	fi
fi

# reset_writes DEV: zones 1.. of the namespace, reset through a po2 mapping
# (blkzone 2.38 cannot address npo2 zones); the mapping that writes next
# resets, so that its zone write plugs see the reset
reset_writes() {
	blkzone reset -o $((PO2 / 512)) "$1" 2>>/tmp/fio.err
}

fill_zone0 "$MAPPED"
echo "### BEGIN ublk-bench"
for w in randread seqwrite randread4j; do
	for d in $devs; do
		# a stock kernel keeps a hidden namespace at 255 sectors per
		# passthrough command: 128 KiB writes on its ng node fail with EINVAL
		[ "$w" = seqwrite ] && [ "${d%%:*}" = raw ] && continue
		if [ "${d#*:}" = ublk ]; then
			use_ublk "${d%%:*}" || continue
			job "${d%%:*}" "$UB" "$w"
		else
			job "${d%%:*}" "${d#*:}" "$w"
		fi
	done
done
echo "### END ublk-bench"
if [ -s /tmp/fio.err ]; then
	not_ok "fio and blkzone ran without errors" "$(head -5 /tmp/fio.err)"
else
	ok "fio and blkzone ran without errors"
fi

# stat_io DEV: "reads read_sectors writes write_sectors" completed (sysfs stat)
stat_io() {
	awk '{ print $1, $3, $5, $7 }' "/sys/block/$1/stat"
}

# srv_ctx: voluntary + involuntary context switches of the server's threads
srv_ctx() {
	cat /proc/$SRV/task/*/status 2>/dev/null |
		awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }'
}

if [ "$DIAG" = 1 ]; then
	RUNTIME=5
	echo "### BEGIN ublk-diag"
	for w in randread seqwrite; do
		if [ "$VM_KERNEL" = stock ]; then
			use_ublk ublk
			b=${UB#/dev/}
			x0=$(srv_ctx)
			r=$(job ublk "$UB" "$w")
			x1=$(srv_ctx)
			echo "diag $w fio: $r"
			echo "diag $w server context switches: $((x1 - x0))"
			s0=$(stat_io "$b")
			strace -c -f -q -o /tmp/strace.$w -p "$SRV" &
			st=$!
			sleep 1
			r=$(job ublk "$UB" "$w")
			kill -INT $st
			wait $st
			s1=$(stat_io "$b")
			echo "diag $w fio under strace: $r"
			echo "diag $w $b stat delta (reads rsect writes wsect): $s0 -> $s1"
			sed "s/^/diag $w strace: /" /tmp/strace.$w
		else
			b=$DMB
			n=${BLK#/dev/}
			s0="$(stat_io "$b") / $(stat_io "$n")"
			r=$(job dm "$MAPPED" "$w")
			s1="$(stat_io "$b") / $(stat_io "$n")"
			echo "diag $w fio: $r"
			echo "diag $w $b / $n stat (reads rsect writes wsect): $s0 -> $s1"
		fi
	done
	echo "### END ublk-diag"
fi

[ -n "${UB:-}" ] && expect_ok "unmap $UB" run_to 60 $Z unmap "${UB#/dev/}"
[ "$VM_KERNEL" = stock ] || expect_ok "remove dm-po2zone" dmsetup remove ubpo2
true

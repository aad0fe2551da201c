# Guest side of bench/kernel-perf.sh (busybox ash): fio io_uring 4 KiB jobs
# on zoned null_blk devices created through configfs, as in the 2022 npo2
# series (seq write, seq read, rand read; iodepth 8 and 16). The device list
# comes from the kernel command line: kperf.devs=po2,npo2 kperf.reps=N.
# Prints "### BEGIN perf" lines: "dev rw iodepth rep iops". Each rep runs
# the write job first (after a zone reset), so the read jobs find data.

devs=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^kperf.devs=//p' | tr , ' ')
reps=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^kperf.reps=//p')
ios=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^kperf.io=//p')
: "${reps:=5}" "${ios:=64M}"
NR_ZONES=96 # both devices get the same number of zones

mkdev() { # NAME ZONE_MB: non-memory-backed zoned null_blk, prints its disk name
	mk_nullb "$1" zoned=1 zone_size="$2" size=$(($2 * NR_ZONES)) blocksize=4096
}

runfio() { # DEV RW QD: prints IOPS
	timeout -s KILL 300 fio --name=zbc --filename="/dev/$1" --direct=1 --zonemode=zbd \
		--size=$(($(cat /sys/block/$1/size) * 512)) \
		--io_size="$ios" --ioengine=io_uring --iodepth="$3" --rw="$2" --bs=4k \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v rw="$2" '{ print (rw == "write") ? $49 : $8 }'
}

names=
for dv in $devs; do
	case "$dv" in
	po2) zmb=128 ;;
	npo2) zmb=96 ;;
	*) not_ok "unknown device kind $dv"; continue ;;
	esac
	n=$(mkdev "$dv" "$zmb") || { not_ok "$dv null_blk (${zmb}M zones) powers on"; continue; }
	ok "$dv null_blk (${zmb}M zones) powers on as /dev/$n"
	eval "dev_$dv=$n"
	names="$names $dv"
	# warm-up (page cache of fio, io_uring setup), not measured
	runfio "$n" write 16 >/dev/null
	runfio "$n" randread 16 >/dev/null
done

: >/tmp/perf.txt
rep=1
while [ $rep -le "$reps" ]; do
	for rw in write read randread; do
		for qd in 8 16; do
			# interleave the devices, in alternating order, so that
			# drift of the host hits them alike
			order=$names
			[ $((rep % 2)) -eq 0 ] && order=$(echo $names | awk '{ for (i = NF; i; i--) printf "%s ", $i }')
			for dv in $order; do
				eval "n=\$dev_$dv"
				[ "$rw" = write ] &&
					zonectl reset "/dev/$n" 0 "$(cat /sys/block/$n/size)" >/dev/null
				iops=$(runfio "$n" "$rw" "$qd")
				echo "$dv $rw $qd $rep ${iops:-0}" | tee -a /tmp/perf.txt
			done
		done
	done
	rep=$((rep + 1))
done
echo "### BEGIN perf"
cat /tmp/perf.txt
echo "### END perf"
for dv in $names; do
	expect_eq "$dv: every fio job reported IOPS" \
		"$(awk -v d="$dv" '$1 == d && ($5 + 0) <= 0' /tmp/perf.txt | wc -l)" 0
done

# Guest side of bench/kernel-xarray.sh (busybox ash): the NVMe target in
# passthrough mode over the QEMU controller (its namespaces), exported over
# the loop transport; fio with one job per namespace over the first 16 and
# the last 16 NSIDs, 4 KiB random reads. Every forwarded I/O command looks
# its namespace up on the QEMU controller (nvme_find_get_ns()).
# Command line: kxa.reps=N kxa.runtime=SEC kxa.iodepth=N.
# Prints "### BEGIN xarray-perf" lines: "rep iops slat_mean_usec".
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^kxa.$1=//p"; }
reps=$(arg reps) rt=$(arg runtime) qd=$(arg iodepth)
: "${reps:=3}" "${rt:=5}" "${qd:=4}"
CFS=/sys/kernel/config/nvmet
NQN=nqn.2014-08.org.zns-npo2:passthru
C=$(vm_ctrl 0)
n_conf=$(awk '$1 == 0' /vm/ns.conf | wc -l)

mkdir "$CFS/subsystems/$NQN" && echo 1 >"$CFS/subsystems/$NQN/attr_allow_any_host" &&
	echo "/dev/$C" >"$CFS/subsystems/$NQN/passthru/device_path" &&
	echo 1 >"$CFS/subsystems/$NQN/passthru/enable" ||
	{ not_ok "nvmet passthrough subsystem over /dev/$C"; exit 0; }
ok "nvmet passthrough subsystem over /dev/$C ($n_conf namespaces)"
mkdir "$CFS/ports/1" && echo loop >"$CFS/ports/1/addr_trtype" &&
	ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN"
echo "transport=loop,nqn=$NQN" >/dev/nvme-fabrics || { not_ok "connect over loop"; exit 0; }

# namespace disks of the passthrough subsystem: "NSID /dev/DISK"
disks() {
	local d
	for d in /sys/block/nvme*n*; do
		case "${d##*/}" in *c*n*) continue ;; esac
		[ "$(cat "$d/device/subsysnqn" 2>/dev/null)" = "$NQN" ] &&
			echo "$(cat "$d/nsid") /dev/${d##*/}"
	done | sort -n
}
i=0
while [ "$(disks | wc -l)" -lt "$n_conf" ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "host sees every namespace through the passthrough target" "$(disks | wc -l)" "$n_conf"
# the first 16 and the last 16 namespaces, one job each
jobs=$(disks | awk -v n="$n_conf" 'NR <= 16 || NR > n - 16 { printf " --name=ns%s --filename=%s", $1, $2 }')
expect_eq "32 fio jobs" "$(echo "$jobs" | grep -o -- '--name=' | wc -l)" 32

runfio() {
	fio --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth="$qd" \
		--size=32M --time_based --runtime="$1" --group_reporting \
		--output-format=terse --terse-version=3 $jobs 2>/dev/null |
		awk -F';' 'NF > 40 { print $8, $12, $5 }'
}
runfio 2 >/dev/null	# warm-up, not measured
: >/tmp/xperf.txt
rep=1
while [ $rep -le "$reps" ]; do
	set -- $(runfio "$rt")
	echo "$rep ${1:-0} ${2:-0}" | tee -a /tmp/xperf.txt
	[ "${3:-1}" = 0 ] || not_ok "rep $rep: fio error ${3:-none}"
	rep=$((rep + 1))
done
echo "### BEGIN xarray-perf"
cat /tmp/xperf.txt
echo "### END xarray-perf"
expect_eq "every fio run reported IOPS" "$(awk '($2 + 0) <= 0' /tmp/xperf.txt | wc -l)" 0
expect_eq "no failed namespace lookups" "$(dmesg | grep -c 'failed to get passthru ns')" 0

# Patched kernel: a QEMU NVMe controller with 34 namespaces (32 conventional,
# an npo2 and a po2 zoned one) and a second controller with one namespace.
# The namespaces the host tracks, `nvme list` and `nvme-zns-npo2 list` must
# match the QEMU configuration (/vm/ns.conf) before and after repeated
# `nvme ns-rescan` and sysfs rescan_controller while fio runs on the first
# and the last namespaces; a rescan keeps every namespace (same disk names).
# The deprecated NVME_IOCTL_IO_CMD on the controller node works with one
# namespace and is refused with several.
. /vm/guest/xlib.sh

# configured namespaces of a controller: "NSID SIZE ZONE"
configured() { # CTRL
	awk -v c="$1" '$1 == c {
		if ($5 == 1) print $2, int($3 / $6) * $6, $6; else print $2, $3, 0
	}' /vm/ns.conf | sort -n
}

C0=$(vm_ctrl 0) C1=$(vm_ctrl 1)
[ -n "$C0" ] && [ -n "$C1" ] && ok "controllers: $C0 (34 namespaces) and $C1 (1 namespace)" ||
	{ not_ok "both QEMU controllers found"; exit 0; }
want0=$(configured 0) want1=$(configured 1)
expect_eq "34 namespaces configured on controller 0" "$(echo "$want0" | wc -l)" 34
settle "$C0" "$want0" 60 || not_ok "all namespaces of $C0 probed within 60 s" "$(kern_ns "$C0" | wc -l) found"
check_views "initial" "$C0" znsnpo2-c0 "$want0"
check_views "initial" "$C1" znsnpo2-c1 "$want1"
names0=$(kern_names "$C0")

# ---- the deprecated controller-node I/O ioctl (one namespace only) ----------
expect_eq "NVME_IOCTL_IO_CMD on $C1 (one namespace)" "$(ioctl-io "/dev/$C1" 1 4096)" ok
expect_eq "NVME_IOCTL_IO_CMD on $C0 (34 namespaces) refused" "$(ioctl-io "/dev/$C0" 1 4096)" EINVAL
expect_match "kernel names the reason for the refusal" \
	"NVME_IOCTL_IO_CMD not supported when multiple namespaces present" "$(dmesg | tail -20)"

# ---- rescans under I/O on the first and last 4 conventional namespaces -------
disk_of() { echo "$names0" | awk -v n="$1" '$1 == n { print "/dev/" $2 }'; }
jobs=
for n in 1 2 3 4 29 30 31 32; do
	jobs="$jobs --name=ns$n --filename=$(disk_of "$n")"
done
# psync: with io_uring at depth 4 an I/O queue of the QEMU 7.2 controller
# now and then stops completing commands under the rescans (I/O timeouts,
# then `list` sees zone sizes of 0); see attach.sh
fio --ioengine=psync --direct=1 --bs=4k --rw=randrw \
	--time_based --runtime=900 --rate_iops=50 --output-format=terse --terse-version=3 \
	$jobs >/tmp/fio-q.txt 2>/tmp/fio-q.err &
fio_pid=$!
sleep 2
for r in 1 2 3; do
	expect_ok "round $r: nvme ns-rescan /dev/$C0" nvme ns-rescan "/dev/$C0"
	sleep 1
	settle "$C0" "$want0" 30 || not_ok "round $r: namespaces back after ns-rescan"
	check_views "round $r, ns-rescan" "$C0" znsnpo2-c0 "$want0"
	expect_eq "round $r: ns-rescan kept every disk name" "$(kern_names "$C0")" "$names0"
	expect_ok "round $r: rescan_controller" sh -c "echo 1 >/sys/class/nvme/$C0/rescan_controller"
	sleep 1
	settle "$C0" "$want0" 30 || not_ok "round $r: namespaces back after rescan_controller"
	check_views "round $r, rescan_controller" "$C0" znsnpo2-c0 "$want0"
	expect_eq "round $r: rescan_controller kept every disk name" "$(kern_names "$C0")" "$names0"
done
# fio runs until it is stopped (SIGINT: the jobs end and report normally)
if kill -0 $fio_pid 2>/dev/null; then
	ok "fio was running through every rescan"
	kill -INT $fio_pid
else
	not_ok "fio was running through every rescan" "$(cat /tmp/fio-q.err)"
fi
wait $fio_pid
vm_log "fio exit status after SIGINT: $?"
fio_ok "fio on NSIDs 1-4 and 29-32" /tmp/fio-q.txt 8
check_views "after the rescans" "$C1" znsnpo2-c1 "$want1"
expect_eq "no I/O timeouts or controller resets in dmesg" \
	"$(dmesg | grep -cE 'timeout, (aborting|reset controller)|resetting controller')" 0

# Patched kernel, NVMe target ZNS over the loop transport: npo2 null_blk
# devices exported as ZNS namespaces and seen by the NVMe host driver as npo2
# zoned block devices. A backing device with a smaller last zone is refused
# (ZNS has no smaller last zone; v3's zns_smaller_last_zone knob, which
# exported it, is gone). The po2 path is unchanged.
. /vm/guest/zlib.sh
MB=2048
CFS=/sys/kernel/config/nvmet
cfs="zoned=1 memory_backed=1 blocksize=4096"

nvmet_loop_port || not_ok "nvmet: loop port configured"

# npo2: 960 MiB of 96 MiB zones (no smaller last zone)
nb=$(mk_nullb t96 $cfs zone_size=96 size=960)
expect_ok "nvmet npo2: export a 96M-zone null_blk as a ZNS namespace" nvmet_export npo2 "/dev/$nb"
ns=$(nvmet_connect npo2)
if [ -n "$ns" ]; then
	ok "nvmet npo2: host sees namespace /dev/$ns"
	label="nvmet npo2 (96M zones over nvme-loop)"
	check_geometry "$label" "/dev/$ns" $((96 * MB)) $((96 * MB)) 10 $((96 * MB))
	check_zone_ops "$label" "/dev/$ns" $((96 * MB)) $((96 * MB)) 10 $((96 * MB))
	check_fio "$label" "/dev/$ns" $((96 * MB)) 2 3
	# data written through the target is on the null_blk device
	expect_ok "$label: pattern written through nvme-loop" \
		zonectl write "/dev/$ns" $((5 * 96 * MB)) $((1 << 20)) 11
	expect_ok "$label: same pattern read from the backing null_blk" \
		zonectl verify "/dev/$nb" $((5 * 96 * MB)) $((1 << 20)) 11
else
	not_ok "nvmet npo2: host sees the namespace" "$(dmesg | tail -5)"
fi

# a smaller last zone: 1000 MiB of 96 MiB zones, the last one 40 MiB
nb2=$(mk_nullb t96last $cfs zone_size=96 size=1000)
s=$CFS/subsystems/npo2last
# no knob exports a namespace ZNS does not allow: the target refuses a
# backing device with a smaller last zone, as the base does
expect_rc "nvmet npo2 last: not exported" 1 nvmet_export npo2last "/dev/$nb2"
expect_eq "nvmet npo2 last: no zns_smaller_last_zone attribute" \
	"$([ -e "$s/namespaces/1/zns_smaller_last_zone" ] && echo present || echo absent)" absent
expect_eq "nvmet npo2 last: namespace still disabled" "$(cat "$s/namespaces/1/enable")" 0
rmdir "$s/namespaces/1" "$s"

# po2 for comparison: 1 GiB of 128 MiB zones
nb3=$(mk_nullb t128 $cfs zone_size=128 size=1024)
expect_ok "nvmet po2: export a 128M-zone null_blk" nvmet_export po2 "/dev/$nb3"
ns3=$(nvmet_connect po2)
if [ -n "$ns3" ]; then
	label="nvmet po2 (128M zones over nvme-loop)"
	check_geometry "$label" "/dev/$ns3" $((128 * MB)) $((128 * MB)) 8 $((128 * MB))
	check_zone_ops "$label" "/dev/$ns3" $((128 * MB)) $((128 * MB)) 8 $((128 * MB))
else
	not_ok "nvmet po2: host sees the namespace" "$(dmesg | tail -5)"
fi

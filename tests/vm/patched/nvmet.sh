# Patched kernel, NVMe target ZNS over the loop transport: npo2 null_blk
# devices exported as ZNS namespaces and seen by the NVMe host driver as npo2
# zoned block devices. A backing device with a smaller last zone is refused
# by default (hosts without the series cannot use such a namespace); with the
# namespace attribute zns_smaller_last_zone set it is exported with a last
# zone whose capacity ends at the namespace end, and the host sets it up as a
# working zoned device (the block layer allows a smaller capacity for the
# last zone). The po2 path is unchanged.
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

# a smaller last zone: 1000 MiB of 96 MiB zones, the last one 40 MiB. v3
# exports it on request: the host sees 11 zones of 96 MiB, the last with a
# 40 MiB capacity ending at the namespace end, a working zoned device, not
# a half-set-up one. v4 refuses it.
nb2=$(mk_nullb t96last $cfs zone_size=96 size=1000)
s=$CFS/subsystems/npo2last
if [ "$VM_SERIES" = v4 ]; then
	# v4 has no knob that exports a namespace ZNS does not allow: the target
	# refuses a backing device with a smaller last zone, as the base does
	expect_rc "nvmet npo2 last: not exported" 1 nvmet_export npo2last "/dev/$nb2"
	expect_eq "nvmet npo2 last: no zns_smaller_last_zone attribute" \
		"$([ -e "$s/namespaces/1/zns_smaller_last_zone" ] && echo present || echo absent)" absent
	expect_eq "nvmet npo2 last: namespace still disabled" "$(cat "$s/namespaces/1/enable")" 0
	rmdir "$s/namespaces/1" "$s"
else
	# default: not exported (the namespace cannot be enabled), with a message
	before=$(dmesg | grep -c 'see zns_smaller_last_zone')
	expect_rc "nvmet npo2 last: not exported by default" 1 nvmet_export npo2last "/dev/$nb2"
	expect_eq "nvmet npo2 last: zns_smaller_last_zone defaults to 0" \
		"$(cat "$s/namespaces/1/zns_smaller_last_zone" 2>&1)" 0
	expect_eq "nvmet npo2 last: the refusal names the attribute" \
		"$(($(dmesg | grep -c 'see zns_smaller_last_zone') - before))" 1
	expect_eq "nvmet npo2 last: namespace still disabled" "$(cat "$s/namespaces/1/enable")" 0
	rmdir "$s/namespaces/1" "$s"
	# opt in: exported
	expect_ok "nvmet npo2 last: export 1000 MiB of 96 MiB zones with zns_smaller_last_zone=1" \
		nvmet_export npo2last "/dev/$nb2" zns_smaller_last_zone=1
	expect_rc "nvmet npo2 last: attribute not writable while enabled" 1 \
		sh -c "echo 0 >$s/namespaces/1/zns_smaller_last_zone"
	ns2=$(nvmet_connect npo2last)
	if [ -n "$ns2" ]; then
		label="nvmet npo2 last (96M zones, 40M last zone)"
		lz=$((10 * 96 * MB))
		expect_eq "$label: queue/chunk_sectors" "$(sysq "$ns2" chunk_sectors)" $((96 * MB))
		expect_eq "$label: queue/nr_zones" "$(sysq "$ns2" nr_zones)" 11
		expect_eq "$label: size" "$(cat /sys/block/"$ns2"/size)" $((1000 * MB))
		expect_eq "$label: last zone start, capacity and condition" \
			"$(blkzone report -o "$lz" -c 1 "/dev/$ns2" | sed -n 's/.*start: *\(0x[0-9a-f]*\),.*cap *\(0x[0-9a-f]*\),.*zcond: *\([0-9]*\).*/\1 \2 \3/p' |
				while read -r s c z; do echo "$((s)) $((c)) $z"; done)" "$lz $((40 * MB)) 1"
		expect_ok "$label: write 1 MiB at the start of the last zone" \
			zonectl write "/dev/$ns2" "$lz" $((1 << 20)) 12
		expect_ok "$label: the data is on the backing device" \
			zonectl verify "/dev/$nb2" "$lz" $((1 << 20)) 12
		expect_ok "$label: finish the last zone" zonectl finish "/dev/$ns2" "$lz" $((40 * MB))
		expect_eq "$label: last zone full on the backing device" \
			"$(zstate "/dev/$nb2" "$lz" | cut -d' ' -f1)" $C_FULL
		expect_ok "$label: reset the last zone" zonectl reset "/dev/$ns2" "$lz" $((40 * MB))
		expect_zone "$label: last zone empty on the backing device" "/dev/$nb2" "$lz" $C_EMPTY "$lz"
		expect_eq "$label: no zone revalidation failure logged" \
			"$(dmesg | grep -c 'failed to revalidate zones')" 0
	else
		not_ok "nvmet npo2 last: host sees the namespace" "$(dmesg | tail -5)"
	fi
fi

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

# Layer 71, target VM (patched kernel, nvmet + nvmet-tcp + null_blk built
# in): three zoned null_blk devices exported through one subsystem on an
# NVMe/TCP port to the stock 6.12 host VM (host.sh):
#   ns 1  po2, 256 MiB of 32 MiB zones: the control
#   ns 2  po2, 200 MiB of 32 MiB zones (8 MiB last zone): refused in both
#         phases, as by the base (ZNS has no smaller last zone; v3's
#         zns_smaller_last_zone opt-in is gone)
#   ns 3  npo2, 384 MiB of 96 MiB zones
# In phase 2 the target also connects to its own subsystem over nvme-loop
# as a patched host: every zone of the npo2 ns 3, zone operations and data
# on the backing device. Messages from the host (control port): "phase2",
# "done".
. /vm/guest/common.sh
. /vm/guest/zlib.sh
CFS=/sys/kernel/config/nvmet
S=$CFS/subsystems/$NQN
cfs="zoned=1 memory_backed=1 blocksize=4096"

expect_ok "target: eth0 up with $TGT_IP" net_up "$TGT_IP"

nb1=$(mk_nullb tcp1 $cfs zone_size=$NS1_ZS size=$NS1_SIZE) || not_ok "target: null_blk tcp1"
nb2=$(mk_nullb tcp2 $cfs zone_size=$NS2_ZS size=$NS2_SIZE) || not_ok "target: null_blk tcp2"
nb3=$(mk_nullb tcp3 $cfs zone_size=$NS3_ZS size=$NS3_SIZE) || not_ok "target: null_blk tcp3"
expect_eq "target: ns 2 backing device has a smaller last zone" \
	"$(sysq "$nb2" nr_zones) $(cat /sys/block/"$nb2"/size)" \
	"$(( (NS2_SIZE + NS2_ZS - 1) / NS2_ZS )) $((NS2_SIZE * MB))"

# ns_setup NSID DEVICE: namespace NSID of the subsystem on DEVICE, disabled
ns_setup() {
	mkdir "$S/namespaces/$1" && echo "/dev/$2" >"$S/namespaces/$1/device_path"
}
ns_enable() { echo 1 >"$S/namespaces/$1/enable" 2>/dev/null; }

mkdir "$S" && echo 1 >"$S/attr_allow_any_host" || not_ok "target: subsystem $NQN"
ns_setup 1 "$nb1" && expect_ok "target: ns 1 (po2, no smaller last zone) enabled" ns_enable 1
ns_setup 2 "$nb2" || not_ok "target: ns 2 set up"
# the target refuses the device, as the base does, without a message of
# its own
expect_eq "target: ns 2 has no zns_smaller_last_zone attribute" \
	"$([ -e "$S/namespaces/2/zns_smaller_last_zone" ] && echo present || echo absent)" absent
expect_rc "target: ns 2 (smaller last zone) refused" 1 ns_enable 2
expect_eq "target: ns 2 still disabled" "$(cat "$S/namespaces/2/enable")" 0
ns_setup 3 "$nb3" && expect_ok "target: ns 3 (npo2) enabled" ns_enable 3

# the TCP port, and a loop port for the patched host of phase 2
P=$CFS/ports/1
mkdir "$P" && echo tcp >"$P/addr_trtype" && echo ipv4 >"$P/addr_adrfam" &&
	echo "$TGT_IP" >"$P/addr_traddr" && echo "$NVME_PORT" >"$P/addr_trsvcid" &&
	mkdir "$CFS/ports/2" && echo loop >"$CFS/ports/2/addr_trtype" &&
	ln -s "$S" "$P/subsystems/$NQN"
expect_eq "target: nvmet-tcp listening on $TGT_IP:$NVME_PORT" \
	"$(dmesg | grep -c "enabling port 1 ($TGT_IP:$NVME_PORT)")" 1
vm_log "target: exported, waiting for the host"

msg=$(ctl_recv 150)
expect_eq "target: the host asks for phase 2" "$msg" phase2
if [ "$msg" = phase2 ]; then
	# the host wrote this through NVMe/TCP to ns 1 before asking
	expect_ok "target: the stock host's pattern is on the backing device of ns 1" \
		zonectl verify "/dev/$nb1" "$PAT_SECTOR" "$PAT_BYTES" "$PAT_SEED"
	expect_rc "target: ns 2 still refused" 1 ns_enable 2
	expect_eq "target: ns 2 still disabled" "$(cat "$S/namespaces/2/enable")" 0
	# a patched host (this kernel, over nvme-loop) uses the npo2 ns 3
	ln -s "$S" "$CFS/ports/2/subsystems/$NQN"
	if d=$(nvmet_connect "$NQN" 3); then
		ok "target: patched host connected over nvme-loop"
	else
		not_ok "target: patched host connected over nvme-loop"
	fi
	if [ -n "$d" ]; then
		label="target: patched host, ns 3 (npo2) over nvme-loop"
		zs=$((NS3_ZS * MB)) nz=$((NS3_SIZE / NS3_ZS))
		check_geometry "$label" "/dev/$d" "$zs" "$zs" "$nz" "$zs"
		expect_ok "$label: write 64 KiB at the start of zone 1" \
			zonectl write "/dev/$d" "$zs" 65536 73
		expect_ok "$label: the data is on the backing device" \
			zonectl verify "/dev/$nb3" "$zs" 65536 73
		expect_ok "$label: reset zone 1" zonectl reset "/dev/$d" "$zs" "$zs"
		expect_zone "$label: zone 1 empty on the backing device" "/dev/$nb3" "$zs" $C_EMPTY "$zs"
	else
		not_ok "target: patched host sees ns 3" "$(dmesg | tail -5)"
	fi
	expect_eq "target: no zone revalidation failure on the patched host" \
		"$(dmesg | grep -cE 'Missing zones|failed to revalidate zones')" 0
	msg=$(ctl_recv 120)
	expect_eq "target: the host is done" "$msg" done
fi
true

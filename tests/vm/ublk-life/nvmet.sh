# The kernel's NVMe target exports F's ublk device over the loop transport;
# the remote side must see a po2 ZNS namespace whose zone report matches the
# ublk device's. Sourced by guest.sh.
CFS=/sys/kernel/config/nvmet
NQN=nqn.2026-12.org.zns-npo2:ublk
HOSTNQN=nqn.2026-12.org.zns-npo2:host
if [ ! -d $CFS ]; then
	not_ok "nvmet: configfs tree present" "nvmet not loaded"
else
	mkdir -p $CFS/subsystems/$NQN/namespaces/1 $CFS/ports/1
	echo 1 >$CFS/subsystems/$NQN/attr_allow_any_host
	echo -n "$UF" >$CFS/subsystems/$NQN/namespaces/1/device_path
	expect_ok "nvmet: enable the namespace on $UF" sh -c "echo 1 >$CFS/subsystems/$NQN/namespaces/1/enable"
	echo loop >$CFS/ports/1/addr_trtype
	ln -s $CFS/subsystems/$NQN $CFS/ports/1/subsystems/$NQN
	expect_ok "nvme connect -t loop" nvme connect -t loop -n $NQN -q $HOSTNQN \
		-I 5b0ed1e4-6a61-4c3b-9d47-0c0ffee0c0de
	RB=$(nvmet_disk $NQN)
	expect_match "remote controller and namespace" '^nvme[0-9]+n[0-9]+$' "$RB"
	expect_eq "remote: host-managed zoned block device" "$(cat /sys/block/$RB/queue/zoned 2>/dev/null)" host-managed
	expect_eq "remote: block device visible (po2 zones)" "$(cat /sys/block/$RB/hidden 2>/dev/null || echo 0)" 0
	expect_eq "remote: chunk_sectors = F's po2 zone" "$(cat /sys/block/$RB/queue/chunk_sectors 2>/dev/null)" "$F_PO2"
	expect_eq "remote: nr_zones" "$(cat /sys/block/$RB/queue/nr_zones 2>/dev/null)" "$F_NZ"
	nvme zns id-ns /dev/$RB >/tmp/rzns.txt 2>&1
	expect_match "remote: a ZNS namespace (nvme zns id-ns)" 'lbafe|zsze' "$(cat /tmp/rzns.txt)"
	zone_rows "$UF" >/tmp/z.local
	zone_rows "/dev/$RB" >/tmp/z.remote
	expect_eq "remote: zone count in its report" "$(wc -l </tmp/z.remote)" "$F_NZ"
	expect_same "remote zone report = the ublk device's (start, len, cap, wp, cond)" /tmp/z.local /tmp/z.remote
	# data written remotely arrives in the namespace at the translated LBA
	z=$(awk '$5 == 1 { print NR - 1; exit }' /tmp/z.local)
	if [ -n "$z" ]; then
		wr /dev/$RB $((z * F_PO2)) /tmp/seed1 65536 1
		nvme read "$F" -s $((z * F_ZSZE / 4096)) -c 15 -z 65536 -d /tmp/back.bin >/dev/null 2>&1
		head -c 65536 /tmp/seed1 >/tmp/seed1.64k
		expect_same "remote write of zone $z read back from the namespace at LBA $((z * F_ZSZE / 4096))" \
			/tmp/seed1.64k /tmp/back.bin
	else
		not_ok "an empty zone for the remote write"
	fi
	expect_ok "nvme disconnect" nvme disconnect -n $NQN
	rm -f $CFS/ports/1/subsystems/$NQN
	echo 0 >$CFS/subsystems/$NQN/namespaces/1/enable
	rmdir $CFS/subsystems/$NQN/namespaces/1 $CFS/subsystems/$NQN $CFS/ports/1 2>/dev/null
fi

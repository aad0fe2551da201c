# Layer 47, storage node VM (Debian's stock 6.12: ublk_drv, nvmet,
# nvmet-tcp, virtio_net): serves its npo2 namespace with `map --ublk` and
# exports the ublk device over NVMe/TCP to the host VM (host.sh). Then it
# does what the host asks over the control port: "kill" SIGKILLs the
# server, "term" sends it SIGTERM (what `systemctl stop` and `restart`
# send: under the export, an in-kernel user, the server parks and says
# why); after a stall a new `map --ublk` takes the device back;
# "reexport" restarts the export (the host reads across it);
# "reboot" reboots the node (what systemd stops first, the export, then
# reboot -f) and the next boot does what systemd would, from what the node's own disk (ctrl 1) kept:
# `map --ublk`, then the export from the recorded file; "done" ends. Checks here: the ublk device's geometry and zone append limit
# against the configured namespace, the export, each stop and restart,
# at the end that the host's data is on the namespace (read through its
# ng node), and that unmap refuses an exported device until
# `export --remove`.
. /vm/guest/common.sh
Z=nvme-zns-npo2
CFS=/sys/kernel/config/nvmet
S=$CFS/subsystems/$NQN
P=$CFS/ports/1

expect_ok "node: eth0 up with $NODE_IP" net_up "$NODE_IP"
NG=$(vm_ng 0 1)
CONF=/etc/zns-npo2/export-$MAPNAME.conf
# the node's own disk (ctrl 1): what a node's root file system keeps across
# a reboot (/etc/zns-npo2, and here which boot this is)
DISK=$(vm_blk 1 1) || DISK=/dev/missing-node-disk
dd if="$DISK" bs=4096 count=1 2>/dev/null | tr -d '\000' >/tmp/kept
BOOT=$(sed -n 's/^boot=//p' /tmp/kept)
BOOT=${BOOT:-1}
vm_log "node: boot $BOOT"
mkdir -p /var/log
syslogd -O /tmp/syslog 2>/dev/null || vm_log "no syslogd"
cfs_ids() { cat $S/namespaces/1/device_uuid $S/namespaces/1/device_nguid $S/attr_serial | tr '\n' ' '; }
# the boot after "reboot": a new kernel, a new ublk device over the same
# namespace (its zones and data kept by the drive), the export made again
# from the recorded file with the identifiers it had
boot2() {
	mkdir -p /etc/zns-npo2
	sed -n 's/^conf=//p' /tmp/kept >"$CONF"
	expect_ok "node: boot 2: map --ublk $NG --name $MAPNAME (the mapping's unit)" \
		run_to 90 $Z map --ublk "$NG" --name $MAPNAME -o json
	cp /tmp/vm-cmd.out /tmp/map.json
	U=ublkb$(jget ublk_dev_id /tmp/map.json)
	expect_eq "node: boot 2: a new device, not a recovered one" "$(jget recovered /tmp/map.json)" false
	args=$(sed -n 's/^ZNP_EXPORT_ARGS=//p' "$CONF")
	expect_ok "node: boot 2: export $MAPNAME \$ZNP_EXPORT_ARGS (the export unit)" $Z export $MAPNAME $args
	expect_eq "node: boot 2: the same UUID, NGUID and serial as before the reboot" \
		"$(cfs_ids)" "$(sed -n 's/^ids=//p' /tmp/kept)"
	vm_log "node: boot 2: exported /dev/$U again, waiting for the host"
}
if [ "$BOOT" = 2 ]; then
	boot2
else
	expect_eq "node: the configured namespace (size, zone size)" \
		"$(ns_conf 0 1 size) $(ns_conf 0 1 zsze)" "$NS_SIZE $NS_ZSZE"

	expect_ok "node: map --ublk $NG --name $MAPNAME" run_to 90 $Z map --ublk "$NG" --name $MAPNAME -o json
	cp /tmp/vm-cmd.out /tmp/map.json
	U=ublkb$(jget ublk_dev_id /tmp/map.json)
	PID=$(jget server_pid /tmp/map.json)
	expect_eq "node: $U geometry (chunk_sectors, nr_zones, size)" \
		"$(cat /sys/block/$U/queue/chunk_sectors) $(cat /sys/block/$U/queue/nr_zones) $(cat /sys/block/$U/size)" \
		"$PO2 $NS_NZ $((NS_NZ * PO2))"
	# the server shortens the kernel's 30 s request timeout (a saturated dead
	# server is noticed by it on 6.12; the host's own commands time out at 30 s)
	expect_eq "node: $U request timeout 10 s, not the kernel's 30 s" \
		"$(cat /sys/block/$U/queue/io_timeout)" 10000
	expect_eq "node: $U zone append limit (31 pages of the hidden namespace's 255 sectors)" \
		"$(cat /sys/block/$U/queue/zone_append_max_bytes)" "$UBLK_APPEND"

	# the export: refused for the namespace node, made for the mapping's name
	expect_rc "node: export of the namespace node $NG refused (3)" 3 $Z export "$NG" --nqn "$NQN" \
		--traddr "$NODE_IP" --hostnqn "$HOSTNQN"
	expect_match "node: ... naming the mapping to export" "its mapping is $MAPNAME \\(/dev/$U\\): export $MAPNAME" \
		"$(cat /tmp/vm-cmd.out)"
	expect_ok "node: export $MAPNAME over TCP to the host, --persist" $Z export $MAPNAME --nqn "$NQN" \
		--traddr "$NODE_IP" --trsvcid "$NVME_PORT" --hostnqn "$HOSTNQN" --persist -o json
	cp /tmp/vm-cmd.out /tmp/export.json
	expect_eq "node: --persist wrote $CONF, mode 644, named in the output" \
		"$(stat -c '%F %a' "$CONF" 2>&1) $(jget config /tmp/export.json)" "regular file 644 $CONF"
	# what the export unit runs: ZNP_EXPORT_ARGS as one line of words
	expect_eq "node: ... holding the options given, for zns-npo2-export@$MAPNAME" \
		"$(grep -v '^#' "$CONF")" \
		"ZNP_EXPORT_ARGS=--nqn $NQN --transport tcp --traddr $NODE_IP --trsvcid $NVME_PORT --hostnqn $HOSTNQN"
	expect_eq "node: the export names the device and a new port" \
		"$(jget device /tmp/export.json) $(jget port /tmp/export.json) $(jget port_created /tmp/export.json)" \
		"/dev/$U 1 true"
	expect_eq "node: configfs: namespace 1 of $NQN is /dev/$U, enabled" \
		"$(cat $S/namespaces/1/device_path) $(cat $S/namespaces/1/enable)" "/dev/$U 1"
	expect_eq "node: configfs: only $HOSTNQN may connect" \
		"$(cat $S/attr_allow_any_host) $(ls $S/allowed_hosts)" "0 $HOSTNQN"
	expect_eq "node: configfs: port 1 is tcp ipv4 $NODE_IP:$NVME_PORT with $NQN" \
		"$(cat $P/addr_trtype $P/addr_adrfam $P/addr_traddr $P/addr_trsvcid | tr '\n' ' ')$(ls $P/subsystems)" \
		"tcp ipv4 $NODE_IP $NVME_PORT $NQN"
	expect_eq "node: nvmet-tcp listening on $NODE_IP:$NVME_PORT" \
		"$(dmesg | grep -c "enabling port 1 ($NODE_IP:$NVME_PORT)")" 1
	vm_log "node: exported /dev/$U, waiting for the host"
fi

# stop SIG N: the host's Nth fault, SIGKILL or SIGTERM to the server; the
# device and the export stay, and after a stall (the host's writes wait) a
# new map --ublk takes the device back
stop() {
	local sig=$1 n="$1 $2" pid sl0 i
	pid=$($Z status "$U" -o json 2>/dev/null | sed -n 's/.*"server_pid": \([0-9]*\).*/\1/p' | head -1)
	sl0=$(grep -c . /tmp/syslog 2>/dev/null)
	kill -"$sig" "$pid"
	# a parking server first finishes the requests it started (up to 30 s)
	i=0
	while ! proc_gone "$pid" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	expect_eq "node: $n: the server ($pid) is gone" "$(proc_gone "$pid" && echo gone)" gone
	vm_log "node: $n: the server ended $((i / 10)).$((i % 10)) s after the signal"
	if [ "$sig" = TERM ]; then
		# the server's own look sees the export (configfs) before the
		# driver is asked: the record of why it did not remove the device
		expect_match "node: $n: the server parked and says why: the nvmet export" \
			"ublk[0-9]*: /dev/$U may be in use \(exported by NVMe target subsystem $NQN namespace 1\): leaving it quiesced" \
			"$(tail -n +$((sl0 + 1)) /tmp/syslog 2>/dev/null)"
		tail -n +$((sl0 + 1)) /tmp/syslog 2>/dev/null | grep 'may be in use' |
			sed 's/^.*nvme-zns-npo2/# node: server: nvme-zns-npo2/'
		expect_eq "node: $n: no STOP_DEV or TRY_STOP_DEV failure logged" \
			"$(tail -n +$((sl0 + 1)) /tmp/syslog 2>/dev/null | grep -c 'STOP_DEV failed')" 0
	fi
	expect_eq "node: $n: /dev/$U stays (quiesced)" "$([ -b /dev/$U ] && echo yes)" yes
	expect_eq "node: $n: namespace 1 is still /dev/$U, enabled, on port 1" \
		"$(cat $S/namespaces/1/device_path $S/namespaces/1/enable | tr '\n' ' ')$(ls $P/subsystems)" \
		"/dev/$U 1 $NQN"
	# the host's writes wait meanwhile
	sleep 3
	t0=$(cut -d' ' -f1 /proc/uptime)
	expect_ok "node: $n: a new map --ublk takes /dev/$U back" \
		run_to 90 $Z map --ublk "$NG" --name $MAPNAME -o json
	cp /tmp/vm-cmd.out /tmp/remap.json
	expect_eq "node: $n: same device, recovered" \
		"ublkb$(jget ublk_dev_id /tmp/remap.json) $(jget recovered /tmp/remap.json)" "$U true"
	vm_log "node: $n: served again $t0 -> $(cut -d' ' -f1 /proc/uptime)"
}

# unexport WHAT: export --remove (the export unit's ExecStop): the
# namespace's own ANA group turns inaccessible (the host holds its new
# commands), the device's requests in flight end, and only then does the
# host lose the subsystem, so that nothing it sent is left unanswered (it
# would send it again: a write refused at the moved write pointer, a Zone
# Append written twice)
unexport() {
	local grp
	grp=$(cat $S/namespaces/1/ana_grpid)
	expect_eq "node: $1: the namespace has an ANA group of its own (not 1), optimized on port 1" \
		"$([ "$grp" -ge 2 ] && echo own) $(cat $P/ana_groups/"$grp"/ana_state 2>&1)" "own optimized"
	expect_ok "node: $1: export --remove $MAPNAME (ExecStop)" \
		$Z export --remove $MAPNAME -o json
	cp /tmp/vm-cmd.out /tmp/unexport.json
	vm_log "node: $1: drain $(jget drain /tmp/unexport.json) in $(jget drain_ms /tmp/unexport.json) ms, ANA group $(jget ana_group /tmp/unexport.json)"
	expect_eq "node: $1: ... the hosts' commands drained first (ANA group $grp inaccessible)" \
		"$(jget drain /tmp/unexport.json) $(jget ana_group /tmp/unexport.json)" "done $grp"
	expect_eq "node: $1: ... the subsystem, its link and its ANA group left port 1" \
		"$([ -e "$S" ] && echo there || echo gone) $(ls $P/subsystems | wc -l) $([ -e $P/ana_groups/"$grp" ] && echo there || echo gone)" \
		"gone 0 gone"
}

# reexport: what `systemctl restart zns-npo2-export@` does while the host
# reads (its file system mounted and idle): export --remove (ExecStop), then the export from the recorded
# file (ExecStart); the namespace's UUID and NGUID and the subsystem's
# serial come back the same (nvmet would draw new ones)
reexport() {
	local ids0 ids1 args
	ids0=$(cfs_ids)
	vm_log "node: reexport: identifiers $ids0"
	expect_match "node: reexport: a version 8 UUID, an NGUID and a 20-digit serial" \
		'^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12} [0-9a-f-]{32,36} [0-9a-f]{20} $' \
		"$ids0"
	unexport reexport
	sleep 2
	args=$(sed -n 's/^ZNP_EXPORT_ARGS=//p' "$CONF")
	expect_ok "node: reexport: export $MAPNAME \$ZNP_EXPORT_ARGS (ExecStart)" $Z export $MAPNAME $args
	ids1=$(cfs_ids)
	expect_eq "node: reexport: the same UUID, NGUID and serial" "$ids1" "$ids0"
}

# reboot: what a reboot through systemd does first (the export unit stops
# before the server and the network: export --remove; the host reads, its
# file system mounted and idle), the export file and the identifiers kept on
# the node's disk, then reboot -f
node_reboot() {
	local ids
	expect_eq "node: the host asked for one kill, one SIGTERM, one export restart" \
		"$kills $terms $reexports" "1 1 1"
	ids=$(cfs_ids)
	unexport reboot
	{ echo boot=2; echo "conf=$(grep '^ZNP_EXPORT_ARGS=' "$CONF")"; echo "ids=$ids"; } >/tmp/keep
	expect_ok "node: the export file and identifiers kept on $DISK" \
		dd if=/tmp/keep of="$DISK" bs=4096 count=1 conv=sync
	sync
	vm_log "node: rebooting"
	touch /tmp/vm-reboot
}

kills=0 terms=0 reexports=0
while :; do
	msg=$(ctl_recv 500)
	case "$msg" in
	kill)
		kills=$((kills + 1))
		stop KILL $kills
		;;
	term)
		terms=$((terms + 1))
		stop TERM $terms
		;;
	reexport)
		reexports=$((reexports + 1))
		reexport
		;;
	reboot)
		node_reboot
		exit 0
		;;
	done) break ;;
	*)
		not_ok "node: control message" "got '$msg'"
		break
		;;
	esac
done
expect_eq "node: boot 2: the host asked for nothing but the end" "$kills $terms $reexports" "0 0 0"

# the host wrote a pattern at the start of zone 3 of the namespace it sees;
# it lies at zone 3 of the npo2 namespace (LBA 3 x zone size)
pat=/tmp/pat.bin
mk_pattern "$pat"
nvme read "$NG" -s $((3 * NS_ZSZE / 4096)) -c 15 -z 65536 -d /tmp/back.bin >/dev/null 2>&1
expect_same "node: the host's pattern is on the namespace at LBA $((3 * NS_ZSZE / 4096))" "$pat" /tmp/back.bin

# unmap of an exported device: the export is a user unmap sees (exit 4),
# nothing is removed
expect_rc "node: unmap $MAPNAME refused while exported (4)" 4 run_to 60 $Z unmap $MAPNAME
expect_match "node: ... naming the export" "exported by NVMe target subsystem $NQN" \
	"$(cat /tmp/vm-cmd.out)"
expect_eq "node: ... /dev/$U, its server and namespace 1 are still there" \
	"$([ -b /dev/$U ] && echo yes) $(proc_gone "$($Z status "$U" -o json 2>/dev/null | sed -n 's/.*"server_pid": \([0-9]*\).*/\1/p' | head -1)" && echo gone || echo serving) $(cat $S/namespaces/1/enable)" \
	"yes serving 1"
expect_ok "node: export --remove $MAPNAME" $Z export --remove $MAPNAME -o json
expect_eq "node: the subsystem is gone, the port stays without it, $CONF stays" \
	"$([ -e "$S" ] && echo there || echo gone) $(ls $P/subsystems | wc -l) $([ -f "$CONF" ] && echo kept)" \
	"gone 0 kept"
# the unit's ExecStart: export NAME $ZNP_EXPORT_ARGS, the value read as
# EnvironmentFile= reads it and split at blanks
ZNP_EXPORT_ARGS=$(sed -n 's/^ZNP_EXPORT_ARGS=//p' "$CONF")
expect_ok "node: export $MAPNAME with the recorded ZNP_EXPORT_ARGS (the unit's ExecStart)" \
	$Z export $MAPNAME $ZNP_EXPORT_ARGS
expect_eq "node: ... configfs as configured: /dev/$U enabled, only $HOSTNQN, on port 1" \
	"$(cat $S/namespaces/1/device_path $S/namespaces/1/enable $S/attr_allow_any_host | tr '\n' ' ')$(ls $S/allowed_hosts) $(ls $P/subsystems)" \
	"/dev/$U 1 0 $HOSTNQN $NQN"
expect_ok "node: export --remove --persist $MAPNAME" $Z export --remove $MAPNAME --persist -o json
cp /tmp/vm-cmd.out /tmp/unexport.json
expect_eq "node: ... the subsystem and $CONF are gone" \
	"$([ -e "$S" ] && echo there || echo gone) $([ -e "$CONF" ] && echo there || echo gone) $(jget config /tmp/unexport.json)" \
	"gone gone $CONF"
expect_ok "node: unmap $MAPNAME after the export is gone" run_to 60 $Z unmap $MAPNAME
expect_eq "node: no I/O error for /dev/$U" "$(dmesg | grep -c "I/O error.*$U\|$U.*I/O error")" 0
true

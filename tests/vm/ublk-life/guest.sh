# ublk mappings on Debian's stock kernel: life cycle, file systems, restart
# after SIGKILL, nvmet export, the interlock of the zone commands, SIGTERM
# under users the server cannot see and a reused device id (busybox ash;
# sourced by /init after lib.sh).
#
# Namespaces (tests/layers.d/53-vm-ublk-life.sh):
#   A ctrl 0 nsid 1: npo2 48M/48M, 16 zones: lifecycle, btrfs, fio across a kill
#   F ctrl 0 nsid 2: npo2 24M/24M, 48 zones: f2fs (zoned part), second server
#   D ctrl 0 nsid 3: conventional 256M: f2fs metadata
# Expected values come from /vm/ns.conf (what QEMU was configured with) and
# from the namespace read through its ng node with nvme-cli, never from the
# tool's own earlier output.

Z=nvme-zns-npo2
MIB=1048576
export DM_DISABLE_UDEV=1


# server_pid UBLKB: the server PID status reports for /dev/ublkbN
server_pid() {
	$Z status "$1" -o json >/tmp/st.json 2>/dev/null
	sed -n 's/.*"server_pid": \([0-9]*\).*/\1/p' /tmp/st.json | head -1
}
# gone PID: the process has exited (a zombie of the init script counts: it ran to its end)
gone() { proc_gone "$1"; }
health() {
	$Z status "$1" -o json >/tmp/st.json 2>/dev/null
	sed -n 's/.*"health": "\([a-z-]*\)".*/\1/p' /tmp/st.json | head -1
}

A=$(vm_ng 0 1)
F=$(vm_ng 0 2)
D=$(vm_blk 0 3)
vm_summary
A_ZSZE=$(ns_conf 0 1 zsze)
A_SIZE=$(ns_conf 0 1 size)
A_NZ=$((A_SIZE / A_ZSZE))
A_PO2=$(po2_roundup $((A_ZSZE / 512)))	# sectors
F_ZSZE=$(ns_conf 0 2 zsze)
F_NZ=$(($(ns_conf 0 2 size) / F_ZSZE))
F_PO2=$(po2_roundup $((F_ZSZE / 512)))

mkdir -p /var/log
syslogd -O /tmp/syslog 2>/dev/null || vm_log "no syslogd"

# ---- check / list before anything is mapped -----------------------------------
expect_rc "check A on the stock kernel with ublk_drv: mappable through ublk (15)" 15 $Z check "$A"
$Z check "$A" -o json >/tmp/check.json
expect_eq "check A json verdict" "$(jget verdict /tmp/check.json)" mappable-ublk
expect_match "check A json reasons" 'ublk-zoned-available' "$(cat /tmp/check.json)"
expect_rc "check of the conventional namespace D stays not-zns (14)" 14 $Z check "$D"

# ---- map A as a daemon -----------------------------------------------------------
# two queues: btrfs's Zone Appends to one zone then wait on each other
# across queues (fs.sh checks that no I/O error comes of it)
t0=$(cut -d' ' -f1 /proc/uptime)
expect_ok "map --ublk A (daemon, --queues 2)" run_to 60 $Z map --ublk "$A" --queues 2 -o json
cp /tmp/vm-cmd.out /tmp/mapA.json
UA=/dev/ublkb$(jget ublk_dev_id /tmp/mapA.json)
vm_log "A served as $UA after $(cut -d' ' -f1 /proc/uptime) (started $t0)"
expect_eq "map returned once the device is live" "$([ -b "$UA" ] && echo yes)" yes
PA=$(jget server_pid /tmp/mapA.json)
expect_eq "the server runs in the background" "$([ -d /proc/$PA ] && echo yes)" yes
expect_eq "the daemon left the caller's session" "$(cut -d' ' -f6 /proc/$PA/stat)" "$PA"
expect_eq "chunk_sectors = po2 round-up of the namespace zone" "$(cat /sys/block/${UA#/dev/}/queue/chunk_sectors)" "$A_PO2"
expect_eq "nr_zones = namespace zones" "$(cat /sys/block/${UA#/dev/}/queue/nr_zones)" "$A_NZ"
expect_eq "size = zones x po2 zone" "$(cat /sys/block/${UA#/dev/}/size)" $((A_NZ * A_PO2))
expect_eq "two hardware queues, as asked" "$(ls -d /sys/block/${UA#/dev/}/mq/* | wc -l)" 2

# ---- state under /run/zns-npo2 -----------------------------------------------------
expect_eq "state dir mode 0700" "$(stat -c %a /run/zns-npo2)" 700
rec=$(ls /run/zns-npo2/*.ublk 2>/dev/null | head -1)
expect_eq "one record" "$(ls /run/zns-npo2/*.ublk | wc -l)" 1
expect_eq "record: server pid" "$(sed -n 's/^pid=//p' "$rec")" "$PA"
expect_eq "record: ublk dev id" "/dev/ublkb$(sed -n 's/^dev_id=//p' "$rec")" "$UA"
expect_eq "record: nsid of the namespace" "$(sed -n 's/^nsid=//p' "$rec")" 1
expect_match "record: identity of the namespace" '^(nguid|eui64|sn):' "$(sed -n 's/^ident=//p' "$rec")"
expect_eq "record mode 0600" "$(stat -c %a "$rec")" 600

# ---- status / list -----------------------------------------------------------------------
$Z status -o json >/tmp/status.json
expect_eq "status: health alive" "$(health "$UA")" alive
expect_eq "status: server pid" "$(server_pid "$UA")" "$PA"
expect_match "status (all): lists the ublk mapping" "\"device\": \"${UA#/dev/}\"" "$(cat /tmp/status.json)"
expect_match "status (all): po2 zone sectors" "\"po2_zone_sectors\": $A_PO2" "$(cat /tmp/status.json)"
$Z status >/tmp/status.txt
expect_match "status text: health and pid" "ublk alive, pid $PA" "$(cat /tmp/status.txt)"
$Z list -o json >/tmp/list.json
expect_match "list json: A mapped_as ${UA#/dev/}" "\"mapped_as\": \"${UA#/dev/}\"" "$(tr -d '\n' </tmp/list.json)"
$Z list >/tmp/list.txt
expect_match "list text: MAPPED-AS ${UA#/dev/}" "${A#/dev/} .* ${UA#/dev/} " "$(cat /tmp/list.txt)"

# ---- refusals --------------------------------------------------------------------------------
expect_rc "a second server on A is refused (4)" 4 run_to 30 $Z map --ublk "$A"
expect_match "... naming the first server" "already served by server pid $PA as $UA" "$(cat /tmp/vm-cmd.out)"
expect_match "... and the refusal is in the system log" "already served by server pid $PA" "$(cat /tmp/syslog 2>/dev/null)"
expect_rc "map --ublk of a conventional namespace is refused (3)" 3 $Z map --ublk "$D"
expect_rc "--foreground without --ublk is a usage error (2)" 2 $Z map "$A" --foreground

# ---- a second namespace served at the same time -------------------------------
expect_ok "map --ublk F while A is served" run_to 60 $Z map --ublk "$F" -o json
cp /tmp/vm-cmd.out /tmp/mapF.json
UF=/dev/ublkb$(jget ublk_dev_id /tmp/mapF.json)
expect_eq "F has its own device" "$([ "$UF" != "$UA" ] && [ -b "$UF" ] && echo yes)" yes
expect_eq "F chunk_sectors" "$(cat /sys/block/${UF#/dev/}/queue/chunk_sectors)" "$F_PO2"
expect_eq "F nr_zones" "$(cat /sys/block/${UF#/dev/}/queue/nr_zones)" "$F_NZ"
expect_eq "two records" "$(ls /run/zns-npo2/*.ublk | wc -l)" 2
expect_eq "A still alive" "$(health "$UA")" alive

. /vm/guest/fs.sh
. /vm/guest/kill.sh
. /vm/guest/nvmet.sh
. /vm/guest/unseen.sh

# ---- unmap --------------------------------------------------------------------------------------
mkdir -p /mnt/u
mkfs.btrfs -f -q -d single -m single "$UA" >/dev/null 2>&1
expect_ok "mount btrfs on A for the unmap test" mount -t btrfs "$UA" /mnt/u
. /vm/guest/interlock.sh
expect_rc "unmap while mounted is refused (4)" 4 $Z unmap "$UA"
expect_match "... saying it is mounted" "in use \(mounted on /mnt/u\)" "$(cat /tmp/vm-cmd.out)"
expect_eq "... and the device is still there" "$(health "$UA")" alive
expect_ok "umount" umount /mnt/u
PA=$(server_pid "$UA")
expect_ok "unmap A" run_to 60 $Z unmap "$UA"
expect_eq "A: device gone" "$([ -e "$UA" ] || echo gone)" gone
i=0
while ! gone "$PA" && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "A: server exited" "$(gone "$PA" && echo gone)" gone
expect_eq "A: record removed" "$(ls /run/zns-npo2/*.ublk 2>/dev/null | wc -l)" 1
expect_ok "unmap F by its namespace node" run_to 60 $Z unmap "$F"
expect_eq "F: device gone" "$([ -e "$UF" ] || echo gone)" gone
expect_eq "no records left" "$(ls /run/zns-npo2/*.ublk 2>/dev/null | wc -l)" 0
expect_rc "unmap of something unmapped: unsuitable (3)" 3 $Z unmap /dev/ublkb9
$Z status -o json >/tmp/status.json
expect_eq "status: nothing mapped" "$(jget nr_mappings /tmp/status.json)" 0

# ---- --persist and map --restore (no systemd in this guest: restore starts the daemon) ----
expect_ok "map --ublk --persist --name po2a" run_to 60 $Z map --ublk "$A" --persist --name po2a -o json
cp /tmp/vm-cmd.out /tmp/mapP.json
UP=/dev/ublkb$(jget ublk_dev_id /tmp/mapP.json)
PP=$(jget server_pid /tmp/mapP.json)
expect_match "recorded in the mapping file as a ublk mapping" '^po2a (nguid|eui64|sn):.* via=ublk$' \
	"$(grep '^po2a ' /etc/zns-npo2/mappings.conf)"
$Z status po2a -o json >/tmp/stP.json
expect_match "status by name: persisted" '"persisted": true' "$(cat /tmp/stP.json)"
# --persist of the served namespace under another name: refused (the lock
# comes first) before anything is recorded: po2a keeps its entry
expect_rc "map --ublk --persist --name po2b of the served namespace: refused (4)" 4 \
	run_to 60 $Z map --ublk "$A" --persist --name po2b
expect_eq "... po2a still recorded, po2b not" \
	"$(grep -c '^po2a ' /etc/zns-npo2/mappings.conf) $(grep -c '^po2b ' /etc/zns-npo2/mappings.conf)" "1 0"
kill -KILL "$PP"
i=0
while [ "$(health "$UP")" != dead-quiesced ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "persisted mapping's server killed: dead-quiesced" "$(health "$UP")" dead-quiesced
expect_ok "map --restore" run_to 90 $Z map --restore -o json
expect_match "restore: the ublk entry was mapped again" '"result": "mapped"' "$(cat /tmp/vm-cmd.out)"
expect_eq "restore took the same device back: alive" "$(health "$UP")" alive
expect_match "... with a new server" '^[0-9]+$' "$(server_pid "$UP")"
expect_eq "... not the dead one" "$([ "$(server_pid "$UP")" != "$PP" ] && echo new)" new
expect_ok "map --restore again: already mapped" run_to 60 $Z map --restore -o json
expect_match "restore: already-mapped" '"result": "already-mapped"' "$(cat /tmp/vm-cmd.out)"
expect_ok "unmap po2a by its name" run_to 60 $Z unmap po2a
expect_eq "forgotten in the mapping file" "$(grep -c '^po2a ' /etc/zns-npo2/mappings.conf)" 0
expect_eq "device gone" "$([ -e "$UP" ] || echo gone)" gone
# lock, create, record, undo: a mapping that cannot be recorded is stopped
# and deleted again, by the daemon and in the foreground
for f in "" --foreground; do
	expect_rc "map --ublk --persist${f:+ $f}, mapping file not writable: failed (1)" 1 \
		run_to 60 $Z map --ublk "$A" --persist --name po2x $f --config /proc/znp-none/mappings.conf
	expect_match "... says it is not mapped" \
		'cannot record it in /proc/znp-none/mappings.conf: .*; not mapped' "$(cat /tmp/vm-cmd.out)"
	expect_eq "... no ublk device left" "$(ls -d /dev/ublkb* 2>/dev/null | wc -l)" 0
	expect_eq "... no record left" "$(ls /run/zns-npo2/*.ublk 2>/dev/null | wc -l)" 0
done

# ---- --foreground as systemd runs it (zns-npo2-ublk@.service, Type=notify) ----
# READY=1 on $NOTIFY_SOCKET once the device is live; SIGTERM (systemctl stop)
# stops the server, deletes the device and drops the record.
notify-listen /run/znp-notify.sock 60 >/tmp/notify.out 2>/tmp/notify.err &
lp=$!
i=0
while [ ! -S /run/znp-notify.sock ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
expect_eq "--foreground: the listener's socket is there" "$([ -S /run/znp-notify.sock ] && echo yes)" yes
NOTIFY_SOCKET=/run/znp-notify.sock $Z map --ublk "$A" --foreground >/tmp/fg.out 2>/tmp/fg.err &
fp=$!
wait $lp
expect_eq "--foreground: READY=1 on NOTIFY_SOCKET" "$(cat /tmp/notify.out /tmp/notify.err)" "READY=1"
UG=$(ls -d /dev/ublkb* 2>/dev/null | head -1)
expect_eq "--foreground: the device is live when READY=1 arrives" "$(health "$UG")" alive
expect_eq "--foreground: the server is the process systemd started" "$(server_pid "$UG")" "$fp"
kill -TERM "$fp"
i=0
while ! gone "$fp" && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
wait "$fp"
expect_eq "--foreground: SIGTERM stops it with exit 0" "$?" 0
expect_eq "--foreground: device deleted on stop" "$([ -e "$UG" ] || echo gone)" gone
expect_eq "--foreground: record dropped on stop" "$(ls /run/zns-npo2/*.ublk 2>/dev/null | wc -l)" 0

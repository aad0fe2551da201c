#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest side of tests/layers.d/90-vm-systemd.sh, in the Debian 12 system
# booted with systemd as PID 1: run by znp-test.service once the boot is
# done. The kernel command line names the steps of this QEMU run
# (znp.steps=install,boot; znp.run=ID names the run's step counter on the
# root file system): each boot runs the next step, then reboots, or powers
# off after the last. (The layer runs one step per QEMU run: a warm reset
# under TCG left the stock kernel in soft lockups on the next boot.)
# Prints "ok"/"not ok" lines for what the guest can judge, "ZNP-FACT: key
# value" lines for the host to judge (checksums against the host's own,
# unit states, times) and "GUEST-RESULT: P passed, F failed", all after a
# "ZNP-BOOT: N STEP" line.
#   install  dpkg -i the package, check the units, dpkg -i nvme-cli with
#            the plugin, `nvme zns-npo2 list`, map --ublk --persist the
#            hidden npo2 namespace (ctrl 1 nsid 1), mkfs.btrfs, fstab by
#            UUID, copy the host's data file, checksum
#            (zdata), then map --ublk --persist the npo2 namespace of ctrl
#            2 (zhot: in an NVMe subsystem, attached in this boot only); then
#            `export --persist` of zdata over TCP on loopback, a host's
#            connection from this system, `export --remove` (the file
#            stays), `systemctl enable` of its export unit
#   boot     after a reboot: what systemd restored and mounted, data, scrub
#   boot-hot boot, then `nvme attach-ns` of ctrl 2's namespace (QEMU
#            declared it detached): the udev rule's restore serves zhot;
#            before that, the export unit systemd started: configfs, a
#            host's connection, data through it, its stop while connected,
#            started again for the shutdown;
#            last, a file written into the mount and not synced: the
#            poweroff through systemd unmounts it dirty
#   boot-load  boot; the previous shutdown's journal (the unmount before
#            the server's stop), the unsynced file, `btrfs check` of the
#            unmounted device; then `systemctl restart` and `systemctl kill
#            -s KILL` of the ublk unit while a writer runs; the writer's
#            files, the data file and a scrub after both; then an upgrade
#            of the package (upgrade/zns-npo2_*.deb) while served; last,
#            the export unit disabled, its file removed, the mount and the
#            server stopped, its fstab line dropped,
#            `dpkg -r` and `dpkg -P`
#   patched-map  (the patched kernel: npo2 namespaces have block devices)
#            dpkg -i the package again, map --persist (dm-po2zone) of
#            ctrl 3's namespace, mkfs.btrfs, fstab by UUID after the
#            restore unit, the host's data file copied in and read back
#   patched-boot  after a reboot: the restore unit made the dm-po2zone
#            mapping, systemd mounted it from fstab before local-fs.target;
#            its table and UUID, data, scrub
set -u
exec >/dev/ttyS0 2>&1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
steps=$(sed -n 's/.*znp\.steps=\([a-z0-9,-]*\).*/\1/p' /proc/cmdline | tr , ' ')
mkdir -p /var/lib/znp-test
# the counter is per QEMU run: znp.run=ID on the command line
run=$(sed -n 's/.*znp\.run=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
cnt=/var/lib/znp-test/count-$run
n=$(cat "$cnt" 2>/dev/null || echo 0)
echo $((n + 1)) >"$cnt"
sync
set -- $steps
total=$#
shift "$n" 2>/dev/null || set --
step=${1:-none}
echo "ZNP-BOOT: $((n + 1)) $step"
pass=0 fail=0
MNT=/srv/zdata
NAME=zdata
UNIT=zns-npo2-ublk@$NAME.service
HOT=zhot
HUNIT=zns-npo2-ublk@$HOT.service
nosync=

ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { local d=$1; shift; if "$@" >/tmp/check.out 2>&1; then ok "$d"; else notok "$d (exit $?: $(head -c 300 /tmp/check.out | tr '\n' ' '))"; fi; }
fact() { local k=$1; shift; echo "ZNP-FACT: $k $*"; }
# a block of text for the host's report, between markers
block() { echo "ZNP-BEGIN: $1"; cat; echo "ZNP-END: $1"; }
finish() {
	echo "GUEST-RESULT: $pass passed, $fail failed"
	# (boot-hot leaves its last file dirty for the shutdown to write)
	[ -n "$nosync" ] || sync
	if [ $((n + 1)) -lt "$total" ]; then
		systemctl --no-block reboot
	else
		systemctl --no-block poweroff
	fi
	exit 0
}
trap finish EXIT

# the controller by serial, the namespace by its NSID (instance names move)
vm_ctrl() {
	local d
	for d in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$d/serial" 2>/dev/null)" = "znsnpo2-c$1" ] && { basename "$d"; return 0; }
	done
	return 1
}
vm_ns() {
	local c d
	c=$(vm_ctrl "$1") || return 1
	for d in /sys/class/nvme/"$c"/nvme*n*; do
		[ "$(cat "$d/nsid" 2>/dev/null)" = "$2" ] && { basename "$d"; return 0; }
	done
	return 1
}
vm_ng() {
	local c d
	c=$(vm_ctrl "$1") && d=$(vm_ns "$1" "$2") || return 1
	echo "/dev/ng${c#nvme}n${d##*n}"
}
mono() { systemctl show -P "$2" "$1"; }

state=$(timeout 120 systemctl is-system-running --wait 2>&1)
fact state "$state"
fact failed "$(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
fact kernel "$(uname -r)"
fact uptime "$(cut -d' ' -f1 /proc/uptime)"
fact ns "ctrl1=$(vm_ctrl 1) ctrl0=$(vm_ctrl 0) ng=$(vm_ng 1 1) hidden=$(cat /sys/block/"$(vm_ns 1 1)"/hidden)"

# boot_report MNT UNIT...: what the host judges of a boot's restore and
# mount: each unit's state and monotonic times and their journal, the
# restore's result, I/O errors, the harness's lines, a scrub of MNT
boot_report() {
	local mnt=$1 u j=()
	shift
	for u; do
		fact "t:$u" "$(mono "$u" ActiveState) $(mono "$u" ActiveEnterTimestampMonotonic) $(mono "$u" InactiveExitTimestampMonotonic) $(mono "$u" ExecMainExitTimestampMonotonic 2>/dev/null)"
		j+=(-u "$u")
	done
	fact restore-result "$(mono zns-npo2-restore.service Result) $(mono zns-npo2-restore.service ExecMainStatus)"
	journalctl -b -o short-monotonic --no-pager "${j[@]}" | block journal
	fact io-errors "$(journalctl -b -k --no-pager | grep -ciE 'I/O error|BTRFS (error|critical)')"
	journalctl -b -o cat --no-pager -u znp-zone-state.service | grep zone-state: | block zone-state
	check "btrfs scrub" timeout 120 btrfs scrub start -B "$mnt"
	block scrub </tmp/check.out
}
boot_step() {
	fact mount "$(findmnt -n -r -o SOURCE,FSTYPE,OPTIONS "$MNT")"
	fact sha256 "$(sha256sum "$MNT/data.bin" 2>&1 | cut -d' ' -f1)"
	fact served "$(nvme-zns-npo2 status -o json 2>/dev/null | tr -d ' \n' | grep -o '"backing":"[^"]*"' | tr '\n' ' ')"
	fact ublk-unit "$(mono "$UNIT" ActiveState) $(mono "$UNIT" SubState) NRestarts=$(mono "$UNIT" NRestarts) MainPID=$(mono "$UNIT" MainPID)"
	fact mount-deps "$(mono srv-zdata.mount Requires) | $(mono srv-zdata.mount After)"
	journalctl -b -1 -o short-monotonic --no-pager -u "$UNIT" -u srv-zdata.mount 2>&1 | tail -12 | block journal-previous-shutdown
	boot_report "$MNT" zns-npo2-restore.service "$UNIT" srv-zdata.mount local-fs.target
}
# what the load step's host judges: the mount unit's activation (a restart
# of the mount would change it) and the device (user recovery keeps it)
mount_id() { echo "$(mono srv-zdata.mount InactiveExitTimestampMonotonic) $(findmnt -n -r -o SOURCE "$MNT")"; }
load_step() {
	local wpid before t0 t1 rc act m0
	m0=$(mount_id)
	fact load-mount-before "$m0"
	# a writer: 4 MiB files, each checksummed, until stopped
	( i=0; while [ ! -e /tmp/stop ]; do
		dd if=/dev/urandom of="$MNT/w$i" bs=1M count=4 conv=fsync status=none 2>>/tmp/writer.err || echo "write w$i failed" >>/tmp/writer.err
		sha256sum "$MNT/w$i" >>/tmp/w.sum 2>>/tmp/writer.err
		i=$((i + 1))
	done; echo "writer: $i files" >>/tmp/writer.err ) &
	wpid=$!
	sleep 5
	for act in restart kill; do
		before=$(mono "$UNIT" NRestarts)
		t0=$(date +%s.%N)
		if [ $act = restart ]; then
			timeout 120 systemctl restart "$UNIT"; rc=$?
		else
			systemctl kill -s KILL "$UNIT"; rc=$?
			# back when systemd counted the restart and the new server is ready
			for _ in $(seq 120); do
				[ "$(mono "$UNIT" NRestarts)" -gt "$before" ] && [ "$(mono "$UNIT" SubState)" = running ] && break
				sleep 1
			done
		fi
		t1=$(date +%s.%N)
		fact "$act" "rc=$rc state=$(mono "$UNIT" ActiveState)/$(mono "$UNIT" SubState) NRestarts=$before->$(mono "$UNIT" NRestarts) fs=$(findmnt -n -o OPTIONS "$MNT" | cut -d, -f1)"
		fact "$act-seconds" "$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")"
		sleep 5
	done
	touch /tmp/stop
	for _ in $(seq 90); do kill -0 $wpid 2>/dev/null || break; sleep 1; done
	kill -0 $wpid 2>/dev/null && { echo "writer: still running 90 s after stop, killed" >>/tmp/writer.err; kill -9 $wpid; }
	wait $wpid
	block writer </tmp/writer.err
	fact load-mount-after "$(mount_id)"
	fact load-fs "$(findmnt -n -o OPTIONS "$MNT" | cut -d, -f1)"
	echo 3 >/proc/sys/vm/drop_caches
	fact writer-verify "$(cd "$MNT" && sha256sum -c /tmp/w.sum 2>&1 | grep -vc ': OK$') bad of $(wc -l </tmp/w.sum)"
	fact load-sha256 "$(sha256sum "$MNT/data.bin" 2>&1 | cut -d' ' -f1)"
	# the whole journal of the boot, kernel and units
	fact load-io-errors "$(journalctl -b --no-pager | grep -ciE 'I/O error|BTRFS (error|critical)|blk_update_request|Buffer I/O')"
	check "btrfs scrub after the restarts" timeout 300 btrfs scrub start -B "$MNT"
	block load-scrub </tmp/check.out
	# an upgrade of the package while the mapping is served and mounted:
	# the server and the mount are left alone
	local up pid0 n0
	up=$(ls /root/znp/upgrade/zns-npo2_*.deb)
	pid0=$(mono "$UNIT" MainPID) n0=$(mono "$UNIT" NRestarts)
	fact upgrade-from "$(dpkg-query -W -f '${Version}' zns-npo2)"
	check "dpkg -i $(basename "$up") while served" dpkg -i "$up"
	block dpkg-upgrade </tmp/check.out
	fact upgrade-to "$(dpkg-query -W -f '${Version} ${Status}' zns-npo2)"
	fact upgrade-server "MainPID=$([ "$(mono "$UNIT" MainPID)" = "$pid0" ] && echo same || echo changed) NRestarts=$([ "$(mono "$UNIT" NRestarts)" = "$n0" ] && echo same || echo "$n0->$(mono "$UNIT" NRestarts)") $(mono "$UNIT" ActiveState)/$(mono "$UNIT" SubState)"
	fact upgrade-mount "$([ "$(mount_id)" = "$m0" ] && echo same || echo changed) $(findmnt -n -o OPTIONS "$MNT" | cut -d, -f1)"
	fact upgrade-failed "$(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
	journalctl -b -o short-monotonic --no-pager -u "$UNIT" -u srv-zdata.mount | tail -40 | block journal-load
	journalctl -b -k -o short-monotonic --no-pager | grep -iE 'ublk|btrfs|I/O error' | tail -30 | block kernel-load
}

# us since boot, as the journal's monotonic timestamps count them
now_us() { awk '{ printf "%d", $1 * 1000000 }' /proc/uptime; }
hot_step() {
	local c t0 i ng dev
	c=$(vm_ctrl 2)
	fact hot-before "ng=$(vm_ng 2 1 2>/dev/null || echo none) unit=$(mono "$HUNIT" ActiveState)"
	t0=$(now_us)
	# nothing but udev starts the restore: the rule on the new ng node
	check "nvme attach-ns of ctrl 2 ($c) NSID 1" nvme attach-ns "/dev/$c" -n 1 -c "$(cat "/sys/class/nvme/$c/cntlid")"
	for i in $(seq 120); do
		[ "$(mono "$HUNIT" ActiveState)/$(mono "$HUNIT" SubState)" = active/running ] && break
		sleep 1
	done
	fact hot-seconds "$i"
	udevadm settle
	ng=$(vm_ng 2 1)
	fact hot-unit "$(mono "$HUNIT" ActiveState)/$(mono "$HUNIT" SubState) NRestarts=$(mono "$HUNIT" NRestarts)"
	# the restore that started it ran after the attach, and succeeded
	fact hot-restore "$([ "$(mono zns-npo2-restore.service ExecMainStartTimestampMonotonic)" -gt "$t0" ] && echo after-attach || echo before-attach) $(mono zns-npo2-restore.service Result) $(mono zns-npo2-restore.service ExecMainStatus)"
	fact hot-served "$(nvme-zns-npo2 status -o json 2>/dev/null | tr -d ' \n' | grep -o "\"backing\":\"${ng#/dev/}\"" | wc -l) $ng"
	for dev in /dev/ublkb*; do
		[ "$dev" = "$(findmnt -n -r -o SOURCE "$MNT")" ] && continue
		fact hot-dev "$dev $(cat /sys/block/"${dev#/dev/}"/queue/zoned) $(cat /sys/block/"${dev#/dev/}"/queue/chunk_sectors) $(blkzone report "$dev" 2>/dev/null | wc -l)"
	done
	# each server message once: through syslog ("/dev/ngXnY: ..."), not
	# also as its stderr copy ("nvme-zns-npo2: /dev/ngXnY: ...")
	fact hot-lines "$(journalctl -b -o cat --no-pager -u "$HUNIT" | grep -c ': serving .* as ') $(journalctl -b -o cat --no-pager -u "$HUNIT" | grep -c '^nvme-zns-npo2: ')"
	{ journalctl -b -o short-monotonic --no-pager -u zns-npo2-restore.service | tail -4
	  journalctl -b -o short-monotonic --no-pager -u "$HUNIT" | grep -E 'systemd\[1\]|\]: /dev/ng[0-9]+n[0-9]+: serving .* as '; } | block hot-journal
}
dirty_step() {
	# written into the mount, not synced: the unmount at the poweroff
	# writes it, through the server still running (8 MiB: the next boot's
	# zone-state replay costs about 10 s a MiB under TCG)
	head -c 8M /dev/urandom >/run/dirty.bin
	fact dirty-want "$(sha256sum /run/dirty.bin | cut -d' ' -f1)"
	cp /run/dirty.bin "$MNT/dirty.bin"
	fact dirty-kb "$(awk '/^Dirty:/ { print $2 }' /proc/meminfo)"
	nosync=1
}
# the previous boot (boot-hot) went down with the file system dirty
shutdown_check() {
	local dev
	# the journal of that shutdown: the mount's and the servers' stops
	journalctl -b -1 -o short-monotonic --no-pager -u srv-zdata.mount -u "$UNIT" -u "$HUNIT" -u znp-zone-state.service |
		grep -E 'Unmount|Stopp|Deactivated|Failed|nvme-zns-npo2\[|zone-state' >/tmp/shutdown.j
	# from the unmount on (all of it when there was none)
	if grep -q 'Unmounting srv-zdata' /tmp/shutdown.j; then sed -n '/Unmounting srv-zdata/,$p' /tmp/shutdown.j; else tail -30 /tmp/shutdown.j; fi |
		block shutdown-journal
	# the export unit's stops and starts and the server's stop in that boot
	journalctl -b -1 -o short-monotonic --no-pager -u "$EUNIT" -u "$UNIT" |
		grep -E 'Start|Finished|Stopp|Deactivated|Failed' | block export-shutdown
	fact e3-unit "$(mono "$EUNIT" ActiveState) $(mono "$EUNIT" Result) $(export_cfs)"
	fact shutdown-kernel-errors "$(journalctl -b -1 -k --no-pager | grep -ciE 'I/O error|BTRFS (error|critical)')"
	fact dirty-sha256 "$(sha256sum "$MNT/dirty.bin" 2>&1 | cut -d' ' -f1)"
	dev=$(findmnt -n -r -o SOURCE "$MNT")
	check "umount $MNT for btrfs check" umount "$MNT"
	check "btrfs check --readonly $dev" timeout 300 btrfs check --readonly "$dev"
	block btrfs-check </tmp/check.out
	fact btrfs-check-errors "$(grep -iE 'error|corrupt|mismatch|wanted' /tmp/check.out | grep -vic 'no error found')"
	check "mount $MNT again" mount "$MNT"
}
remove_step() {
	local f
	# as an admin removes it: the users of the device first
	# (its stop removes the export; its file stays for dpkg -P to remove)
	check "systemctl disable --now $EUNIT" timeout 120 systemctl disable --now "$EUNIT"
	fact remove-export "$(mono "$EUNIT" ActiveState) $(ls /etc/zns-npo2/export-* 2>/dev/null | wc -l) $([ -e "$ECFS/subsystems/$ENQN" ] && echo subsystem-left || echo no-subsystem)"
	check "systemctl stop srv-zdata.mount" systemctl stop srv-zdata.mount
	check "systemctl stop $UNIT" timeout 120 systemctl stop "$UNIT"
	# the unit's server cannot see other users' processes (ProtectProc=
	# invisible), so it cannot prove the device unused: it parks it
	fact stop-ublk-devs "$(ls /dev/ublkb* 2>/dev/null | wc -l)"
	check "unmap $NAME" timeout 120 nvme-zns-npo2 unmap "$NAME"
	fact remove-ublk-devs "$(ls /dev/ublkb* 2>/dev/null | wc -l)"
	# the patched boots after this one must not wait for its device
	check "drop the fstab line of $MNT" sed -i "\\| $MNT |d" /etc/fstab
	fact remove-fstab "$(grep -c " $MNT " /etc/fstab)"
	check "dpkg -r zns-npo2" dpkg -r zns-npo2
	block dpkg-remove </tmp/check.out
	fact remove-status "$(dpkg-query -W -f '${Status}' zns-npo2 2>&1)"
	f=$(ls -d /lib/systemd/system/zns-npo2* /lib/udev/rules.d/*zns-npo2* /usr/bin/nvme-zns-npo2 2>/dev/null | tr '\n' ' ')
	fact remove-files "$f"
	fact remove-load "$(systemctl show -P LoadState zns-npo2-restore.service) $(systemctl show -P LoadState "$UNIT")"
	fact remove-mappings "$(grep -v '^#' /etc/zns-npo2/mappings.conf 2>&1 | cut -d' ' -f1 | tr '\n' ' ')"
	fact remove-export-file "$(ls /etc/zns-npo2/export-* 2>/dev/null | tr '\n' ' ')"
	fact remove-failed "$(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
	check "dpkg -P zns-npo2" dpkg -P zns-npo2
	block dpkg-purge </tmp/check.out
	fact purge-status "$(dpkg-query -W -f '${Status}' zns-npo2 2>&1)"
	fact purge-etc "$([ -e /etc/zns-npo2 ] && ls -A /etc/zns-npo2 | tr '\n' ' ' || echo gone)"
	fact purge-load "$(systemctl show -P LoadState zns-npo2-restore.service) $(ls /etc/systemd/system/*/zns-npo2* /etc/systemd/system/zns-npo2* 2>/dev/null | wc -l)"
	fact purge-failed "$(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
}

# The NVMe-oF export of zdata (zns-npo2-export@zdata.service): a port on
# loopback (QEMU gives the guest no network card), a host connection from
# this same system (nvme connect -t tcp)
EUNIT=zns-npo2-export@$NAME.service
ENQN=nqn.2026-12.org.example.zns-npo2:$NAME
EADDR=127.0.0.1
ECFS=/sys/kernel/config/nvmet
hostnqn() {
	[ -s /etc/nvme/hostnqn ] || nvme gen-hostnqn >/etc/nvme/hostnqn
	cat /etc/nvme/hostnqn
}
# TCP listeners on port $1 in this system's network namespace
listening() { awk -v p="$(printf ':%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p' /proc/net/tcp | wc -l; }
# the host's disk of the export: not hidden, in the subsystem $ENQN (a
# multipath head's parent is the subsystem, a path's its controller)
fabric_disk() {
	local d
	for d in /sys/block/nvme*; do
		[ "$(cat "$d/hidden" 2>/dev/null)" = 1 ] && continue
		[ "$(cat "$d/device/subsysnqn" 2>/dev/null)" = "$ENQN" ] && { basename "$d"; return 0; }
	done
	return 1
}
# fabric_connect PFX PORT: connect, and the disk the host sees (PFX-disk)
fabric_connect() {
	local i d=
	check "modprobe nvme-tcp" modprobe nvme-tcp
	check "$1: nvme connect -t tcp -a $EADDR -s $2 -n $ENQN" timeout 60 nvme connect -t tcp -a "$EADDR" -s "$2" -n "$ENQN" -q "$(hostnqn)" -l 5
	block "$1-connect" </tmp/check.out
	for i in $(seq 30); do d=$(fabric_disk) && break; sleep 1; done
	udevadm settle
	fact "$1-disk" "${d:-none} $(cat /sys/block/"$d"/queue/zoned 2>/dev/null) $(cat /sys/block/"$d"/queue/chunk_sectors 2>/dev/null) $(cat /sys/block/"$d"/queue/nr_zones 2>/dev/null)"
	fabric=$d
}
# the export in configfs: its namespace's device, enabled, and the port
export_cfs() {
	local s=$ECFS/subsystems/$ENQN p
	p=$(ls -d "$ECFS"/ports/*/subsystems/"$ENQN" 2>/dev/null | head -1)
	p=${p%/subsystems/*}
	echo "$(cat "$s/namespaces/1/device_path" 2>/dev/null || echo none) enable=$(cat "$s/namespaces/1/enable" 2>/dev/null) port=$(cat "$p/addr_trtype" 2>/dev/null):$(cat "$p/addr_traddr" 2>/dev/null):$(cat "$p/addr_trsvcid" 2>/dev/null)"
}
# boot 1: export by hand with --persist (this system's network namespace:
# the host's connection must work), the file kept, the unit enabled
export_install_step() {
	# (the unit's modprobe@ services do this at boot)
	check "modprobe nvmet nvmet-tcp" modprobe -a nvmet nvmet-tcp
	check "export $NAME --persist (by hand)" timeout 120 nvme-zns-npo2 export "$NAME" --nqn "$ENQN" \
		--transport tcp --traddr "$EADDR" --hostnqn "$(hostnqn)" --persist
	block export </tmp/check.out
	grep -v '^#' "/etc/zns-npo2/export-$NAME.conf" 2>&1 | block export-conf
	fact e1-cfs "$(export_cfs)"
	fact e1-listen "$(listening 4420)"
	fabric_connect e1 4420
	check "nvme disconnect -n $ENQN" nvme disconnect -n "$ENQN"
	# the unit exports it at the next boot: the export goes, the file stays
	check "export --remove $NAME (the export file kept)" timeout 120 nvme-zns-npo2 export --remove "$NAME"
	check "systemctl enable $EUNIT" systemctl enable "$EUNIT"
	fact e1-enabled "$(systemctl is-enabled "$EUNIT" 2>&1) $([ -f "/etc/zns-npo2/export-$NAME.conf" ] && echo file-kept)"
}
# boot 2: the unit exported it at boot after the server; a host connects,
# sees the zoned namespace, writes; the unit stopped while connected takes
# the namespace away; started again, the shutdown stops it before the server
export_boot_step() {
	local dev z zs zb out got ublkdev
	fact "t:$EUNIT" "$(mono "$EUNIT" ActiveState) $(mono "$EUNIT" ActiveEnterTimestampMonotonic) $(mono "$EUNIT" InactiveExitTimestampMonotonic)"
	fact e2-result "$(mono "$EUNIT" Result) $(mono "$EUNIT" ExecMainStatus)"
	journalctl -b -o short-monotonic --no-pager -u "$EUNIT" | block e2-journal
	ublkdev=$(findmnt -n -r -o SOURCE "$MNT")
	fact e2-ublk "$ublkdev"
	fact e2-cfs "$(export_cfs)"
	fact e2-listen "$(listening 4420)"
	fabric_connect e2 4420
	dev=/dev/$fabric
	nvme list 2>&1 | grep -E "^(Node|$dev )" | block e2-nvme-list
	blkzone report -c 1 "$dev" 2>&1 | block e2-zone0
	# the zone capacity the host sees (sectors)
	fact e2-zone-cap "$(blkzone report -c 1 "$dev" 2>/dev/null | sed -n 's/.* cap 0x\([0-9a-f]*\),.*/\1/p' | head -1 | xargs -I{} printf '%d' 0x{})"
	# data through the host: the last empty zone of the mapping (btrfs
	# allocates from the first), 1 MiB O_DIRECT, read back from the ublk
	# device; then the zone reset through the host
	zs=$(cat /sys/block/"${ublkdev#/dev/}"/queue/chunk_sectors)
	z=$(blkzone report "$ublkdev" | grep -n 'zcond: *1(em)' | tail -1 | cut -d: -f1)
	z=$((${z:-0} - 1))
	zb=$((z * zs / 2048))
	head -c 1M /dev/urandom >/run/e2.pat
	fact e2-zone "$z"
	check "O_DIRECT write of 1 MiB to zone $z through $dev" dd if=/run/e2.pat of="$dev" bs=1M seek="$zb" count=1 oflag=direct status=none
	got=$(dd if="$ublkdev" bs=1M skip="$zb" count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	fact e2-data "$([ "$got" = "$(sha256sum </run/e2.pat | cut -d' ' -f1)" ] && echo equal || echo differs)"
	fact e2-wp "$(blkzone report -o $((z * zs)) -c 1 "$ublkdev" | sed -n 's/.*wptr 0x\([0-9a-f]*\) .*/\1/p' | xargs -I{} printf '%d' 0x{})"
	check "zone $z reset through $dev" blkzone reset -o $((z * zs)) -c 1 "$dev"
	fact e2-wp-reset "$(blkzone report -o $((z * zs)) -c 1 "$ublkdev" | grep -c 'zcond: *1(em)')"
	# stopped while the host is connected: the namespace leaves the target
	check "systemctl stop $EUNIT (host connected)" timeout 120 systemctl stop "$EUNIT"
	fact e2-stop-cfs "$([ -e "$ECFS/subsystems/$ENQN" ] && echo subsystem-left || echo no-subsystem) $(ls -d "$ECFS"/ports/*/subsystems/* 2>/dev/null | wc -l)"
	for _ in $(seq 30); do fabric_disk >/dev/null || break; sleep 1; done
	fact e2-stop-host "$(fabric_disk || echo gone)"
	nvme disconnect -n "$ENQN" >/dev/null 2>&1
	# started again: the shutdown stops it (boot 3 reads the journal)
	check "systemctl start $EUNIT" timeout 120 systemctl start "$EUNIT"
	fact e2-restart "$(mono "$EUNIT" ActiveState) $(export_cfs)"
}

# the dm route on the patched kernel: ctrl 3's npo2 namespace
DMNT=/srv/zdm
DNAME=zdm
patched_map_step() {
	local deb ns dev dm uuid i
	deb=$(ls /root/znp/zns-npo2_*.deb)
	check "dpkg -i $(basename "$deb") (boot 3 purged it)" dpkg -i "$deb"
	ns=$(vm_ns 3 1)
	fact p-ns "/dev/$ns $(cat /sys/block/"$ns"/queue/zoned) $(cat /sys/block/"$ns"/queue/chunk_sectors) hidden=$(cat /sys/block/"$ns"/hidden)"
	check "map /dev/$ns --name $DNAME --persist" timeout 120 nvme-zns-npo2 map "/dev/$ns" --name "$DNAME" --persist
	block p-map </tmp/check.out
	udevadm settle
	dev=/dev/mapper/$DNAME
	dm=$(basename "$(readlink -f "$dev")")
	fact p-dev "$dm $(cat /sys/block/"$dm"/queue/zoned 2>/dev/null) $(cat /sys/block/"$dm"/queue/chunk_sectors 2>/dev/null)"
	grep "^$DNAME " /etc/zns-npo2/mappings.conf | block p-mappings
	check "mkfs.btrfs on $dev" timeout 120 mkfs.btrfs -f -d single -m single -L "$DNAME" "$dev"
	udevadm settle
	uuid=$(blkid -s UUID -o value "$dev")
	# udev re-probes the device when mkfs closes it (inotify): the change
	# event may come after the settle
	for i in $(seq 20); do [ -L /dev/disk/by-uuid/"$uuid" ] && break; sleep 0.5; udevadm settle; done
	fact p-by-uuid "$(readlink -f /dev/disk/by-uuid/"$uuid" 2>&1)"
	mkdir -p "$DMNT"
	# the restore unit makes the device: the mount waits for it (after=;
	# the device's own unit appears only once the mapping exists)
	echo "UUID=$uuid $DMNT btrfs defaults,x-systemd.after=zns-npo2-restore.service,x-systemd.device-timeout=10min 0 0" >>/etc/fstab
	grep "$DMNT" /etc/fstab | block p-fstab
	check "daemon-reload" systemctl daemon-reload
	check "mount $DMNT (by UUID)" mount "$DMNT"
	# 8 MiB of it: the next boot's zone-state replay costs about 2.5 s a MiB
	check "copy 8 MiB of the data file" dd if=/root/znp/data.bin of="$DMNT/data.bin" bs=1M count=8 status=none
	check "sync" sync
	check "umount" umount "$DMNT"
	echo 3 >/proc/sys/vm/drop_caches
	check "mount again" mount "$DMNT"
	# what a low-level probe finds on the namespace under the mapping (the
	# by-uuid link must still name the mapping)
	fact p-raw-probe "$(blkid -p -s TYPE -s UUID -o value "/dev/$ns" 2>&1 | tr '\n' ' ')"
	fact p-sha256 "$(sha256sum "$DMNT/data.bin" | cut -d' ' -f1)"
	check "umount before the reboot" umount "$DMNT"
}
patched_boot_step() {
	local dm uuid ns
	ns=$(vm_ns 3 1)
	fact p-mount "$(findmnt -n -r -o SOURCE,FSTYPE,OPTIONS "$DMNT")"
	dm=$(basename "$(readlink -f /dev/mapper/$DNAME)")
	fact p-mount-dev "$(basename "$(readlink -f "$(findmnt -n -r -o SOURCE "$DMNT")")") $dm"
	fact p-sha256 "$(sha256sum "$DMNT/data.bin" 2>&1 | cut -d' ' -f1)"
	uuid=$(blkid -s UUID -o value /dev/mapper/$DNAME)
	fact p-by-uuid "$(readlink -f /dev/disk/by-uuid/"$uuid" 2>&1) $dm"
	# the namespace under the mapping carries the same signature: a change
	# event of it (udev re-probes a disk after a writer closes it) must
	# leave the link with the mapping
	udevadm trigger --action=change --settle "/dev/$ns"
	fact p-by-uuid-change "$(readlink -f /dev/disk/by-uuid/"$uuid" 2>&1) $dm"
	fact p-by-uuid-claims "$(udevadm info -q symlink "/dev/$ns" | tr ' ' '\n' | grep -c "by-uuid/$uuid")"
	fact p-table "$(dmsetup table "$DNAME" 2>&1)"
	fact p-uuid "$(dmsetup info -c --noheadings -o uuid "$DNAME" 2>&1)"
	fact p-backing "$ns $(ls /sys/block/"$dm"/slaves 2>&1)"
	boot_report "$DMNT" zns-npo2-restore.service srv-zdm.mount local-fs.target
}

case "$step" in
install)
	deb=$(ls /root/znp/zns-npo2_*.deb)
	check "dpkg -i $(basename "$deb")" dpkg -i "$deb"
	block dpkg </tmp/check.out
	fact enabled "$(systemctl is-enabled zns-npo2-restore.service 2>&1)"
	fact active-after-install "$(systemctl list-units --plain --no-legend 'zns-npo2*' | awk '{print $1"="$3}' | tr '\n' ' ')"
	fact etc-dir "$(stat -c '%U:%G %a' /etc/zns-npo2 2>&1) $(dpkg -S /etc/zns-npo2 2>&1)"
	fact failed-after-install "$(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
	out=$(systemd-analyze verify --man=no zns-npo2-restore.service "zns-npo2-ublk@$NAME.service" "zns-npo2-export@$NAME.service" 2>&1)
	fact verify-rc "$?"
	printf '%s\n' "$out" | block verify
	# nvme-cli with the plugin (make nvme-cli-deb) over Debian's
	cli=$(ls /root/znp/nvme-cli_*.deb)
	fact nvme-cli-before "$(dpkg-query -W -f '${Version}' nvme-cli)"
	check "dpkg -i $(basename "$cli") (over Debian's nvme-cli)" dpkg -i "$cli"
	block dpkg-nvme-cli </tmp/check.out
	fact nvme-cli-after "$(dpkg-query -W -f '${Version} ${Status}' nvme-cli)"
	ng=$(vm_ng 1 1)
	check "nvme zns-npo2 list -o json" nvme zns-npo2 list -o json
	cp /tmp/check.out /tmp/plugin-list.json
	fact plugin-list-ns "$(grep -F "\"ng\": \"${ng#/dev/}\"" /tmp/plugin-list.json | tr -s ' ')"
	nvme-zns-npo2 list -o json >/tmp/cli-list.json 2>&1
	fact plugin-list-same "$(cmp -s /tmp/plugin-list.json /tmp/cli-list.json && echo same || echo differs)"
	# every command of the table (the package's nvme-zns-npo2 lists it)
	# in nvme-cli's help of the plugin
	cmds() { sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p' | grep -vxE 'help|version' | LC_ALL=C sort | tr '\n' ' '; }
	fact plugin-help "$(nvme help zns-npo2 2>&1 | cmds)"
	fact table-commands "$(nvme-zns-npo2 help 2>&1 | cmds)"
	check "map --ublk $ng --name $NAME --persist" timeout 60 nvme-zns-npo2 map --ublk "$ng" --name "$NAME" --persist
	block map </tmp/check.out
	udevadm settle
	dev=$(ls /dev/ublkb* 2>/dev/null | head -1)
	fact ublk-dev "$dev $(cat /sys/block/"${dev#/dev/}"/queue/zoned 2>/dev/null) $(cat /sys/block/"${dev#/dev/}"/queue/chunk_sectors 2>/dev/null)"
	grep -v '^#' /etc/zns-npo2/mappings.conf | block mappings
	check "mkfs.btrfs on $dev" timeout 120 mkfs.btrfs -f -d single -m single -L zdata "$dev"
	udevadm settle
	uuid=$(blkid -s UUID -o value "$dev")
	fact uuid "$uuid"
	fact by-uuid "$(readlink -f /dev/disk/by-uuid/"$uuid" 2>&1)"
	mkdir -p "$MNT"
	# (device-timeout: boots under TCG on a loaded host take minutes; the
	# default 90 s for the device to appear ran out once. after=, not
	# requires=: systemd restarts the units that require a unit whenever
	# it restarts it, automatic restarts included, and a restart of the
	# mount under its users is what the server's restart must not be)
	echo "UUID=$uuid $MNT btrfs defaults,x-systemd.after=$UNIT,x-systemd.device-timeout=10min 0 0" >>/etc/fstab
	grep "$MNT" /etc/fstab | block fstab
	check "daemon-reload" systemctl daemon-reload
	check "mount $MNT (by UUID)" mount "$MNT"
	check "copy the data file" cp /root/znp/data.bin "$MNT/data.bin"
	check "sync" sync
	check "umount" umount "$MNT"
	echo 3 >/proc/sys/vm/drop_caches
	check "mount again" mount "$MNT"
	fact sha256 "$(sha256sum "$MNT/data.bin" | cut -d' ' -f1)"
	fact mount "$(findmnt -n -r -o SOURCE,FSTYPE,OPTIONS "$MNT")"
	# the daemon map --persist started is in this unit's cgroup: unmount
	# first, systemd stops it (SIGTERM) on the way down
	check "umount before poweroff" umount "$MNT"
	# the namespace boot-hot attaches after boot (ctrl 2, in an NVMe
	# subsystem, declared detached in the boots after this one)
	hng=$(vm_ng 2 1)
	check "map --ublk $hng --name $HOT --persist" timeout 60 nvme-zns-npo2 map --ublk "$hng" --name "$HOT" --persist
	grep "^$HOT " /etc/zns-npo2/mappings.conf | block mappings-hot
	export_install_step
	;;
boot)
	boot_step
	;;
boot-hot)
	boot_step
	export_boot_step
	hot_step
	dirty_step
	;;
boot-load)
	boot_step
	shutdown_check
	load_step
	remove_step
	;;
patched-map)
	patched_map_step
	;;
patched-boot)
	patched_boot_step
	;;
*)
	notok "unknown step '$step'"
	;;
esac

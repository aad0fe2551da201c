# SIGTERM under users the server cannot see, and a reused device id.
# Sourced by guest.sh while F is served as $UF (nothing on it).
#
# SIGTERM (systemctl stop) deletes the device only when the server proves
# nobody uses it; each round holds F's device only by a user that shows in
# no /proc/PID/fd the server can read: a read-only loop device, an NVMe
# target namespace, and a process of another user hidden by a hidepid=
# /proc from a server without CAP_SYS_PTRACE (as systemd's unit runs it:
# ProtectProc=invisible). Each time the server must park (device kept,
# quiesced, the reason logged), and the next `map --ublk` must serve the
# holder a read, issued while no server ran, that returns the pattern
# written before. Then a device of another program (ublk-other, flags and
# fingerprint not ours) at the id F's record names: `unmap` and the
# recovery setup of `map --ublk` must leave it alone.

vm_log "unseen users: start"
F_PZ=$(((F_NZ - 1) * F_PO2))	# the last zone, in 512-byte sectors
dd if=/dev/urandom of=/tmp/ss.pat bs=65536 count=1 2>/dev/null
expect_ok "unseen users: reset F's last zone" blkzone reset -o "$F_PZ" -c 1 "$UF"
wr "$UF" "$F_PZ" /tmp/ss.pat
rd "$UF" "$F_PZ" 65536 /tmp/ss.back
expect_same "unseen users: the pattern is on F's last zone" /tmp/ss.pat /tmp/ss.back

# park_round NAME WHY: SIGTERM F's server; it must park, logging WHY
park_round() {
	local p n
	p=$(server_pid "$UF")
	n=$(grep -c 'leaving it quiesced' /tmp/syslog 2>/dev/null)
	kill -TERM "$p"
	i=0
	while ! gone "$p" && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
	expect_eq "$1: SIGTERM ends the server" "$(gone "$p" && echo gone)" gone
	expect_eq "$1: the device is kept" "$([ -b "$UF" ] && echo yes)" yes
	expect_eq "$1: status dead-quiesced" "$(health "$UF")" dead-quiesced
	expect_eq "$1: the record is kept" "$(ls /run/zns-npo2/*.ublk 2>/dev/null | wc -l)" 2
	i=0
	while [ "$(grep -c 'leaving it quiesced' /tmp/syslog 2>/dev/null)" = "$n" ] &&
		[ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	expect_match "$1: the server logged why it parked" "may be in use \($2" \
		"$(grep 'leaving it quiesced' /tmp/syslog | tail -1)"
}

# take_back NAME: the next server takes the device back
take_back() {
	expect_ok "$1: the next map --ublk takes the device back" run_to 90 $Z map --ublk "$F" -o json
	cp /tmp/vm-cmd.out /tmp/ss.json
	expect_eq "$1: ... the same device, recovered" \
		"/dev/ublkb$(jget ublk_dev_id /tmp/ss.json) $(jget recovered /tmp/ss.json)" "$UF true"
}

# bg_read NAME DEV SECTOR: a direct read of the pattern's size through DEV,
# in the background ($rp), into /tmp/ss.rd; its status in /tmp/ss.rc
bg_read() {
	rm -f /tmp/ss.rd /tmp/ss.rc
	(rd "$2" "$3" 65536 /tmp/ss.rd; echo $? >/tmp/ss.rc) &
	rp=$!
}
bg_check() {
	i=0
	while ! gone "$rp" && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
	wait "$rp" 2>/dev/null
	expect_eq "$1: the holder's read, issued while parked, completes without error" \
		"$(cat /tmp/ss.rc 2>/dev/null)" 0
	expect_same "$1: ... and reads the pattern" /tmp/ss.pat /tmp/ss.rd
}

# ---- (b) a read-only loop device on F ------------------------------------------
LOOP=$(losetup -f)
if [ -z "$LOOP" ] || ! losetup -r "$LOOP" "$UF"; then
	not_ok "loop: losetup -r on $UF" "no loop device"
else
	expect_eq "loop: $LOOP backs onto $UF" "$(cat /sys/block/${LOOP#/dev/}/loop/backing_file)" "$UF"
	park_round loop "backing loop device ${LOOP#/dev/}"
	echo 3 >/proc/sys/vm/drop_caches
	bg_read loop "$LOOP" "$F_PZ"
	sleep 1
	expect_eq "loop: the read waits while no server runs" "$(gone "$rp" || echo waiting)" waiting
	take_back loop
	bg_check loop
	losetup -d "$LOOP"
fi

# ---- (c) an NVMe target namespace exporting F (nvmet loop) ---------------------
SNQN=nqn.2026-12.org.zns-npo2:unseen
[ -d /sys/kernel/config/nvmet/ports/1 ] || nvmet_loop_port
if nvmet_export $SNQN "$UF" && SB=$(nvmet_connect $SNQN); then
	park_round nvmet "exported by NVMe target subsystem $SNQN namespace 1"
	bg_read nvmet "/dev/$SB" "$F_PZ"
	sleep 1
	expect_eq "nvmet: the read waits while no server runs" "$(gone "$rp" || echo waiting)" waiting
	take_back nvmet
	bg_check nvmet
	expect_ok "nvmet: nvme disconnect" nvme disconnect -n $SNQN
	rm -f /sys/kernel/config/nvmet/ports/1/subsystems/$SNQN
	echo 0 >/sys/kernel/config/nvmet/subsystems/$SNQN/namespaces/1/enable
	rmdir /sys/kernel/config/nvmet/subsystems/$SNQN/namespaces/1 \
		/sys/kernel/config/nvmet/subsystems/$SNQN /sys/kernel/config/nvmet/ports/1 2>/dev/null
else
	not_ok "nvmet: export $UF over loop" "setup failed"
fi

# ---- (a) a process of another user, hidden by /proc's hidepid ------------------
# F's server again, now as systemd's unit runs it (no CAP_SYS_PTRACE), with
# /proc mounted hidepid=invisible: the holder (uid 65534) is invisible to it
expect_ok "hidden user: unmap F (nobody uses it)" run_to 60 $Z unmap "$F"
expect_ok "hidden user: /proc remounted hidepid=invisible" mount -o remount,hidepid=invisible /proc
expect_ok "hidden user: map --ublk F, the server without CAP_SYS_PTRACE" \
	run_to 60 ublk-other nocap $Z map --ublk "$F" -o json
cp /tmp/vm-cmd.out /tmp/ss.json
UF=/dev/ublkb$(jget ublk_dev_id /tmp/ss.json)
p=$(jget server_pid /tmp/ss.json)
cap=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/$p/status)
expect_eq "hidden user: the server lacks CAP_SYS_PTRACE (CapEff $cap)" \
	"$(( (0x$cap >> 19) & 1 ))" 0
expect_eq "hidden user: the pattern is still there" \
	"$(rd "$UF" "$F_PZ" 65536 /tmp/ss.back; cmp -s /tmp/ss.pat /tmp/ss.back && echo same)" same
ublk-other hold "$UF" 65534 $((F_PZ * 512)) 65536 /tmp/ss.hold &
hp=$!
i=0
while [ ! -e /tmp/ss.hold.rc ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.2
expect_eq "hidden user: the holder runs as uid 65534" \
	"$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$hp/status)" 65534
park_round "hidden user" "/proc is mounted hidepid=invisible"
kill -USR1 "$hp"
sleep 1
expect_eq "hidden user: the read waits while no server runs" \
	"$([ -s /tmp/ss.hold.rc ] && echo done || echo waiting)" waiting
take_back "hidden user"
i=0
while [ ! -s /tmp/ss.hold.rc ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "hidden user: the holder's read completes without error" "$(cat /tmp/ss.hold.rc)" 0
expect_same "hidden user: ... and reads the pattern" /tmp/ss.pat /tmp/ss.hold
kill -KILL "$hp"
wait "$hp" 2>/dev/null
mount -o remount,hidepid=0 /proc

# ---- a reused device id: another program's device at F's recorded id -----------
# F's server dies, its device is deleted behind the record's back, and
# another program adds a device at the same id.
p=$(server_pid "$UF")
fid=${UF#/dev/ublkb}
kill -KILL "$p"
i=0
while [ "$(health "$UF")" != dead-quiesced ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
expect_ok "reused id: F's device deleted behind its record" ublk-other del "$fid"
expect_ok "reused id: another program adds ublk$fid" ublk-other add "$fid"
expect_eq "reused id: the record still names ublkb$fid" \
	"$(grep -l "^dev_id=$fid\$" /run/zns-npo2/*.ublk | wc -l)" 1
expect_rc "reused id: unmap F refuses (4)" 4 run_to 60 $Z unmap "$F"
expect_match "... saying the device is not this mapping's" \
	"/dev/ublkb$fid is not the device of this mapping \(a ublk device of another program" \
	"$(cat /tmp/vm-cmd.out)"
expect_eq "... in one line" "$(wc -l </tmp/vm-cmd.out)" 1
expect_eq "... the other program's device is left alone" \
	"$([ -e /sys/class/ublk-char/ublkc$fid ] && echo there)" there
expect_ok "reused id: map --ublk F" run_to 90 $Z map --ublk "$F" -o json
cp /tmp/vm-cmd.out /tmp/ss.json
UF=/dev/ublkb$(jget ublk_dev_id /tmp/ss.json)
expect_eq "... serves F on a new device, not taken back" \
	"$([ "$UF" != /dev/ublkb$fid ] && echo new) $(jget recovered /tmp/ss.json)" "new false"
expect_match "... saying why the recorded device was left" \
	"record's /dev/ublkb$fid is not this namespace's device.*left alone" \
	"$(cat /tmp/ss.json /tmp/syslog 2>/dev/null)"
expect_eq "... the other program's device is left alone" \
	"$([ -e /sys/class/ublk-char/ublkc$fid ] && echo there)" there
expect_ok "reused id: the other program deletes its device" ublk-other del "$fid"
vm_log "unseen users: end"

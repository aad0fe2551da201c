# The ublk route's state and the unit's device list on Debian's stock
# kernel (busybox ash; sourced by /init after lib.sh): modes of the state
# directory, records and locks; the start time a record carries; the
# device classes zns-npo2-ublk@.service allows, against this kernel's
# /proc/devices and the nodes a server really opens; unmap of a hung server
# whose record names a recycled pid.
#
# Namespace (tests/layers.d/59-vm-ublk-security.sh): ctrl 0 nsid 1, npo2
# 48M/48M zones.

Z=nvme-zns-npo2
A=$(vm_ng 0 1)
vm_summary
mkdir -p /var/log
syslogd -O /tmp/syslog 2>/dev/null || vm_log "no syslogd"

# major NODE: the node's major number (decimal)
major() { printf '%d' "0x$(stat -L -c %t "$1")"; }
# devname KIND MAJOR: its name in /proc/devices (KIND: Character or Block)
devname() {
	sed -n "/^$1 devices:/,/^\$/p" /proc/devices | awk -v m="$2" '$1 == m { print $2 }'
}
gone() { proc_gone "$1"; }

# ---- a served namespace's state -------------------------------------------
expect_ok "map --ublk A (daemon)" run_to 60 $Z map --ublk "$A" -o json
cp /tmp/vm-cmd.out /tmp/map.json
ID=$(jget ublk_dev_id /tmp/map.json)
PA=$(jget server_pid /tmp/map.json)
UA=/dev/ublkb$ID
REC=$(ls /run/zns-npo2/*.ublk 2>/dev/null | head -1)
LOCK=${REC%.ublk}.lock
expect_eq "state directory is 0700" "$(stat -c %a /run/zns-npo2)" 700
expect_eq "record is 0600" "$(stat -c %a "$REC" 2>/dev/null)" 600
expect_eq "namespace lock is 0600" "$(stat -c %a "$LOCK" 2>/dev/null)" 600
# field 22 of /proc/PID/stat: the 20th after the command name
start=$(sed 's/.*) //' /proc/$PA/stat | cut -d' ' -f20)
expect_eq "the record carries the server's start time" \
	"$(sed -n 's/^pid_start=//p' "$REC")" "$start"

# ---- the device classes the unit allows -------------------------------------
unit=/vm/zns-npo2-ublk@.service.in
expect_eq "ublkc$ID is a char-ublk-char device" "$(devname Character "$(major /dev/ublkc$ID)")" \
	ublk-char
expect_eq "ublkb$ID is a block-blkext device" "$(devname Block "$(major "$UA")")" blkext
expect_eq "$A is a char-nvme-generic device" "$(devname Character "$(major "$A")")" nvme-generic
expect_eq "nvme0 is a char-nvme device" "$(devname Character "$(major /dev/nvme0)")" nvme
expect_eq "/dev/ublk-control is a char device (by path in the unit)" \
	"$([ -c /dev/ublk-control ] && echo yes)" yes
for c in $(sed -n 's/^DeviceAllow=\(char\|block\)-\([^ ]*\) .*/\1:\2/p' "$unit"); do
	kind=Character
	[ "${c%%:*}" = block ] && kind=Block
	expect_match "unit's DeviceAllow=${c%%:*}-${c#*:} names a $kind class of this kernel" \
		"^[0-9]+ ${c#*:}\$" "$(sed -n "/^$kind devices:/,/^\$/p" /proc/devices)"
done
# every device node the server holds open is of a class the unit allows
allowed="ublk-char nvme-generic nvme blkext"
for fd in /proc/$PA/fd/*; do
	t=$(readlink "$fd")
	case "$t" in /dev/null|/dev/ublk-control) continue ;; /dev/*) ;; *) continue ;; esac
	if [ -c "$t" ]; then n=$(devname Character "$(major "$t")"); else n=$(devname Block "$(major "$t")"); fi
	expect_match "server's open $t ($n) is allowed by the unit" " $n " " $allowed "
done

# ---- unmap of a hung server whose record names another process ------------
# unmap flushes the device first: with a stopped server the flush would
# wait for ever, so the device is told it has no volatile cache (the block
# layer completes the flush itself); a watchdog resumes the server so that
# a hang fails the checks instead of the guest.
echo "write through" >/sys/block/ublkb$ID/queue/write_cache
kill -STOP "$PA"
(sleep 90; kill -CONT "$PA") 2>/dev/null &
WD=$!
sleep 600 &
SP=$!
sed -i "s/^pid=.*/pid=$SP/" "$REC"
expect_rc "unmap of a hung server: stopped, not removed (1)" 1 run_to 80 $Z unmap "$UA"
cp /tmp/vm-cmd.out /tmp/unmap.out
expect_match "... the recycled pid is not signalled, and it says why" \
	"not signalling recorded server pid $SP: that pid is another process now" "$(cat /tmp/unmap.out)"
expect_match "... it says the server still holds the lock" "still holds the namespace's lock" \
	"$(cat /tmp/unmap.out)"
expect_eq "... the process at the recorded pid lives" "$([ -d /proc/$SP ] && echo alive)" alive
expect_eq "... the record stays" "$([ -f "$REC" ] && echo kept)" kept
expect_eq "... the lock file stays" "$([ -f "$LOCK" ] && echo kept)" kept
expect_eq "... the hung server still holds the lock" "$($Z status "$UA" -o json 2>/dev/null |
	sed -n 's/.*"health": "\([a-z-]*\)".*/\1/p' | head -1)" alive
kill -CONT "$PA"
kill "$WD" 2>/dev/null
i=0
while ! gone "$PA" && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "resumed, the server ends (the device was stopped)" "$(gone "$PA" && echo gone)" gone
kill "$SP"
expect_eq "... and deleted its device" "$([ -e "$UA" ] || echo gone)" gone
expect_eq "... and its record" "$([ -e "$REC" ] || echo gone)" gone

# ---- the lock file it left is taken again, and goes with a plain unmap -------
expect_ok "map --ublk A again" run_to 60 $Z map --ublk "$A" -o json
cp /tmp/vm-cmd.out /tmp/map2.json
U2=/dev/ublkb$(jget ublk_dev_id /tmp/map2.json)
expect_rc "a second server on A is refused (4)" 4 run_to 60 $Z map --ublk "$A"
expect_ok "unmap A" run_to 60 $Z unmap "$U2"
expect_eq "unmap removed record and lock file" "$(ls /run/zns-npo2 | wc -l)" 0

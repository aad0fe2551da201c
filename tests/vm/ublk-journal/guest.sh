# The append journal across server deaths, on Debian's stock kernel (busybox
# ash; sourced by /init after lib.sh). Layer 48-vm-ublk-journal.
#
# Namespace A (ctrl 0 nsid 1): npo2 48M/48M, 16 zones: zoned btrfs on its
# ublk device; btrfs writes its data by Zone Append (several in flight per
# zone as a file is written back), which the server places itself and
# records in its journal.
#
# Rounds: the server kills itself (test hooks, ZNP_TEST_UBLK_KILL) at the
# N-th pass of a point: append-done (an append's data is on the drive, its
# request not answered), placed (an append placed and recorded, with every
# append's commit held for a turn: ZNP_TEST_UBLK_DEFER), handover (a
# finished append hands its zone to the next waiting one, commits held), or
# the queues are abandoned (as when a queue fails) at the N-th
# append-done, or a queue's ring fails (its N-th wait: it waits for its
# NVMe commands, then the server ends); a new server started as systemd's
# unit does takes the device back each time while two writers go on
# writing files of tagged blocks (tests/vm/helpers/blocktags.c), each
# with an fsync.
# First, a SIGTERM right after ADD_DEV (before the device is recorded) must
# leave no device behind.
# Pass: every round's server dies at its point and the next one serves;
# then the zones read back through the namespace's own generic node hold
# every block of every acknowledged file exactly once, no tagged block
# twice (a Zone Append applied twice leaves its blocks twice), none torn;
# the files verify after a remount; no I/O error, btrfs device stats zero.

Z=nvme-zns-npo2
export DM_DISABLE_UDEV=1
ROUNDS=10
A=$(vm_ng 0 1)
vm_summary
LBAS=$(ns_conf 0 1 lbas)
ZLBAS=$(($(ns_conf 0 1 zsze) / LBAS))
NZ=$(($(ns_conf 0 1 size) / $(ns_conf 0 1 zsze)))

now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
rnd() { echo $(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % $1)); }
wait_gone() {
	local end=$(($(now_ms) + $2 * 100))
	while ! proc_gone "$1" && [ "$(now_ms)" -lt $end ]; do sleep 0.1; done
	proc_gone "$1"
}

# srv_start [ENV=VALUE...]: map --ublk --foreground of A, as the unit does;
# SRV_PID, SRV_DEV (empty if no device came within 60 s)
SRV_N=0
srv_start() {
	local t0
	SRV_N=$((SRV_N + 1))
	SRV_OUT=/tmp/srv-$SRV_N.out SRV_ERR=/tmp/srv-$SRV_N.err
	t0=$(now_ms)
	env "$@" $Z map --ublk --foreground "$A" >"$SRV_OUT" 2>"$SRV_ERR" &
	SRV_PID=$!
	SRV_DEV=
	while [ "$(now_ms)" -lt $((t0 + 60000)) ]; do
		SRV_DEV=$(grep -m1 '^/dev/ublkb[0-9]*$' "$SRV_OUT")
		[ -n "$SRV_DEV" ] && return 0
		proc_gone $SRV_PID && break
		sleep 0.1
	done
	vm_log "server $SRV_N gave no device:"
	sed 's/^/#   | /' "$SRV_ERR" | tail -5
	return 1
}

# writer W ROUND FILES: FILES files of 64..320 tagged blocks, each written
# and fsync'ed; a file is listed as acknowledged once its dd returned
writer() {
	local i=0 tag n
	while [ $i -lt "$3" ]; do
		tag=r$2w$1f$i
		n=$((64 + $(rnd 256)))
		blocktags gen "$tag" $n >/tmp/gen-$1 || exit 1
		dd if=/tmp/gen-$1 of=/mnt/j/$tag bs=1M conv=fsync 2>/tmp/dd-$1.err ||
			{ echo "$tag: $(tail -1 /tmp/dd-$1.err)"; exit 1; }
		echo "$tag $n" >>/tmp/acked
		i=$((i + 1))
	done
}

# SIGTERM right after ADD_DEV, before the device is recorded: caught, the
# new device is stopped and deleted, nothing is left without a record
: >/tmp/acked
env ZNP_TEST_UBLK_TERM_ADDED=1 $Z map --ublk --foreground "$A" >/tmp/term.out 2>&1
rc=$?
left=$(ls /sys/class/ublk-char 2>/dev/null | wc -l)
expect_eq "SIGTERM right after ADD_DEV: map ends ($rc) and leaves no ublk device" "$left" 0
[ "$left" = 0 ] || { ls /sys/class/ublk-char; sed 's/^/#   | /' /tmp/term.out | tail -5; }
# SIGKILL right after ADD_DEV, before the record: nothing can catch it, a
# device no record names is left (never started); the next map --ublk of
# the namespace deletes it before it adds its own
env ZNP_TEST_UBLK_TERM_ADDED=kill $Z map --ublk --foreground "$A" >/tmp/kill.out 2>&1
rc=$?
left=$(ls /sys/class/ublk-char 2>/dev/null | tr '\n' ' ')
expect_eq "SIGKILL right after ADD_DEV: map killed ($rc), one device left without a record" \
	"$rc $left" "137 ublkc0 "
srv_start || { not_ok "a server for $A"; exit 0; }
expect_eq "... and the next map --ublk deletes it and makes /dev/ublkb0 again" \
	"$SRV_DEV $(ls /sys/class/ublk-char 2>/dev/null | tr '\n' ' ')" "/dev/ublkb0 ublkc0 "
expect_match "... saying so" "deleting /dev/ublkb0: added for this namespace by a server killed before it recorded it" \
	"$(cat "$SRV_ERR" 2>/dev/null)"
DEV=$SRV_DEV
mkdir -p /mnt/j
expect_ok "mkfs.btrfs on $DEV" run_to 120 mkfs.btrfs -f -d single -m single "$DEV"
expect_ok "mount" mount -t btrfs "$DEV" /mnt/j
echo 1048576 >/proc/sys/vm/dirty_background_bytes

points="append-done placed handover abandon ring"
r=0 died=0 served=0 wfail=0
: >/tmp/moments
while [ $r -lt $ROUNDS ]; do
	set -- $points
	shift $((r % 5))
	pt=$1
	n=$((2 + $(rnd 14)))
	hook="ZNP_TEST_UBLK_KILL=$pt:$n"
	case $pt in
	placed|handover) hook="$hook ZNP_TEST_UBLK_DEFER=1" ;;
	# the ring of a queue fails (its N-th wait while it serves requests)
	ring) hook="ZNP_TEST_UBLK_RING_FAIL=$n" ;;
	esac
	# the serving server makes way for one with the hook
	kill -KILL "$SRV_PID"; wait_gone "$SRV_PID" 100; wait "$SRV_PID" 2>/dev/null
	srv_start $hook || { not_ok "round $r: a server with the hook $hook"; break; }
	writer a $r 4 >/tmp/wa-$r.log 2>&1 &
	wa=$!
	writer b $r 4 >/tmp/wb-$r.log 2>&1 &
	wb=$!
	# the hooked server dies (or abandons its queues and exits) at its point
	if wait_gone "$SRV_PID" 600; then
		wait "$SRV_PID" 2>/dev/null
		died=$((died + 1))
		echo "$pt:$n" >>/tmp/moments
	else
		vm_log "round $r: the server passed $pt fewer than $n times: killed by hand"
		echo "$pt:$n(not-reached)" >>/tmp/moments
		kill -KILL "$SRV_PID"
		wait_gone "$SRV_PID" 100
		wait "$SRV_PID" 2>/dev/null
	fi
	vm_log "round $r: $hook: the server ended"
	srv_start && served=$((served + 1))
	for p in $wa $wb; do
		wait_gone "$p" 1200 || kill -KILL "$p"
		wait "$p" || wfail=$((wfail + 1))
	done
	cat /tmp/wa-$r.log /tmp/wb-$r.log | sed 's/^/#   writer: /'
	r=$((r + 1))
done
# what the servers said that was not routine
for f in /tmp/srv-*.err; do
	grep -iE 'fail|error|warn|drop|again|already on the drive|abandon|in flight' "$f" |
		head -8 | sed "s|^|#   ${f#/tmp/}: |"
done
expect_eq "every hooked server died at its point ($(tr '\n' ' ' </tmp/moments))" "$died" "$ROUNDS"
expect_eq "each time the next server served at once" "$served" "$ROUNDS"
expect_eq "no writer failed" "$wfail" 0
io=$(dmesg | grep -c "error, dev ${DEV#/dev/},")
expect_eq "no I/O error line for $DEV" "$io" 0

sync
expect_ok "umount" run_to 120 umount /mnt/j
expect_ok "mount again" mount -t btrfs "$DEV" /mnt/j
good=0 all=0
while read -r tag n; do
	all=$((all + 1))
	blocktags gen "$tag" "$n" | cmp -s - "/mnt/j/$tag" && good=$((good + 1))
done </tmp/acked
expect_eq "every acknowledged file verifies after the remount ($good of $all)" "$good" "$all"
st=$(btrfs device stats /mnt/j 2>/dev/null | awk '{ s += $2 } END { print s + 0 }')
expect_eq "btrfs device stats zero" "$st" 0
expect_ok "umount again" run_to 120 umount /mnt/j

# the zones as the namespace holds them: every written LBA, read through A
: >/tmp/tags
ns_wps "$A" "$LBAS" >/tmp/wps
z=0
while read -r w; do
	[ "$w" -gt 0 ] && blocktags scan "$A" $((z * ZLBAS)) $((w * 512 / LBAS)) "$LBAS" >>/tmp/tags
	z=$((z + 1))
done </tmp/wps
expect_eq "the namespace's report has every zone ($NZ)" "$z" "$NZ"
awk '{ print $1, $2 }' /tmp/tags | sort | uniq -c | awk '$1 > 1' >/tmp/dups
dups=$(wc -l </tmp/dups)
torn=$(grep -c ' torn$' /tmp/tags)
missing=0 extra=0
while read -r tag n; do
	c=$(awk -v t="$tag" '$1 == t && $4 == "ok"' /tmp/tags | wc -l)
	[ "$c" -lt "$n" ] && missing=$((missing + n - c))
done </tmp/acked
expect_eq "no tagged block on the namespace twice (an append applied twice)" "$dups" 0
head -10 /tmp/dups | sed 's/^/#   twice: /'
expect_eq "no torn tagged block" "$torn" 0
expect_eq "every block of every acknowledged file on the namespace" "$missing" 0
echo "# SUMMARY append-journal rounds $died/$ROUNDS kill-moments $(tr '\n' ' ' </tmp/moments)" \
	"tagged-blocks $(wc -l </tmp/tags) duplicates $dups torn $torn missing $missing" \
	"files $good/$all io-errors $io writers-failed $wfail"
proc_gone "$SRV_PID" || { kill -TERM "$SRV_PID"; wait_gone "$SRV_PID" 300; }
true

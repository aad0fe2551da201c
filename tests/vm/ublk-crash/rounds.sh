# Rounds of "signal the server while requests are in flight, start a new
# one as systemd would, check what the file system and the writers saw".
# Sourced by guest.sh; crash.sh runs the scenarios.
#
# One workload at a time, on its own namespace and server:
#   btrfs: zoned btrfs on A's device (data by Zone Append, metadata by
#          writes); per round an fsync'ing writer (3 files of 1 MiB, dd
#          conv=fsync after every 256 KiB; a file counts as acknowledged
#          once its last dd returned) and a buffered one (copy_seeds, 3
#          files, acknowledged once cp returned);
#   f2fs:  f2fs with metadata on the conventional D and its zones on F's
#          device; the same two writers;
#   fio:   fio zbd random write + crc32c verify at iodepth 16 on P's device.
# Acknowledged files are listed on /tmp (tmpfs, outside the device) with
# the seed they copy; at the end of the scenario every one must verify after
# a remount.

# ---- workloads ------------------------------------------------------------------

# wl_start ROUNDTAG: start this round's writers (WL_PIDS)
wl_start() {
	local tag=$1
	WL_PIDS=
	case $W_KIND in
	fio)
		blkzone reset "$W_DEV" >/tmp/fio-reset.out 2>&1 || sed 's/^/#   reset: /' /tmp/fio-reset.out
		fio --name=crash --filename="$W_DEV" --direct=1 --ioengine=io_uring --iodepth=16 \
			--zonemode=zbd --rw=randwrite --bs=128k --size=$((4 * W_PO2 * 512)) \
			--io_size=4M --max_open_zones=4 --verify=crc32c --verify_fatal=1 \
			--do_verify=1 --output=/tmp/fio-$tag.out >/tmp/fio-$tag.err 2>&1 &
		WL_PIDS=$!
		W_FIO_OUT=/tmp/fio-$tag.out
		;;
	*)
		mkdir -p "$W_MNT/$tag"
		(
			i=0
			while [ $i -lt 3 ]; do
				k=$(((i + ${tag%%.*}) % 4))
				# 256 KiB at a time, each followed by an fsync
				c=0
				while [ $c -lt 4 ]; do
					dd if=/tmp/seed$k of="$W_MNT/$tag/s$i" bs=256k count=1 skip=$c seek=$c \
						conv=notrunc,fsync 2>/tmp/dd.err ||
						{ echo "fsync writer: $tag/s$i: $(tail -1 /tmp/dd.err)"; exit 1; }
					c=$((c + 1))
				done
				echo "$tag/s$i $k" >>/tmp/acked-$W_KIND
				i=$((i + 1))
			done
		) >/tmp/wf-$tag.log 2>&1 &
		WL_PIDS=$!
		(
			n=$(copy_seeds "$W_MNT/$tag" 3)
			i=0
			while [ $i -lt "$n" ]; do
				echo "$tag/file$i $((i % 4))" >>/tmp/acked-$W_KIND
				i=$((i + 1))
			done
			[ "$n" = 3 ] || { echo "buffered writer: $n of 3 files copied"; exit 1; }
		) >/tmp/wb-$tag.log 2>&1 &
		WL_PIDS="$WL_PIDS $!"
		;;
	esac
}

# wl_done: every writer of the round has exited (builtins only: it runs
# between looks at the in-flight count)
wl_done() {
	local p a b st
	for p in $WL_PIDS; do
		[ -e /proc/$p/stat ] || continue
		read -r a b st b </proc/$p/stat
		[ "$st" = Z ] || return 1
	done
	return 0
}

# wl_wait TENTHS: reap the writers (SIGKILL after TENTHS x 0.1 s); WL_FAILED
# = how many failed, WL_WHY = what they said
wl_wait() {
	local p rc
	WL_FAILED=0 WL_WHY=
	for p in $WL_PIDS; do
		if ! wait_gone "$p" "$1"; then
			kill -KILL "$p" 2>/dev/null
			wait_gone "$p" 50
			WL_WHY="$WL_WHY [pid $p still running after $(($1 / 10)) s]"
		fi
		reap "$p"
		rc=$?
		[ $rc = 0 ] || WL_FAILED=$((WL_FAILED + 1))
	done
	case $W_KIND in
	fio) [ "$WL_FAILED" = 0 ] || WL_WHY="$WL_WHY $(grep -hE 'err=|error|verify' "$W_FIO_OUT" /tmp/fio-$2.err 2>/dev/null | head -3 | tr '\n' ' ')" ;;
	*) [ "$WL_FAILED" = 0 ] || WL_WHY="$WL_WHY $(cat /tmp/wf-$2.log /tmp/wb-$2.log 2>/dev/null | tr '\n' ' ')" ;;
	esac
}

# fs_errs: file-system error count so far (btrfs: device stats summed and
# BTRFS error lines; f2fs: its error/stop lines)
fs_errs() {
	local s=0 l
	case $W_KIND in
	btrfs)
		s=$(btrfs device stats "$W_MNT" 2>/dev/null | awk '{ s += $2 } END { print s + 0 }')
		l=$(dmesg | grep -cE 'BTRFS:? (error|critical)')
		echo $((s + l))
		;;
	f2fs) dmesg | grep -cE 'F2FS-fs.*(rror|fail|Stop)' ;;
	*) echo 0 ;;
	esac
}

# ---- set up / end of a scenario ------------------------------------------------

# wl_setup KIND SCEN: a server and, for btrfs/f2fs, a fresh file system
wl_setup() {
	local w
	W_KIND=$1 W_SCEN=$2
	: >/tmp/acked-$W_KIND
	case $W_KIND in
	btrfs) W_NG=$A W_MNT=/mnt/b ;;
	f2fs) W_NG=$F W_MNT=/mnt/f ;;
	fio) W_NG=$P W_MNT= ;;
	esac
	srv_start "$W_NG" "$W_SCEN" || { not_ok "$W_SCEN: a server for $W_NG"; return 1; }
	W_DEV=$SRV_DEV W_SRV=$SRV_PID W_ERR=$SRV_ERR
	W_PO2=$(cat /sys/block/${W_DEV#/dev/}/queue/chunk_sectors)
	mkdir -p /mnt/b /mnt/f
	case $W_KIND in
	btrfs)
		expect_ok "$W_SCEN: mkfs.btrfs on $W_DEV" run_to 120 mkfs.btrfs -f -d single -m single "$W_DEV"
		expect_ok "$W_SCEN: mount" mount -t btrfs "$W_DEV" /mnt/b
		# 7.x's btrfs sizes its writeback bios by the device's optimal I/O
		# size (else max_sectors): the server reports none, as the NVMe
		# driver does without NOWS (one LBA made them 4 KiB zone appends)
		local st=/sys/block/${W_DEV#/dev/}/stat w0 s0 w1 s1 kb
		read -r _ _ _ _ w0 _ s0 _ <"$st"
		expect_ok "$W_SCEN: 16 MiB written with fsync" \
			dd if=/dev/urandom of=/mnt/b/io-size bs=1M count=16 conv=fsync
		read -r _ _ _ _ w1 _ s1 _ <"$st"
		kb=$(( (s1 - s0) / 2 / (w1 > w0 ? w1 - w0 : 1) ))
		vm_log "$W_SCEN: btrfs wrote $((s1 - s0)) sectors in $((w1 - w0)) requests ($kb KiB each)"
		expect_eq "$W_SCEN: no optimal I/O size on $W_DEV; btrfs's writes 64 KiB or more on average" \
			"$(cat /sys/block/${W_DEV#/dev/}/queue/optimal_io_size) $([ "$kb" -ge 64 ] && echo large || echo "$kb KiB")" \
			"0 large"
		rm -f /mnt/b/io-size
		;;
	f2fs)
		expect_ok "$W_SCEN: mkfs.f2fs -m -c $W_DEV $D" run_to 120 mkfs.f2fs -f -m -c "$W_DEV" "$D"
		expect_ok "$W_SCEN: mount" mount -t f2fs "$D" /mnt/f
		# fill what the main area has on D: the rounds' files go to the zones
		expect_ok "$W_SCEN: a filler file as large as D" \
			dd if=/dev/zero of=/mnt/f/filler bs=1M count=$(($(ns_conf 0 3 size) / 1048576)) conv=fsync
		w=$(zone_rows "$W_DEV" | awk '$4 > 0' | wc -l)
		expect_match "$W_SCEN: ... which spills over into the zones of $W_DEV ($w)" '^[1-9][0-9]*$' "$w"
		;;
	esac
	[ -z "$W_MNT" ] || mnt_rw "$W_MNT" || return 1
	return 0
}

# verify_acked: every acknowledged file has its seed's checksum
verify_acked() {
	local f k n=0 good=0
	: >/tmp/bad-$W_KIND
	while read -r f k; do
		n=$((n + 1))
		if [ "$(sha256sum <"$W_MNT/$f" 2>/dev/null | cut -d' ' -f1)" = "$(cat /tmp/seed$k.sum)" ]; then
			good=$((good + 1))
		else
			echo "$f: $(stat -c %s "$W_MNT/$f" 2>&1) bytes" >>/tmp/bad-$W_KIND
		fi
	done </tmp/acked-$W_KIND
	expect_eq "$W_SCEN: every acknowledged file verifies after the remount ($good of $n)" "$good" "$n"
	head -5 /tmp/bad-$W_KIND | sed 's/^/#   differs: /'
	V_GOOD=$good V_ALL=$n
}

# wl_end: unmount, remount, verify, scrub/fsck; sets W_VERIFY; stops the server
wl_end() {
	local e
	W_VERIFY=
	case $W_KIND in
	btrfs)
		expect_ok "$W_SCEN: umount" run_to 120 umount /mnt/b
		expect_ok "$W_SCEN: mount again" mount -t btrfs "$W_DEV" /mnt/b
		verify_acked
		run_to 120 btrfs scrub start -B /mnt/b >/tmp/scrub.out 2>&1
		e=$?
		expect_eq "$W_SCEN: btrfs scrub clean" \
			"$e $(grep -cE 'no errors found|Error summary: *no errors' /tmp/scrub.out)" "0 1"
		grep -qE 'no errors found|Error summary: *no errors' /tmp/scrub.out ||
			sed 's/^/#   | /' /tmp/scrub.out | head -12
		e=$(btrfs device stats /mnt/b 2>/dev/null | awk '{ s += $2 } END { print s + 0 }')
		expect_eq "$W_SCEN: btrfs device stats all zero after the scenario" "$e" 0
		[ "$e" = 0 ] || btrfs device stats /mnt/b | grep -v ' 0$' | sed 's/^/#   /'
		expect_ok "$W_SCEN: umount again" run_to 120 umount /mnt/b
		W_VERIFY="$V_GOOD/$V_ALL files, scrub $(grep -qE 'no errors found|Error summary: *no errors' /tmp/scrub.out && echo clean || echo ERRORS)"
		ns_vs_ublk "$A" "$W_DEV" "$W_SCEN"
		;;
	f2fs)
		expect_ok "$W_SCEN: umount" run_to 120 umount /mnt/f
		run_to 120 fsck.f2fs -f --dry-run "$D" >/tmp/fsck.out 2>&1
		e=$?
		# fsck.f2fs 1.15 counts a zoned device's free segments differently
		# from the checkpoint even on a fresh file system never crashed
		# (and exits 1 for it): that one line is shown, not judged
		grep -F '[FSCK]' /tmp/fsck.out | grep -F '[Fail]' | sed 's/^/#   fsck: /'
		W_FSCK=$(grep -F '[FSCK]' /tmp/fsck.out | grep -F '[Fail]' | grep -vc 'free segment_count matched with CP')
		expect_eq "$W_SCEN: fsck.f2fs: every check Ok (but the free segment count)" "$W_FSCK" 0
		expect_match "$W_SCEN: fsck.f2fs: valid block count matches the checkpoint" \
			'valid_block_count matching with CP.*Ok' "$(grep -F '[FSCK]' /tmp/fsck.out | tr '\n' ' ')"
		expect_ok "$W_SCEN: mount again" mount -t f2fs "$D" /mnt/f
		verify_acked
		expect_ok "$W_SCEN: umount again" run_to 120 umount /mnt/f
		W_VERIFY="$V_GOOD/$V_ALL files, fsck $([ "$W_FSCK" = 0 ] && echo clean || echo "ERRORS ($W_FSCK)")"
		ns_vs_ublk "$F" "$W_DEV" "$W_SCEN"
		;;
	fio)
		W_VERIFY="fio write+verify passed in $((S_FIORUN - S_FIOFAIL)) of $S_FIORUN runs"
		ns_vs_ublk "$P" "$W_DEV" "$W_SCEN"
		;;
	esac
	# unheld now: SIGTERM stops the server and deletes the device
	srv_stop "$W_SRV"
}

# wl_abandon WHY: the device or the file system is gone; unmount what can be
# and kill the servers of the namespace so that the next scenario starts clean
wl_abandon() {
	vm_log "$W_SCEN: abandoned: $1"
	[ -z "$W_MNT" ] || umount "$W_MNT" 2>/dev/null || umount -l "$W_MNT" 2>/dev/null
	for p in $W_SRV $SRV_PID; do
		gone "$p" || kill -KILL "$p" 2>/dev/null
		wait_gone "$p" 100 && reap "$p"
	done
	W_VERIFY="not verified ($1)"
}

# ---- the rounds -------------------------------------------------------------------

# watch_dev UBLKB DEVNO STOP MISS: every 50 ms until STOP exists, note in
# MISS each moment the device node or its sysfs entry is missing or has
# another dev number
watch_dev() {
	local d s=/sys/block/${1#/dev/}/dev
	while [ ! -e "$3" ]; do
		d=missing
		[ -b "$1" ] && [ -e "$s" ] && read -r d <"$s"
		[ "$d" = "$2" ] || echo "$(cut -d' ' -f1 /proc/uptime)s: $d" >>"$4"
		sleep 0.05
	done
}

# srv_log_on_trouble SYSLOG_LINE0 IOERR FSERR: when the round saw errors or
# failed writers, what the servers logged during it (both, through syslog)
srv_log_on_trouble() {
	[ "$2" = 0 ] && [ "$3" = 0 ] && [ "$WL_FAILED" = 0 ] && return 0
	tail -n +$(($1 + 1)) /tmp/syslog 2>/dev/null | grep -i 'zns-npo2' | tail -12 |
		sed 's/^/#   server log: /'
}

# How a SIGTERMed server parks, by kernel: 7.x's ublk_drv offers
# UBLK_F_QUIESCE, and the server (which asks for it at ADD_DEV) parks with
# QUIESCE_DEV: the driver dispatches nothing more, the queues answer every
# request they were given; 6.12's has no QUIESCE_DEV, and the server parks
# by closing its rings (the driver requeues what it had not started).
if [ "$(uname -r | cut -d. -f1)" -ge 7 ]; then PARK_QUIESCE=yes; else PARK_QUIESCE=no; fi
echo "# kernel $(uname -r): parking by QUIESCE_DEV expected: $PARK_QUIESCE"

# dev_state UBLKB: the driver's state of the device (GET_DEV_INFO, through
# status -o json: 1 live, 2 quiesced), empty if none
dev_state() {
	$Z status "$1" -o json >/tmp/st.json 2>/dev/null
	sed -n 's/.*"dev_state": \([0-9]*\).*/\1/p' /tmp/st.json | head -1
}

# park_check DESC UBLKB ERRFILE: the parked server's log (ERRFILE) says how
# it parked, as the kernel's driver allows; the driver's state of UBLKB is
# quiesced (the driver sets it once the server's files are released: up to
# 2 s)
park_check() {
	local l i=0 st
	l=$(grep -E 'parking by|QUIESCE_DEV failed|: parked' "$3")
	if [ $PARK_QUIESCE = yes ]; then
		expect_match "$1: the device has UBLK_F_QUIESCE (features: quiesce)" \
			'features: .* quiesce .*\(driver offers 0x' "$(grep -m1 ': features: ' "$3")"
		expect_match "$1: parked by QUIESCE_DEV: the driver dispatched nothing more" \
			'parking by QUIESCE_DEV: the driver dispatches nothing more \([0-9]+ ms\)' "$l"
		expect_match "$1: parked by QUIESCE_DEV with nothing left in flight" \
			'parked by QUIESCE_DEV: 0 request\(s\) left untouched' "$l"
		expect_eq "$1: QUIESCE_DEV did not fail" "$(grep 'QUIESCE_DEV failed' "$3")" ""
	else
		expect_eq "$1: no quiesce in the features (6.12 has no UBLK_F_QUIESCE)" \
			"$(grep -m1 ': features: ' "$3" | grep -c ' quiesce ')" 0
		expect_match "$1: parked by closing the rings (no QUIESCE_DEV on $(uname -r))" \
			'parking by closing the rings \(the device has no QUIESCE_DEV\)' "$l"
		expect_match "$1: the park ended" ': parked: [0-9]+ request\(s\) left untouched' "$l"
	fi
	while st=$(dev_state "$2") && [ "$st" != 2 ] && [ $i -lt 20 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	expect_eq "$1: the driver's state of $2 is quiesced (GET_DEV_INFO)" "$st" 2
	printf '%s\n' "$l" | sed 's/^/#   parked server: /'
}

# one_round MODE(KILL|TERM|KILL2|TERM2) R: one round; returns 1 when the
# scenario cannot go on (no server, device or file system lost). KILL2 and
# TERM2: a second fault, the server that takes the device back SIGKILLed
# at a random moment of its start, before the third one is started.
one_round() {
	local mode=${1%2} dbl=${1#"${1%2}"} r=$2 try=0 delay span ir iw infl=0 looks after e0 f0 e f
	local devno kms rc h tag why= sl0 old=$W_SRV p2 d2
	W_GONE=
	local n=${W_DEV#/dev/}
	e0=$(errlines "$W_DEV")
	f0=$(fs_errs)
	sl0=$(grep -c . /tmp/syslog 2>/dev/null)
	devno=$(cat /sys/block/$n/dev)
	# the device node is watched from before the signal (restart rounds)
	if [ "$mode" = TERM ]; then
		rm -f /tmp/watch.stop /tmp/watch.miss
		watch_dev "$W_DEV" "$devno" /tmp/watch.stop /tmp/watch.miss &
		WATCH=$!
	fi
	# from a random moment on, the server is frozen (SIGSTOP) for up to 50
	# looks at a time: only it completes a ublk request, so once one is in
	# flight it stays so until the signal. An unfrozen server raced the
	# look and, under f2fs's short bursts, once left nothing to see in 24
	# batches. Between windows it runs: it must answer what the block layer
	# does not count in flight (a passthrough request such as the zone
	# report fio starts with, the flush of an fsync). A batch whose writers
	# end first (the moment came after their last I/O) is retried, the next
	# moment drawn before this one.
	span=700
	while [ $try -lt 24 ]; do
		try=$((try + 1))
		tag=$r.$try
		wl_start "$tag"
		delay=$(rnd $span)
		sleep "$(printf '0.%03d' "$delay")"
		infl=0
		while ! wl_done; do
			kill -STOP "$old"
			looks=0
			while [ $looks -lt 50 ] && ! wl_done; do
				read -r ir iw </sys/block/$n/inflight
				infl=$((ir + iw))
				[ $infl -gt 0 ] && break 2
				looks=$((looks + 1))
				sleep 0.01
			done
			kill -CONT "$old"
			sleep 0.02
		done
		if [ $infl -gt 0 ]; then
			# a stopped process takes SIGKILL at once, SIGTERM once it runs
			kill -$mode "$old"
			[ "$mode" = TERM ] && kill -CONT "$old"
			break
		fi
		span=$((delay > 20 ? delay : 20))
		wl_wait 600 "$tag"
		S_WERR=$((S_WERR + WL_FAILED))
		[ "$W_KIND" = fio ] && S_FIORUN=$((S_FIORUN + 1)) && [ "$WL_FAILED" != 0 ] && S_FIOFAIL=$((S_FIOFAIL + 1))
		[ "$WL_FAILED" = 0 ] || { why="writers failed before the signal:$WL_WHY"; break; }
	done
	kms=$(now_ms)
	# still in flight a moment later: what the dead or parked server left
	after=$(inflight "$W_DEV" 2>/dev/null)
	S_RUNS=$((S_RUNS + 1))
	if [ $infl -eq 0 ]; then
		not_ok "$W_SCEN $r: requests in flight at the SIG$mode" "none seen in $try batches ${why}"
		[ "$mode" = TERM ] && { touch /tmp/watch.stop; wait $WATCH; }
		return 0
	fi
	ok "$W_SCEN $r: $infl requests in flight at the SIG$mode (delay $delay ms, batch $try)"
	echo $infl >>/tmp/infl-$W_SCEN
	echo "${after:-0}" >>/tmp/held-$W_SCEN
	if wait_gone "$old" $([ "$mode" = TERM ] && echo 200 || echo 100); then
		reap "$old"
		rc=$?
		ok "$W_SCEN $r: the server exited ($rc) $(($(now_ms) - kms)) ms after the signal"
	else
		rc=-
		not_ok "$W_SCEN $r: the server exited after SIG$mode" \
			"pid $old still running after $([ "$mode" = TERM ] && echo 20 || echo 10) s ($(grep State /proc/$old/status), in $(cat /proc/$old/wchan 2>/dev/null)): SIGKILL"
		kill -KILL "$old"
		if ! wait_gone "$old" 100; then
			not_ok "$W_SCEN $r: the server exits on SIGKILL" \
				"pid $old stuck ($(grep State /proc/$old/status), in $(cat /proc/$old/wchan 2>/dev/null))"
			h=$(health "$W_DEV")
			vm_log "$W_SCEN $r: device $W_DEV: ${h:-no status}; $(grep " $W_MNT " /proc/mounts)"
			[ "$mode" = TERM ] && { touch /tmp/watch.stop; wait $WATCH; sed 's/^/#   device: /' /tmp/watch.miss 2>/dev/null | head -3; }
			wl_wait 50 "$tag"
			return 1
		fi
		reap "$old"
	fi
	h=$(health "$W_DEV")
	expect_eq "$W_SCEN $r: the device is left quiesced for the next server" "${h:-no mapping}" dead-quiesced
	[ "$mode" = TERM ] && park_check "$W_SCEN $r" "$W_DEV" "$W_ERR"
	if [ -n "$dbl" ]; then
		# the second fault: the recovering server dies 0-1.5 s into its
		# start (systemd's start timeout, the OOM killer), writers waiting
		$Z map --ublk --foreground "$W_NG" >/tmp/srv2-$W_SCEN-$r.out 2>/tmp/srv2-$W_SCEN-$r.err &
		p2=$!
		d2=$(rnd 1500)
		sleep "$(printf '%d.%03d' $((d2 / 1000)) $((d2 % 1000)))"
		kill -KILL "$p2" 2>/dev/null
		if wait_gone "$p2" 50; then
			reap "$p2"
			ok "$W_SCEN $r: the recovering server, SIGKILLed $d2 ms into its start, is gone within 5 s"
			S_DOUBLE=$((S_DOUBLE + 1))
		else
			not_ok "$W_SCEN $r: the recovering server, SIGKILLed $d2 ms into its start, is gone within 5 s" \
				"pid $p2 $(grep State /proc/$p2/status), in $(cat /proc/$p2/wchan 2>/dev/null)"
			[ "$mode" = TERM ] && { touch /tmp/watch.stop; wait $WATCH; }
			S_LOST=1
			return 1
		fi
		h=$(health "$W_DEV")
		expect_eq "$W_SCEN $r: after the second fault the device waits for the next server" \
			"${h:-no mapping}" dead-quiesced
	fi
	if ! srv_start "$W_NG" "$W_SCEN"; then
		not_ok "$W_SCEN $r: a new server takes $W_DEV back" "no device from map --ublk --foreground $W_NG"
		[ "$mode" = TERM ] && { touch /tmp/watch.stop; wait $WATCH; }
		S_LOST=1
		return 1
	fi
	W_SRV=$SRV_PID W_ERR=$SRV_ERR
	expect_eq "$W_SCEN $r: the new server took back the same device ($SRV_MS ms)" "$SRV_DEV" "$W_DEV"
	wl_wait 900 "$tag"
	if [ "$mode" = TERM ]; then
		touch /tmp/watch.stop
		wait $WATCH
		expect_eq "$W_SCEN $r: $W_DEV and /sys/block/$n stayed throughout (dev $devno)" \
			"$(cat /tmp/watch.miss 2>/dev/null | head -3 | tr '\n' ' ')" ""
		# a new device under the old name is not the device the writers had
		[ -s /tmp/watch.miss ] && W_GONE=1
	fi
	S_WERR=$((S_WERR + WL_FAILED))
	[ "$W_KIND" = fio ] && S_FIORUN=$((S_FIORUN + 1)) && [ "$WL_FAILED" != 0 ] && S_FIOFAIL=$((S_FIOFAIL + 1))
	expect_eq "$W_SCEN $r: the writers finished without error" "$WL_FAILED$WL_WHY" 0
	e=$(($(errlines "$W_DEV") - e0))
	S_IOERR=$((S_IOERR + e))
	expect_eq "$W_SCEN $r: no error line for $n in dmesg" "$e" 0
	[ "$e" = 0 ] || dmesg | grep "error, dev $n," | tail -n "$e" | head -4 | sed 's/^/#   dmesg: /'
	f=0
	if [ -n "$W_MNT" ]; then
		f=$(($(fs_errs) - f0))
		S_FSERR=$((S_FSERR + f))
		[ "$W_KIND" = btrfs ] && expect_eq "$W_SCEN $r: btrfs device stats all zero, no BTRFS error" "$f" 0
		[ "$W_KIND" = f2fs ] && expect_eq "$W_SCEN $r: no F2FS error in dmesg" "$f" 0
		[ "$f" = 0 ] || dmesg | grep -E 'BTRFS:? (error|critical)|F2FS-fs.*(rror|fail|Stop)' |
			tail -4 | sed 's/^/#   dmesg: /'
		if touch "$W_MNT/rw-probe-$r" 2>/dev/null && mnt_rw "$W_MNT"; then
			ok "$W_SCEN $r: the file system is still read-write"
		else
			not_ok "$W_SCEN $r: the file system is still read-write" "$(grep " $W_MNT " /proc/mounts)"
			S_FSERR=$((S_FSERR + 1))
			vm_log "$W_SCEN $r: in flight $infl (after the signal $after), I/O errors $e, fs errors $f"
			srv_log_on_trouble "$sl0" "$e" 1
			return 1
		fi
	fi
	vm_log "$W_SCEN $r: in flight $infl (after the signal $after), old server exit $rc, new server in $SRV_MS ms, I/O errors $e, fs errors ${f:-0}"
	srv_log_on_trouble "$sl0" "$e" "$f"
	[ -z "$W_GONE" ]
}

# scenario MODE KIND ROUNDS NAME: MODE is KILL or TERM for every round, or
# DOUBLE: odd rounds KILL2, even rounds TERM2 (see one_round)
scenario() {
	local mode=$1 kind=$2 n=$3 r=1 lost= m
	S_RUNS=0 S_IOERR=0 S_FSERR=0 S_FIOFAIL=0 S_FIORUN=0 S_LOST=0 S_WERR=0 S_DOUBLE=0
	: >/tmp/infl-$4
	: >/tmp/held-$4
	case $mode in
	DOUBLE) vm_log "---- $4: SIGKILL or SIGTERM of the server, then SIGKILL of the recovering one, under $kind, $n rounds ----" ;;
	*) vm_log "---- $4: SIG$mode of the server under $kind, $n rounds ----" ;;
	esac
	if ! wl_setup "$kind" "$4"; then
		wl_abandon "set-up failed"
		summary "$4" "0/$n" - - - - - "$W_VERIFY"
		return 0
	fi
	while [ $r -le "$n" ]; do
		m=$mode
		[ "$mode" = DOUBLE ] && m=$([ $((r % 2)) = 1 ] && echo KILL2 || echo TERM2)
		one_round "$m" "$r" || { lost=$r; break; }
		r=$((r + 1))
	done
	if [ -n "$lost" ]; then
		[ "$lost" -lt "$n" ] &&
			not_ok "$4: rounds $((lost + 1))-$n not run" "the device or the file system was lost in round $lost"
		wl_abandon "lost in round $lost"
	else
		wl_end
	fi
	summary "$4" "$(grep -c . /tmp/infl-$4)/$n" "$(fig_stats /tmp/infl-$4)" "$(fig_stats /tmp/held-$4)" \
		"$S_IOERR" "$S_FSERR" "$S_WERR" "$W_VERIFY"
	[ "$mode" = DOUBLE ] && expect_eq "$4: a second fault in every round" "$S_DOUBLE" "$n"
	true
}

# Scenario 3: recovery binding. P and B have the same geometry, so only the
# binding of a quiesced device to its namespace tells them apart. Both
# servers are SIGKILLed; a write to B's device waits for a server. Then:
#   - P's server asked to take back B's device (--recover --ublk-id) must
#     be refused with a one-line reason, and neither namespace change;
#   - P's record edited to name B's device and a live unrelated pid must
#     not be trusted: B's device is not taken, with a logged reason;
#   - B's own server takes B's device back: the waiting write lands on B;
#   - with the record restored, --recover of P's own device works.
# Data: a pattern on zone 0 of each namespace (nvme-pattern through the ng
# nodes), every zone's write pointer from the namespaces' own reports.
# Sourced by guest.sh.

vm_log "---- binding: two namespaces of the same geometry, both servers killed ----"
BD_LBAS=$(ns_conf 0 5 lbas)
BD_ZL=$(($(ns_conf 0 5 zsze) / BD_LBAS))
BD_ERR=0 BD_VERIFY= BD_WRONG=- BD_STALEV=-
expect_ok "binding: reset P's zones" nvme zns reset-zone "$P" -a
expect_ok "binding: reset B's zones" nvme zns reset-zone "$B" -a
expect_ok "binding: pattern on P's zone 0 (ng)" nvme-pattern write "$P" 0 256 "$BD_LBAS" 41
expect_ok "binding: pattern on B's zone 0 (ng)" nvme-pattern write "$B" 0 256 "$BD_LBAS" 42

# bd_wait PID OUT TENTHS: until PID exits or prints a device path; BD_DEV
# = the path (empty if none), BD_RC = exit status (- while it runs)
bd_wait() {
	local end=$(($(now_ms) + $3 * 100))
	BD_DEV= BD_RC=-
	while [ "$(now_ms)" -lt $end ]; do
		BD_DEV=$(grep -m1 '^/dev/ublkb[0-9]*$' "$2")
		[ -n "$BD_DEV" ] && return 0
		if gone "$1"; then
			reap "$1"
			BD_RC=$?
			return 0
		fi
		sleep 0.1
	done
}

if srv_start "$P" bind-P && UP=$SRV_DEV PSRV=$SRV_PID && srv_start "$B" bind-B; then
	UB=$SRV_DEV BSRV=$SRV_PID
	PI=${UP#/dev/ublkb} BI=${UB#/dev/ublkb}
	PO2=$(cat /sys/block/ublkb$BI/queue/chunk_sectors)
	BE0=$(($(errlines "$UB") + $(errlines "$UP")))
	vm_log "P served as $UP (pid $PSRV), B as $UB (pid $BSRV)"
	kill -KILL "$PSRV" "$BSRV"
	wait_gone "$PSRV" 100
	wait_gone "$BSRV" 100
	reap "$PSRV"
	reap "$BSRV"
	expect_eq "binding: both servers killed, both devices quiesced" "$(health "$UP") $(health "$UB")" \
		"dead-quiesced dead-quiesced"
	ns_wps "$P" "$BD_LBAS" >/tmp/bind-P.wp0
	ns_wps "$B" "$BD_LBAS" >/tmp/bind-B.wp0
	# P's record as its killed server left it
	rec=$(grep -lE "^ng=(/dev/)?${P#/dev/}\$" /run/zns-npo2/*.ublk 2>/dev/null | head -1)
	expect_eq "binding: the killed server's record names $UP" \
		"$(sed -n 's/^dev_id=//p' "$rec" 2>/dev/null)" "$PI"
	[ -n "$rec" ] && cp -p "$rec" /tmp/bind-rec.orig
	# a write to B's zone 1 waits for B's next server
	# (the pattern nvme-pattern verifies on B's zone 1: LBAs BD_ZL.., seed 43)
	nvme-pattern gen - "$BD_ZL" 64 "$BD_LBAS" 43 >/tmp/bind-w1
	dd if=/tmp/bind-w1 of="$UB" bs=64k count=4 seek=$((PO2 * 512 / 65536)) oflag=direct \
		>/tmp/bind-dd.out 2>&1 &
	DDB=$!
	sleep 1
	expect_eq "binding: a write to B's device waits while no server runs" "$(gone $DDB || echo waiting)" waiting

	# -- P's server asked to take back B's device
	$Z map --ublk --foreground --recover --ublk-id "$BI" "$P" >/tmp/bind-wrong.out 2>/tmp/bind-wrong.err &
	WSRV=$!
	bd_wait "$WSRV" /tmp/bind-wrong.out 200
	if [ -n "$BD_DEV" ]; then
		not_ok "binding: map --ublk --recover --ublk-id $BI (B's device) of P is refused" \
			"it serves $BD_DEV from $P"
		BD_WRONG="SERVED"
		sed 's/^/#   | /' /tmp/bind-wrong.err | head -5
		sleep 1
		kill -KILL "$WSRV"
		wait_gone "$WSRV" 100
		reap "$WSRV"
	elif [ "$BD_RC" = - ]; then
		not_ok "binding: map --ublk --recover --ublk-id $BI (B's device) of P is refused" "no answer in 20 s"
		BD_WRONG="no answer"
		kill -KILL "$WSRV"
		wait_gone "$WSRV" 100
		reap "$WSRV"
	else
		expect_eq "binding: map --ublk --recover --ublk-id $BI (B's device) of P is refused (non-zero exit)" \
			"$([ "$BD_RC" != 0 ] && echo refused || echo "exit 0")" refused
		expect_eq "binding: ... with a one-line reason" "$(grep -c . /tmp/bind-wrong.err)" 1
		BD_WRONG="exit $BD_RC"
		sed 's/^/#   reason: /' /tmp/bind-wrong.err | head -3
	fi
	expect_eq "binding: B's write still waits (B's device not served)" "$(gone $DDB || echo waiting)" waiting
	expect_eq "binding: B's device still quiesced" "$(health "$UB")" dead-quiesced
	ns_wps "$P" "$BD_LBAS" >/tmp/bind-P.wp1
	ns_wps "$B" "$BD_LBAS" >/tmp/bind-B.wp1
	expect_same "binding: P's namespace unchanged (every write pointer)" /tmp/bind-P.wp0 /tmp/bind-P.wp1
	expect_same "binding: B's namespace unchanged (every write pointer)" /tmp/bind-B.wp0 /tmp/bind-B.wp1
	expect_ok "binding: B's pattern verifies on its ng node" nvme-pattern verify "$B" 0 256 "$BD_LBAS" 42
	expect_ok "binding: P's pattern verifies on its ng node" nvme-pattern verify "$P" 0 256 "$BD_LBAS" 41

	# -- a record naming B's device and a live pid that is no server of it
	sleep 600 &
	STALE=$!
	if [ -n "$rec" ]; then
		sed -e "s/^dev_id=.*/dev_id=$BI/" -e "s/^pid=.*/pid=$STALE/" /tmp/bind-rec.orig >/tmp/bind-rec.new
		cat /tmp/bind-rec.new >"$rec" 2>/dev/null || cp -p /tmp/bind-rec.new "$rec"
		vm_log "record $rec now names $UB and pid $STALE (a sleep)"
		SL0=$(grep -c . /tmp/syslog 2>/dev/null)
		$Z map --ublk --foreground "$P" >/tmp/bind-stale.out 2>/tmp/bind-stale.err &
		SSRV=$!
		bd_wait "$SSRV" /tmp/bind-stale.out 200
		vm_log "with the edited record: device '${BD_DEV}', exit $BD_RC"
		BD_STALEV=$([ "$BD_DEV" = "$UB" ] && echo "TOOK $UB" || echo "${BD_DEV:-exit $BD_RC}")
		sed 's/^/#   | /' /tmp/bind-stale.err | head -5
		expect_eq "binding: the edited record's device ($UB) is not taken by P's server" \
			"$([ "$BD_DEV" = "$UB" ] && echo taken || echo "not taken")" "not taken"
		expect_eq "binding: ... B's write still waits" "$(gone $DDB || echo waiting)" waiting
		expect_match "binding: ... the record is distrusted with a logged reason" '[Rr]ecord|[Ss]tale' \
			"$(cat /tmp/bind-stale.err; tail -n +$((SL0 + 1)) /tmp/syslog 2>/dev/null | grep -i zns)"
		expect_eq "binding: ... the pid in the record was not signalled" "$(gone $STALE || echo alive)" alive
		if [ -n "$BD_DEV" ]; then
			# it serves something; a SIGKILL leaves it quiesced (if it is
			# B's, B's own server takes it back below)
			kill -KILL "$SSRV"
			wait_gone "$SSRV" 100
			reap "$SSRV"
			[ "$BD_DEV" != "$UB" ] && [ "$BD_DEV" != "$UP" ] && $Z unmap --force "$BD_DEV" >/dev/null 2>&1
		elif [ "$BD_RC" = - ]; then
			kill -KILL "$SSRV"
			wait_gone "$SSRV" 100
			reap "$SSRV"
		fi
		cat /tmp/bind-rec.orig >"$rec" 2>/dev/null || cp -p /tmp/bind-rec.orig "$rec"
	fi
	kill "$STALE"
	ns_wps "$B" "$BD_LBAS" >/tmp/bind-B.wp2
	expect_same "binding: B's namespace still unchanged" /tmp/bind-B.wp0 /tmp/bind-B.wp2

	# -- B's own server takes B's device back; the waiting write lands on B
	if srv_start "$B" bind-B2; then
		BSRV=$SRV_PID
		expect_eq "binding: B's own server takes back $UB" "$SRV_DEV" "$UB"
		wait_gone "$DDB" 300
		reap "$DDB"
		expect_eq "binding: the waiting write completed" "$?" 0
		ns_wps "$B" "$BD_LBAS" >/tmp/bind-B.wp3
		expect_eq "binding: ... on B's zone 1 (256 KiB)" "$(sed -n 2p /tmp/bind-B.wp3)" 512
		expect_ok "binding: ... with the data written (verified through B's ng node)" \
			nvme-pattern verify "$B" "$BD_ZL" 64 "$BD_LBAS" 43
		expect_ok "binding: B's pattern verifies after its recovery" nvme-pattern verify "$B" 0 256 "$BD_LBAS" 42
	else
		not_ok "binding: B's own server takes back $UB"
		kill -KILL $DDB
	fi
	ns_wps "$P" "$BD_LBAS" >/tmp/bind-P.wp3
	expect_same "binding: P's namespace unchanged by B's write" /tmp/bind-P.wp0 /tmp/bind-P.wp3

	# -- explicit recovery of P's own device (its record restored)
	$Z map --ublk --foreground --recover --ublk-id "$PI" "$P" >/tmp/bind-own.out 2>/tmp/bind-own.err &
	PSRV=$!
	bd_wait "$PSRV" /tmp/bind-own.out 400
	expect_eq "binding: --recover --ublk-id $PI of P takes back P's own device" "$BD_DEV" "$UP"
	[ "$BD_DEV" = "$UP" ] || sed 's/^/#   | /' /tmp/bind-own.err | head -5
	expect_ok "binding: P's pattern verifies after its recovery" nvme-pattern verify "$P" 0 256 "$BD_LBAS" 41
	BD_ERR=$(($(errlines "$UB") + $(errlines "$UP") - BE0))
	expect_eq "binding: no error line for $UP or $UB in dmesg" "$BD_ERR" 0
	srv_stop "$PSRV"
	srv_stop "$BSRV"
	expect_eq "binding: both devices deleted once stopped unheld" \
		"$([ -e "$UP" ] || [ -e "$UB" ] || echo gone)" gone
	BD_VERIFY="wrong id: $BD_WRONG; stale record: $BD_STALEV; B $(cmp -s /tmp/bind-B.wp0 /tmp/bind-B.wp1 && nvme-pattern verify "$B" 0 256 "$BD_LBAS" 42 >/dev/null 2>&1 && echo untouched || echo CHANGED), P $(cmp -s /tmp/bind-P.wp0 /tmp/bind-P.wp3 && echo untouched || echo CHANGED)"
else
	not_ok "binding: servers for P and B"
	BD_VERIFY="not run"
fi
summary binding 3 - - "$BD_ERR" - - "$BD_VERIFY"

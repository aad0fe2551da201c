# Guest side of bench/discard-vm-zones.sh: reset all 1000 zones of the npo2
# namespace (each made FULL first, by zsend), one synchronous NVMe command per
# zone vs batched through io_uring at queue depth 64, interleaved rounds.
# Timings: the engine's own (JSON "seconds") for `discard` (ZNP_FORCE_SYNC=1
# vs -q 64), wall clock for the zone command `reset -c 1000` (-q 1 vs -q 64).
BIN=nvme-zns-npo2
ROUNDS=5
Z=$(vm_ng 0 1)
LBA=$(ns_conf 0 1 lbas)
ZL=$(($(ns_conf 0 1 zsze) / LBA))
NZ=$(($(ns_conf 0 1 size) / LBA / ZL))

count_state() { nvme zns report-zones "$1" -o json | grep -c "\"state\":\"$2\""; }
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
jsec() { tr -d ' \n' <"$1" | sed -n 's/.*"seconds":\([0-9.e+-]*\),.*/\1/p'; }

run_method() {	# METHOD -> prints seconds
	case "$1" in
	discard-sync) env ZNP_FORCE_SYNC=1 $BIN discard "$Z" --force -o json >/tmp/b.json && jsec /tmp/b.json ;;
	discard-q64) $BIN discard "$Z" --force -q 64 -o json >/tmp/b.json && jsec /tmp/b.json ;;
	reset-q1|reset-q64)
		t0=$(now_ms)
		$BIN reset "$Z" -s 0 -c "$NZ" -q "${1#reset-q}" --force >/dev/null || return 1
		t1=$(now_ms)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1000 }' ;;
	esac
}

: >/tmp/bench.txt
bad=0
for r in $(seq 1 $ROUNDS); do
	if [ $((r % 2)) = 1 ]; then order="discard-sync discard-q64 reset-q1 reset-q64"
	else order="discard-q64 discard-sync reset-q64 reset-q1"; fi
	for m in $order; do
		zsend "$Z" 2 0 "$NZ" "$ZL" || { not_ok "round $r: finish all zones (setup)"; bad=1; }
		full=$(count_state "$Z" FULL)
		s=$(run_method "$m") || { not_ok "round $r: $m failed"; bad=1; continue; }
		empty=$(count_state "$Z" EMPTY)
		[ "$full:$empty" = "$NZ:$NZ" ] || { not_ok "round $r $m: $full FULL before, $empty EMPTY after"; bad=1; }
		echo "$r $m $s" >>/tmp/bench.txt
		vm_log "round $r $m $s s"
	done
done
[ $bad = 0 ] && ok "$ROUNDS rounds: every method reset all $NZ FULL zones (nvme-cli report)"
section vm-reset-bench cat /tmp/bench.txt
true

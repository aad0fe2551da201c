# ublk server against device faults and memory pressure on Debian's stock
# kernel (busybox ash; sourced by /init after lib.sh). Three boots of
# tests/layers.d/57-vm-ublk-faults.sh run this script: FAULTS=1 (map --ublk
# whose daemon cannot be forked, a controller reset under fio verify, then
# the whole controller removed under the server and brought back), DETACH=1
# (the controller in an NVMe subsystem, the server on the multipath head's
# node: a controller reset under fio verify, then the namespace detached
# under the server and attached again) and MEMPRESS=1 (a small guest, btrfs
# on the ublk device, writers far beyond its memory).
#
# Judged on what the guest's kernel says (dmesg: I/O errors, hung tasks),
# on fio's own verify and on data compared with its source, never on the
# tool's own earlier output.

Z=nvme-zns-npo2
A=$(vm_ng 0 1)
UA=/dev/ublkb0
vm_summary

# ng_back: the namespace's ng node once it is back (up to 20 s), empty if not
ng_back() {
	local i=0 ng=
	while [ -z "$ng" ] && [ $i -lt 100 ]; do
		ng=$(vm_ng 0 1 2>/dev/null)
		[ -c "$ng" ] || ng=
		[ -n "$ng" ] || sleep 0.2
		i=$((i + 1))
	done
	echo "$ng"
}
# start_srv NG: `map --ublk --foreground` as systemd runs it (pid in $SRV)
N=0
start_srv() {
	local i=0
	N=$((N + 1))
	$Z map --ublk --foreground "$1" >/tmp/srv.$N.out 2>/tmp/srv.$N.err &
	SRV=$!
	while [ $i -lt 300 ]; do
		grep -q '^/dev/ublkb' /tmp/srv.$N.out 2>/dev/null && return 0
		kill -0 $SRV 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# ioerrs: I/O error lines of the ublk device in the kernel log so far
ioerrs() { dmesg | grep -c 'I/O error, dev ublkb'; }
srv_logs() { for f in /tmp/srv.*.err; do sed "s|^|#   ${f#/tmp/}: |" "$f"; done; }
# inflight: requests in flight on the ublk device
inflight() { awk '{ print $1 + $2 }' /sys/block/ublkb0/inflight; }
# wait_inflight: up to 10 s for requests in flight on the ublk device;
# prints the count it saw (0: none came)
wait_inflight() {
	local i=0 n
	n=$(inflight)
	while [ "$n" = 0 ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
		n=$(inflight)
	done
	echo "$n"
}
# busy_reset CTRL: `nvme reset` of CTRL as soon as requests are in flight on
# the ublk device (the count seen is logged; none in 10 s fails)
busy_reset() {
	local infl
	infl=$(wait_inflight)
	vm_log "requests in flight at the reset: $infl"
	[ "$infl" -gt 0 ] && nvme reset /dev/$1
}
# fio_verify NAME OFFSET ZONES: fio zbd write + verify of ZONES zones from
# OFFSET on the ublk device, in the background (pid in $FIO)
fio_verify() {
	fio --name=$1 --filename=$UA --direct=1 --ioengine=io_uring --iodepth=16 \
		--zonemode=zbd --rw=write --bs=64k --offset=$2 --size=$(($3 * $(ns_conf 0 1 zsze))) \
		--max_open_zones=4 --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output=/tmp/fio-$1.out >/dev/null 2>&1 &
	FIO=$!
}

if [ -n "${FAULTS:-}" ]; then
	C=$(vm_ctrl 0)
	# ---- the daemon cannot be forked (ZNP_TEST_FORK_FAIL, test hooks) --------
	# The hook fails the fork with EAGAIN and, after the refusal, stops the
	# process: what it still holds then is listed before it exits.
	ZNP_TEST_FORK_FAIL=1 $Z map --ublk "$A" </dev/null >/tmp/ff.out 2>/tmp/ff.err &
	FF=$!
	i=0
	while [ $i -lt 300 ] && [ "$(awk '{ print $3 }' /proc/$FF/stat 2>/dev/null)" != T ]; do
		sleep 0.1
		i=$((i + 1))
	done
	expect_eq "fork fails: map --ublk stops at the hook after its refusal" \
		"$(awk '{ print $3 }' /proc/$FF/stat 2>/dev/null)" T
	ls -l /proc/$FF/fd >/tmp/ff.fds 2>&1
	expect_eq "fork fails: no pipe end left open (the pipe to the daemon is closed)" \
		"$(grep -c 'pipe:' /tmp/ff.fds)" 0
	grep 'pipe:' /tmp/ff.fds | sed 's/^/#   /'
	kill -CONT $FF
	wait $FF
	expect_eq "fork fails: exit 1" $? 1
	expect_match "fork fails: the error names the failed fork" \
		"fork: Resource temporarily unavailable" "$(cat /tmp/ff.err)"
	expect_eq "fork fails: no ublk device was added" "$(ls /dev/ublkb* 2>/dev/null)" ""
	expect_ok "faults: server started on $A" start_srv "$A"
	# ---- controller reset during fio zbd write + verify ---------------------
	# --rate: the writes last >= 12 s (192 MiB at 16 MiB/s) however fast the
	# host, so that both resets find them in flight
	fio --name=reset --filename=$UA --direct=1 --ioengine=io_uring --iodepth=16 \
		--zonemode=zbd --rw=write --bs=64k --size=$((4 * $(ns_conf 0 1 zsze))) --rate=16m \
		--max_open_zones=4 --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output=/tmp/fio-reset.out >/dev/null 2>&1 &
	FIO=$!
	expect_ok "faults: nvme reset of $C with fio's writes in flight" busy_reset $C
	sleep 1
	expect_ok "faults: a second nvme reset of $C with writes in flight" busy_reset $C
	wait $FIO
	expect_eq "faults: fio write + verify across two controller resets passes" $? 0
	grep -E 'err=|verify' /tmp/fio-reset.out | head -3 | sed 's/^/#   fio: /'
	expect_eq "faults: no I/O error reached the ublk device's users" "$(ioerrs)" 0
	expect_eq "faults: the server lived through the resets" "$(kill -0 $SRV 2>/dev/null && echo alive)" alive
	vm_log "server: $(grep -c 'NVMe status\|checking the zone' /tmp/srv.$N.err) retried command(s) logged"

	# ---- the namespace goes away under the server ---------------------------
	expect_ok "faults: zones reset" blkzone reset $UA
	fio_verify gone 0 3
	vm_log "requests in flight when the controller goes: $(wait_inflight)"
	pci=$(readlink -f /sys/class/nvme/$C/device)
	vm_log "removing the controller $C ($pci) under the server"
	echo 1 >"$pci/remove"
	i=0
	while kill -0 $SRV 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	wait $SRV
	rc=$?
	expect_eq "faults: the server exits with a failure when its namespace is gone" \
		"$([ $rc -ne 0 ] && [ $rc -lt 128 ] && echo failed)" failed
	expect_eq "faults: /dev/ublkb0 stays (quiesced, its users wait)" "$([ -b $UA ] && echo yes)" yes
	expect_eq "faults: fio is still running, waiting" "$(kill -0 $FIO 2>/dev/null && echo running)" running
	echo 1 >/sys/bus/pci/rescan
	A2=$(ng_back)
	expect_eq "faults: the namespace is back after a PCI rescan" "$([ -n "$A2" ] && echo yes)" yes
	expect_ok "faults: a new server (as systemd restarts it) takes the device back" start_srv "$A2"
	wait $FIO
	expect_eq "faults: fio write + verify across the namespace's absence passes" $? 0
	expect_eq "faults: still no I/O error for the ublk device" "$(ioerrs)" 0
	kill -TERM $SRV
	wait $SRV
	expect_eq "faults: the server stops cleanly (device not held: removed)" "$?" 0
	expect_eq "faults: /dev/ublkb0 is gone after the stop" "$([ -e $UA ] && echo present)" ""
	srv_logs
fi

if [ -n "${DETACH:-}" ]; then
	C=$(vm_ctrl 0)
	CNTLID=$(cat /sys/class/nvme/$C/cntlid)
	vm_log "subsystem $(cat /sys/class/nvme/$C/subsysnqn), controller $C (cntlid $CNTLID), head node $A"
	expect_eq "detach: $A is a multipath head's node" \
		"$(basename "$(readlink /sys/class/nvme-generic/${A#/dev/}/device)" | cut -c1-11)" nvme-subsys
	expect_ok "detach: server started on $A" start_srv "$A"
	ZS=$(($(cat /sys/block/ublkb0/queue/chunk_sectors) * 512))
	# ---- controller reset under fio verify: the head has no path meanwhile ---
	fio_verify reset 0 2
	expect_ok "detach: nvme reset of $C with fio's writes in flight" busy_reset $C
	wait $FIO
	expect_eq "detach: fio write + verify across a controller reset (no path for a while) passes" $? 0
	grep -E 'err=' /tmp/fio-reset.out | head -2 | sed 's/^/#   fio: /'
	expect_eq "detach: no I/O error after the reset" "$(ioerrs)" 0
	expect_eq "detach: the server lived through the reset" "$(kill -0 $SRV 2>/dev/null && echo alive)" alive
	vm_log "server: $(grep -c 'waiting for it' /tmp/srv.$N.err) request(s) waited for a path," \
		"$(grep -c 'sending it again' /tmp/srv.$N.err) sent again"

	# ---- the namespace detached under the server ----------------------------
	expect_ok "detach: zones reset" blkzone reset $UA
	# a known pattern in zone 0, then fio from zone 1 on
	head -c $((8 * 1048576)) /dev/urandom >/tmp/pat
	expect_ok "detach: 8 MiB pattern written to zone 0" \
		dd if=/tmp/pat of=$UA bs=1M oflag=direct status=none
	fio_verify gone $ZS 2
	vm_log "requests in flight at the detach: $(wait_inflight)"
	expect_ok "detach: nvme detach-ns of NSID 1 from $C" nvme detach-ns /dev/$C -n 1 -c $CNTLID
	i=0
	while kill -0 $SRV 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	wait $SRV
	rc=$?
	expect_eq "detach: the server exits with status 1 when its namespace is detached" $rc 1
	expect_eq "detach: the server's log says the namespace is gone" \
		"$(grep -q 'namespace is gone\|no path left' /tmp/srv.$N.err && echo yes)" yes
	expect_eq "detach: /dev/ublkb0 stays (quiesced, its users wait)" "$([ -b $UA ] && echo yes)" yes
	expect_eq "detach: fio is still running, waiting" "$(kill -0 $FIO 2>/dev/null && echo running)" running
	expect_eq "detach: no I/O error while detached" "$(ioerrs)" 0
	expect_ok "detach: nvme attach-ns of NSID 1 to $C" nvme attach-ns /dev/$C -n 1 -c $CNTLID
	A2=$(ng_back)
	expect_eq "detach: the namespace is back after attach-ns" "$([ -n "$A2" ] && echo yes)" yes
	vm_log "namespace back as $A2"
	expect_ok "detach: a new server (as systemd restarts it) takes the device back" start_srv "$A2"
	wait $FIO
	expect_eq "detach: fio write + verify across the detach passes" $? 0
	grep -E 'err=' /tmp/fio-gone.out | head -2 | sed 's/^/#   fio: /'
	expect_ok "detach: the pattern written before the detach reads back" \
		sh -c "dd if=$UA bs=1M count=8 iflag=direct status=none | cmp - /tmp/pat"
	expect_eq "detach: still no I/O error for the ublk device" "$(ioerrs)" 0
	kill -TERM $SRV
	wait $SRV
	expect_eq "detach: the server stops cleanly (device not held: removed)" "$?" 0
	expect_eq "detach: /dev/ublkb0 is gone after the stop" "$([ -e $UA ] && echo present)" ""
	srv_logs
fi

if [ -n "${MEMPRESS:-}" ]; then
	echo 20 >/proc/sys/kernel/hung_task_timeout_secs
	mem=$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
	expect_ok "mem: server started on $A" start_srv "$A"
	expect_ok "mem: mkfs.btrfs on the ublk device" mkfs.btrfs -q -f $UA
	mkdir -p /mnt/m
	expect_ok "mem: mounted" mount -t btrfs $UA /mnt/m
	head -c $((4 * 1048576)) /dev/urandom >/tmp/seed
	n=$((mem / 2))	# files of 4 MiB: twice the guest's memory in all
	vm_log "guest memory ${mem} MiB: writing $((n * 4)) MiB through btrfs"
	t0=$(cut -d. -f1 /proc/uptime)
	run_to 240 sh -c "i=0; while [ \$i -lt $n ]; do cat /tmp/seed >/mnt/m/f\$i || exit 1; i=\$((i + 1)); done; sync"
	rc=$?
	t1=$(cut -d. -f1 /proc/uptime)
	expect_eq "mem: $((n * 4)) MiB written and synced within the limit (no hang)" "$rc" 0
	vm_log "mem: $((t1 - t0)) s for $((n * 4)) MiB"
	expect_eq "mem: the hung-task detector stayed silent" "$(dmesg | grep -c 'blocked for more than')" 0
	expect_eq "mem: no I/O error" "$(ioerrs)" 0
	umount /mnt/m && mount -t btrfs $UA /mnt/m
	bad=0
	for i in 0 $((n / 2)) $((n - 1)); do cmp -s /tmp/seed /mnt/m/f$i || bad=$((bad + 1)); done
	expect_eq "mem: files verify after a remount" $bad 0
	umount /mnt/m
	kill -TERM $SRV
	wait $SRV
	expect_eq "mem: the server stops cleanly" "$?" 0
	srv_logs
fi

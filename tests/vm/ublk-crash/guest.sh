# The ublk server's death and restart under load, on Debian's stock kernel
# (busybox ash; sourced by /init after lib.sh). Layer 56-vm-ublk-crash.
#
# Namespaces (tests/layers.d/56-vm-ublk-crash.sh):
#   A ctrl 0 nsid 1: npo2 48M/48M, 16 zones: zoned btrfs
#   F ctrl 0 nsid 2: npo2 24M/24M, 48 zones: f2fs (zoned part)
#   D ctrl 0 nsid 3: conventional 64M: f2fs metadata and the start of its main area
#                   (mkfs.f2fs refuses 32M and 48M: the main area starts zone-aligned)
#   P ctrl 0 nsid 4: npo2 24M/24M, 16 zones: fio zbd verify; recovery binding
#   B ctrl 0 nsid 5: npo2 24M/24M, 16 zones, P's twin: recovery binding
#
# Scenarios: (1) the server SIGKILLed at random moments with requests in
# flight (crash.sh + rounds.sh), (2) SIGTERM + a new server under the same
# load (restart, rounds.sh), (3) double faults under btrfs: SIGKILL or
# SIGTERM, then the recovering server SIGKILLed 0-1.5 s into its start,
# (4) recovery binding (binding.sh). A new
# server is started the way systemd's unit does (map --ublk --foreground).
# Pass per round: no error line for the ublk device in dmesg, btrfs device
# stats zero, the file system read-write, the writers finish; per
# scenario: everything acknowledged verifies after a remount, scrub and
# fsck clean, fio's verify passes. A summary line per scenario gives the
# figures (rounds, requests in flight at the signal, errors, verify).

Z=nvme-zns-npo2
export DM_DISABLE_UDEV=1

# rounds per workload: crash (SIGKILL) and restart (SIGTERM)
CRASH_BTRFS=6 CRASH_F2FS=6 CRASH_FIO=6
TERM_BTRFS=3 TERM_F2FS=3 TERM_FIO=3
# double faults under btrfs: per round SIGKILL (odd) or SIGTERM (even) of
# the server, then SIGKILL of the server taking the device back
DOUBLE_BTRFS=5

A=$(vm_ng 0 1)
F=$(vm_ng 0 2)
D=$(vm_blk 0 3)
P=$(vm_ng 0 4)
B=$(vm_ng 0 5)
vm_summary

mkdir -p /var/log
syslogd -O /tmp/syslog 2>/dev/null || vm_log "no syslogd"

# small dirty limits: buffered writers start writeback within a round
echo 1048576 >/proc/sys/vm/dirty_background_bytes
echo 4194304 >/proc/sys/vm/dirty_bytes

# seeds: 1 MiB of random data each, their checksums
for i in 0 1 2 3; do
	dd if=/dev/urandom of=/tmp/seed$i bs=1M count=1 2>/dev/null
	sha256sum </tmp/seed$i | cut -d' ' -f1 >/tmp/seed$i.sum
done

# ---- helpers --------------------------------------------------------------------

# rnd N: a random number in [0, N)
rnd() { echo $(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % $1)); }
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# gone PID: exited (tests/vm/guest/lib.sh)
gone() { proc_gone "$1"; }
# wait_gone PID TENTHS: up to TENTHS x 0.1 s (guest uptime) for PID to exit
wait_gone() {
	local end=$(($(now_ms) + $2 * 100))
	while ! gone "$1" && [ "$(now_ms)" -lt $end ]; do sleep 0.1; done
	gone "$1"
}
# reap PID: its exit status once it has exited, 255 while it is still there
# (a process stuck in the kernel is never waited for)
reap() { gone "$1" || return 255; wait "$1"; }
health() {
	$Z status "$1" -o json >/tmp/st.json 2>/dev/null
	sed -n 's/.*"health": "\([a-z-]*\)".*/\1/p' /tmp/st.json | head -1
}
# errlines UBLKB: kernel lines reporting a failed request of the device
# ("I/O error, dev ublkbN, ...", "... error, dev ublkbN, ...")
errlines() { dmesg | grep -c "error, dev ${1#/dev/}," ; }
# inflight UBLKB: requests the block layer has in flight on the device
inflight() {
	local r w
	read -r r w </sys/block/${1#/dev/}/inflight
	echo $((r + w))
}
# mnt_rw DIR: the file system at DIR is mounted read-write
mnt_rw() { awk -v m="$1" '$2 == m { split($4, o, ","); print o[1] }' /proc/mounts | grep -qx rw; }
# fig_stats FILE: min/median/max of the numbers in FILE, one a line
fig_stats() {
	sort -n "$1" 2>/dev/null | awk '{ a[NR] = $1 } END {
		if (NR == 0) print "-"; else print a[1] "/" a[int((NR + 1) / 2)] "/" a[NR] }'
}

# srv_start NG LOGTAG: the server as systemd's unit starts it
# (map --ublk --foreground, stdout carries the device path); sets SRV_PID
# and SRV_DEV (empty if no device came within 40 s) and SRV_MS (start to
# device path, ms)
SRV_N=0
srv_start() {
	local t0
	SRV_N=$((SRV_N + 1))
	SRV_OUT=/tmp/srv-$2-$SRV_N.out SRV_ERR=/tmp/srv-$2-$SRV_N.err
	t0=$(now_ms)
	$Z map --ublk --foreground "$1" >"$SRV_OUT" 2>"$SRV_ERR" &
	SRV_PID=$!
	SRV_DEV=
	while [ "$(now_ms)" -lt $((t0 + 40000)) ]; do
		SRV_DEV=$(grep -m1 '^/dev/ublkb[0-9]*$' "$SRV_OUT")
		[ -n "$SRV_DEV" ] && break
		gone $SRV_PID && break
		sleep 0.1
	done
	SRV_MS=$(($(now_ms) - t0))
	[ -n "$SRV_DEV" ] && return 0
	vm_log "server for $1 gave no device (pid $SRV_PID, $(gone $SRV_PID && echo exited || echo running)):"
	sed 's/^/#   | /' "$SRV_ERR" | tail -5
	return 1
}

# srv_stop PID: SIGTERM, up to 30 s to exit, SIGKILL after that; reaps it
srv_stop() {
	kill -TERM "$1" 2>/dev/null
	wait_gone "$1" 300 || { vm_log "server $1 ignores SIGTERM: SIGKILL"; kill -KILL "$1"; wait_gone "$1" 100; }
	reap "$1"
}


# ns_vs_ublk NG UBLKB DESC: every zone's write pointer on the ublk device
# equals the namespace's own
ns_vs_ublk() {
	ns_wps "$1" 4096 >/tmp/ns.wp
	zone_rows "$2" | awk '{ if ($5 == 14) print $3; else print $4 }' >/tmp/ublk.wp
	expect_same "$3: every zone's write pointer on $2 matches the namespace's own report" \
		/tmp/ns.wp /tmp/ublk.wp
	cmp -s /tmp/ns.wp /tmp/ublk.wp || paste /tmp/ns.wp /tmp/ublk.wp | sed 's/^/#   ns ublk: /' | head -20
}

# summary lines, printed together at the end
: >/tmp/summary
summary() { printf '# SUMMARY %-14s %9s %11s %11s %9s %9s %7s  %s\n' "$@" >>/tmp/summary; }
summary scenario rounds in-flight held io-errors fs-errors writers verify
summary "" "" min/med/max min/med/max "" "" failed ""

. /vm/guest/rounds.sh
. /vm/guest/crash.sh
. /vm/guest/binding.sh

echo "# ---- summary. rounds: signalled with requests in flight / planned; in-flight: requests the"
echo "# block layer had in flight on the device when the signal was sent; held: still in flight just"
echo "# after it (left by the dead or parked server); io-errors: dmesg error lines for the device;"
echo "# fs-errors: btrfs device stats + BTRFS error lines, F2FS error lines, read-only; writers"
echo "# failed: writer processes (or fio runs) that failed, summed over the rounds; verify: at the end ----"
cat /tmp/summary
section dmesg-ublk-errors sh -c 'dmesg | grep -E "error, dev ublkb|BTRFS (error|warning|critical)|F2FS-fs.*(rror|fail|Stop)" | head -60'
true

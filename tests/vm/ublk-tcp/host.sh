# Layer 47, host VM: Debian's stock 6.12 (nvme-tcp, virtio_net, btrfs)
# connected over NVMe/TCP to the storage node's export of its `map --ublk`
# mapping (node.sh). Expected values come from common.sh: the geometry the
# layer gives QEMU on the node, and the limits derived from it.
#
# The zone append limit: the remote controller advertises ZASL 4 (65536
# bytes) and the path disk (nvmeXcYnZ) takes it, but stock 6.12's
# multipath head disk (nvmeXnY, the one users get) never stacks it on the
# namespace's first scan: multipath.c allocates the head with
# max_zone_append_sectors 0 and blk_stack_limits() keeps min(0, ...) = 0,
# which then reads as min(chunk_sectors, max_hw_sectors): a whole zone over
# TCP (no MDTS). btrfs sizes its Zone Appends by the head's limit; the
# path disk fails every larger one in blk_check_zone_append() (no request,
# so no "I/O error" line): the issue's "errs: wr". A second scan stacks it
# (the head's zone size is known by then): `nvme ns-rescan` before use.
. /vm/guest/common.sh

expect_ok "host: eth0 up with $HOST_IP" net_up "$HOST_IP"
i=0
until ping -c 1 -W 1 "$NODE_IP" >/dev/null 2>&1 || [ $i -ge 90 ]; do i=$((i + 1)); done
i=0 rc=1
while [ $i -lt 120 ]; do
	nvme connect -t tcp -a "$NODE_IP" -s "$NVME_PORT" -n "$NQN" --ctrl-loss-tmo=600 \
		--reconnect-delay=2 \
		--hostnqn="$HOSTNQN" --hostid="$HOSTID" >/tmp/connect.out 2>&1 && { rc=0; break; }
	sleep 1
	i=$((i + 1))
done
expect_eq "host: nvme connect -t tcp to $NODE_IP:$NVME_PORT" "$rc" 0
[ $rc -eq 0 ] || tap_diag_file /tmp/connect.out 10
vm_log "host: connected after $i retries"
ctrl=
for c in /sys/class/nvme/nvme*; do
	[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && ctrl=${c##*/}
done
expect_eq "host: controller transport" "$(cat /sys/class/nvme/"$ctrl"/transport 2>&1)" tcp
H=$(nvmet_disk "$NQN" 1)
D=/dev/$H
p=$(ls -d /sys/class/nvme/"$ctrl"/nvme*c*n1 2>/dev/null | head -1)
PATHD=${p##*/}
vm_log "host: head disk $H, path disk $PATHD"
q() { cat "/sys/block/$1/queue/$2" 2>/dev/null; }

# ---- geometry: what the node's QEMU was configured with, in po2 zones
# (nvme-cli's and util-linux's own view, for the log)
nvme list 2>&1 | sed 's/^/# host: nvme list: /'
blkzone report "$D" 2>&1 | sed -n '1,3p;$p' | sed 's/^/# host: blkzone report: /'
expect_eq "host: $H host-managed, po2 zone, zone count, size" \
	"$(q $H zoned) $(q $H chunk_sectors) $(q $H nr_zones) $(cat /sys/block/$H/size)" \
	"host-managed $PO2 $NS_NZ $((NS_NZ * PO2))"
zone_rows "$D" >/tmp/zr
want=$(i=0; while [ $i -lt $NS_NZ ]; do echo "$((i * PO2)) $PO2 $CAP"; i=$((i + 1)); done)
expect_eq "host: blkzone report: $NS_NZ zones of $PO2 sectors, capacity $CAP" \
	"$(awk '{ print $1, $2, $3 }' /tmp/zr)" "$want"

# ---- the zone append limit (see the head of this file)
zasl=$(nvme zns id-ctrl /dev/"$ctrl" 2>/dev/null | sed -n 's/^zasl *: *//p')
expect_eq "host: the node's ZASL = ilog2(31 pages) = $ZASL" "$zasl" "$ZASL"
expect_eq "host: path disk $PATHD takes appends of 2^ZASL pages" \
	"$(q $PATHD zone_append_max_bytes)" "$REMOTE_APPEND"
head1=$(q $H zone_append_max_bytes)
vm_log "host: first scan: head $H zone_append_max_bytes $head1, path $PATHD $(q $PATHD zone_append_max_bytes), max_hw_sectors_kb $(q $H max_hw_sectors_kb)"
expect_eq "host: stock 6.12's first scan leaves the head at min(zone, max_hw) (the issue's mismatch)" \
	"$head1" "$((PO2 * 512))"
n0=$(dmesg | wc -l)
expect_ok "host: nvme ns-rescan /dev/$ctrl" nvme ns-rescan /dev/"$ctrl"
i=0
until [ "$(q $H zone_append_max_bytes)" = "$REMOTE_APPEND" ] || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "host: after the rescan head $H and path agree: $REMOTE_APPEND" \
	"$(q $H zone_append_max_bytes) $(q $PATHD zone_append_max_bytes)" "$REMOTE_APPEND $REMOTE_APPEND"

# ---- fio zbd write + verify on zones 8 and 9
expect_ok "host: fio zbd write+verify, 2 zones" run_to 300 fio --name=zbd --filename="$D" \
	--direct=1 --ioengine=io_uring --iodepth=4 --zonemode=zbd --rw=write --bs=128k \
	--offset=$((8 * PO2 * 512)) --size=$((2 * PO2 * 512)) --max_open_zones=2 \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --output=/tmp/fio.out
grep -E 'err=|WRITE:|READ:' /tmp/fio.out | sed 's/^/#   /'
zone_rows "$D" >/tmp/zr
expect_eq "host: fio filled zones 8 and 9 (full: condition 14)" \
	"$(sed -n '9,10p' /tmp/zr | awk '{ print $5 }' | tr '\n' ' ')" "14 14 "
expect_ok "host: reset every zone" blkzone reset "$D"

# ---- btrfs zoned: files written with fsync, the node's server killed
# under a writer, then stopped with SIGTERM (systemctl stop/restart) under
# another: the node parks it (the export is an in-kernel user) and a new
# server takes the device back; remount, verify, scrub
i=0
while [ $i -lt 4 ]; do
	dd if=/dev/urandom of=/tmp/seed$i bs=1M count=$((3 + i)) 2>/dev/null
	i=$((i + 1))
done
expect_ok "host: mkfs.btrfs on $H" run_to 120 mkfs.btrfs -f -d single -m single "$D"
mkdir -p /mnt/z
expect_ok "host: mount" mount -t btrfs "$D" /mnt/z
# writer N COUNT: files wN-0.. from the seeds, each fsync'ed; the list of
# those whose fsync returned goes to /tmp/acked (name, seed, uptime at the
# acknowledgement)
writer() {
	local k=0
	while [ $k -lt "$2" ]; do
		if dd if=/tmp/seed$((k % 4)) of=/mnt/z/w$1-$k bs=1M conv=fsync 2>/dev/null; then
			echo "w$1-$k $((k % 4)) $(cut -d' ' -f1 /proc/uptime)" >>/tmp/acked
		else
			echo "w$1-$k" >>/tmp/failed
		fi
		k=$((k + 1))
	done
}
: >/tmp/acked
: >/tmp/failed
w0=$(cut -d' ' -f1 /proc/uptime)
writer 0 8
expect_eq "host: 8 files written and fsync'ed before any fault" "$(wc -l </tmp/acked)" 8
writer 1 16 &
W=$!
sleep 2
n0=$(dmesg | wc -l)
expect_ok "host: ask the node to SIGKILL its server" ctl_send kill
st=$(proc_gone $W && echo done || echo writing)
vm_log "host: the node killed its server with $(wc -l </tmp/acked) of 24 files acknowledged"
expect_eq "host: the writer was writing when the node killed its server" "$st" writing
wait $W
expect_eq "host: every write of the writer across the kill was acknowledged" \
	"$(wc -l </tmp/acked) $(wc -l </tmp/failed)" "24 0"
dmesg | tail -n +$((n0 + 1)) | grep -E 'nvme|I/O|BTRFS' | sed 's/^/# host dmesg: /'
# the SIGTERM (what systemctl stop and restart send) under another writer:
# the node's server parks, a new one takes the device back, nothing fails
writer 2 12 &
W=$!
w2=$(cut -d' ' -f1 /proc/uptime)
sleep 2
n0=$(dmesg | wc -l)
t0=$(cut -d' ' -f1 /proc/uptime)
expect_ok "host: ask the node to SIGTERM its server (systemctl stop/restart)" ctl_send term
st=$(proc_gone $W && echo done || echo writing)
vm_log "host: the node stopped its server with $(wc -l </tmp/acked) of 36 files acknowledged"
expect_eq "host: the writer was writing when the node stopped its server" "$st" writing
wait $W
expect_eq "host: every write of the writer across the SIGTERM and restart was acknowledged" \
	"$(wc -l </tmp/acked) $(wc -l </tmp/failed)" "36 0"
# the pause: no fsync returns while the node's server is gone (3 s of
# sleep, then the restart), so the file written across it takes at least
# 3 s more than writer 0's fastest file took without a fault: the longest
# time between two of writer 2's acknowledgements from the SIGTERM on
# (the file that ended after it being timed from the last one before; in
# tenths of a second)
fast=$(awk -v t="$w0" '$1 ~ /^w0-/ { d = $3 - t; if (m == "" || d < m) m = d; t = $3 }
	END { printf "%d", m * 10 }' /tmp/acked)
span=$(awk -v p="$w2" -v t0="$t0" '$1 ~ /^w2-/ {
		if ($3 < t0) p = $3; else { if ($3 - p > d) d = $3 - p; p = $3 } }
	END { printf "%d", d * 10 }' /tmp/acked)
vm_log "host: the longest file after the SIGTERM took $span/10 s, writer 0's fastest $fast/10 s"
grep '^w2-' /tmp/acked | tr '\n' ' ' | sed "s/^/# host: writer 2 acknowledgements (SIGTERM at $t0): /"
echo
expect_eq "host: the writer paused across the stall (>= 3 s more than its fastest file)" \
	"$([ "$span" -ge $((fast + 30)) ] && echo paused || echo "no pause: $span vs $fast")" paused
dmesg | tail -n +$((n0 + 1)) | grep -E 'nvme|I/O|BTRFS' | sed 's/^/# host dmesg: /'
# the export restarted (systemctl restart of zns-npo2-export@: its
# ExecStop's `export --remove`, its ExecStart's export from the recorded
# file), then the node rebooted the way systemd does it (the export unit
# stops first: the same `export --remove`; then reboot -f), each with the
# file system mounted and idle while a reader reads the namespace: the
# node's `export --remove` turns the namespace's own ANA group inaccessible
# and waits for the device's requests in flight, so the host holds its new
# commands (multipath: "no usable path - requeuing I/O") and has none left
# unanswered when it loses the controller; it reconnects (ctrl_loss_tmo
# 600 s outlasts the reboot), must find the namespace with the
# identifiers it had (or it removes the disk under the mount: "identifiers
# changed"), and sends what it held: the reader sees a pause, no error.
# Idle, because no stock host keeps zoned writes across a loss of its only
# path (seen here with fio zbd writing across the export's restart): 6.12
# hung (percpu_ref underflow, then hung tasks), 7.3 failed the writes
# with EIO (the zone write plug refuses a failed-over write), and both
# answer a zone report without a usable path with an error
# (nvme_ns_head_report_zones()), which btrfs sends for each new block group.
ids() { echo "$(cat /sys/block/$H/uuid 2>&1) $(cat /sys/block/$H/nguid 2>&1) $(cat /sys/block/$H/wwid 2>&1)"; }
# reader: O_DIRECT reads of the namespace's first 64 MiB until
# /tmp/reader-stop exists; one line per read in /tmp/reads (ok or err)
reader() {
	local n=0
	: >/tmp/reads
	while [ ! -e /tmp/reader-stop ]; do
		if dd if="$D" of=/dev/null bs=1M count=1 skip=$((n % 64)) iflag=direct 2>/dev/null; then
			echo ok >>/tmp/reads
		else
			echo err >>/tmp/reads
		fi
		n=$((n + 1))
	done
}
# across MSG WHAT LIMIT: the node asked MSG while the reader reads; wait up
# to LIMIT tenths of a second for the host to reconnect; the host held the
# reader's commands, reconnected to the same disk, no read failed
across() {
	local n0 t0 i r0
	sync
	rm -f /tmp/reader-stop
	reader &
	R=$!
	sleep 1
	n0=$(dmesg | wc -l)
	t0=$(cut -d' ' -f1 /proc/uptime)
	r0=$(grep -c ok /tmp/reads)
	expect_ok "host: ask the node to $2 while a reader reads" ctl_send "$1"
	i=0
	until dmesg | tail -n +$((n0 + 1)) | grep -q "Successfully reconnected" || [ $i -ge "$3" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1
	touch /tmp/reader-stop
	wait $R
	vm_log "host: $1: reconnected $t0 -> $(cut -d' ' -f1 /proc/uptime); reads: $r0 before, $(grep -c ok /tmp/reads) ok, $(grep -c err /tmp/reads) failed"
	dmesg | tail -n +$((n0 + 1)) | grep -E 'nvme|I/O|BTRFS' | sed 's/^/# host dmesg: /'
	expect_match "host: $1: the host held the reader's commands (no usable path), then reconnected" \
		"no usable path - requeuing I/O.*Successfully reconnected" \
		"$(dmesg | tail -n +$((n0 + 1)) | tr '\n' ' ')"
	expect_eq "host: $1: no read failed, and reads went on after the reconnection" \
		"$(grep -c err /tmp/reads) $([ "$(grep -c ok /tmp/reads)" -gt "$r0" ] && echo more)" "0 more"
	expect_eq "host: $1: $H still there, with the same identifiers" "$(ids)" "$ids0"
	expect_eq "host: $1: ... no identifier change, I/O error or btrfs error in the kernel log" \
		"$(dmesg | tail -n +$((n0 + 1)) | grep -ciE 'identifiers changed|I/O error|BTRFS (error|critical)')" 0
}
ids0=$(ids)
vm_log "host: $H identifiers before: $ids0"
nre0=$(dmesg | wc -l)
across reexport "restart its export (systemctl restart zns-npo2-export@)" 600
writer 3 12
expect_eq "host: every write after the export's restart was acknowledged" \
	"$(wc -l </tmp/acked) $(wc -l </tmp/failed)" "48 0"
across reboot "reboot (the export unit stopped first)" 3000
writer 4 8
expect_eq "host: every write after the node's reboot was acknowledged" \
	"$(wc -l </tmp/acked) $(wc -l </tmp/failed)" "56 0"
nre1=$(dmesg | wc -l)
expect_ok "host: umount" umount /mnt/z
expect_ok "host: mount again" mount -t btrfs "$D" /mnt/z
bad=0
while read -r f s _; do
	cmp -s /mnt/z/"$f" /tmp/seed"$s" || { bad=$((bad + 1)); vm_log "host: $f differs"; }
done </tmp/acked
expect_eq "host: every acknowledged file verifies after the remount" "$bad" 0
expect_ok "host: btrfs scrub" run_to 120 btrfs scrub start -B /mnt/z
btrfs device stats /mnt/z >/tmp/stats 2>&1
expect_eq "host: btrfs device stats all zero" "$(awk '$2 != 0' /tmp/stats | wc -l)" 0
[ "$(awk '$2 != 0' /tmp/stats | wc -l)" = 0 ] || tap_diag_file /tmp/stats 10
expect_ok "host: umount" umount /mnt/z

# ---- a pattern at zone 3 that the node reads back from its namespace
mk_pattern /tmp/pat.bin
expect_ok "host: reset zone 3" blkzone reset -o $((3 * PO2)) -c 1 "$D"
expect_ok "host: write the pattern at zone 3" wr "$D" $((3 * PO2)) /tmp/pat.bin
# the export's restart and the node's reboot (lines nre0..nre1) are expected losses of the
# controller, checked above
expect_eq "host: no I/O error, no nvme error (but the export's restart and the node's reboot)" \
	"$(dmesg | sed "$((nre0 + 1)),${nre1}d" | grep -ciE 'I/O error|nvme.*(error|timeout|reset)')" 0
expect_ok "host: nvme disconnect" nvme disconnect -n "$NQN"
expect_ok "host: tell the node to finish" ctl_send done
true

# SPDX-License-Identifier: GPL-2.0-or-later
# bench/tcp-bench.sh, host VM (Debian's stock 6.12: nvme-tcp, virtio_net):
# connects to the storage node's export (tcp-node-guest.sh) as a stock
# host does, and runs the node's workloads on the remote namespace, after
# the node's local round "a" and before its round "b". Results:
# "tcpb remote WORKLOAD a IOPS KIB_S MS" between ### BEGIN/END tcp-bench.
. /vm/guest/tcp-common.sh
RUNTIME=$(sed -n 's/.*TB_RUNTIME=\([0-9]*\).*/\1/p' /proc/cmdline)
RUNTIME=${RUNTIME:-10}
. /vm/guest/tcp-fio-guest.sh

expect_ok "host: eth0 up with $HOST_IP" net_up "$HOST_IP"
# the node runs its local round before it exports: retry for up to 10 min
i=0 rc=1
while [ $i -lt 600 ]; do
	nvme connect -t tcp -a "$NODE_IP" -s "$NVME_PORT" -n "$NQN" --hostnqn="$HOSTNQN" \
		--hostid="$HOSTID" >/tmp/connect.out 2>&1 && { rc=0; break; }
	sleep 1
	i=$((i + 1))
done
expect_eq "host: nvme connect -t tcp to $NODE_IP:$NVME_PORT" "$rc" 0
[ $rc -eq 0 ] || tap_diag_file /tmp/connect.out 10
H=$(nvmet_disk "$NQN" 1)
# stock 6.12 stacks the zone append limit of the head disk on a second scan
for c in /sys/class/nvme/nvme*; do
	[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && nvme ns-rescan "/dev/${c##*/}"
done
sleep 1
expect_eq "host: /dev/$H: $NS_NZ zones of $PO2 sectors over TCP" \
	"$(cat /sys/block/$H/queue/chunk_sectors) $(cat /sys/block/$H/queue/nr_zones)" "$PO2 $NS_NZ"
# the wire alone, what every remote figure runs over, measured while the
# node waits for this round (its local round a is over): round-trip time
# and one TCP stream of 32 MiB to the node's sink (busybox ping and nc)
rtt=$(ping -c 20 -i 0.2 "$NODE_IP" 2>/dev/null | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
t0=$(cut -d' ' -f1 /proc/uptime)
dd if=/dev/zero bs=1048576 count=32 2>/dev/null | nc "$NODE_IP" $((CTL_PORT + 1))
t1=$(cut -d' ' -f1 /proc/uptime)
wire=$(awk -v a="$t0" -v b="$t1" 'BEGIN { if (b > a) printf "%.1f", 32 / (b - a) }')
expect_match "host: the wire: ping RTT and a 32 MiB TCP stream measured" \
	"^[0-9.]+ [0-9.]+$" "$rtt $wire"
echo "tcpb wire rtt-ms a ${rtt:-0} 0 0" >>/tmp/tcpb.res
echo "tcpb wire stream-MiB/s a ${wire:-0} 0 0" >>/tmp/tcpb.res
tb_round "/dev/$H" remote a
expect_ok "host: told the node" ctl_send done
expect_eq "host: no I/O error in the kernel log" "$(dmesg | grep -ci 'I/O error')" 0
nvme disconnect -n "$NQN" >/dev/null 2>&1
tb_results

# SPDX-License-Identifier: GPL-2.0-or-later
# bench/tcp-bench.sh, storage node VM (Debian's stock 6.12: ublk_drv, nvmet,
# nvmet-tcp, virtio_net): serves its npo2 namespace with `map --ublk`, runs
# the workloads on the local ublk device (round "a"), exports the mapping
# over NVMe/TCP, waits until the host has run the same workloads over the
# wire, then runs them locally again (round "b"). Geometry, addresses and
# the control channel: tests/vm/ublk-tcp/common.sh (packed as
# tcp-common.sh). Results: "tcpb local WORKLOAD ROUND IOPS KIB_S MS"
# between ### BEGIN/END tcp-bench.
. /vm/guest/tcp-common.sh
Z=nvme-zns-npo2
RUNTIME=$(sed -n 's/.*TB_RUNTIME=\([0-9]*\).*/\1/p' /proc/cmdline)
RUNTIME=${RUNTIME:-10}
. /vm/guest/tcp-fio-guest.sh

expect_ok "node: eth0 up with $NODE_IP" net_up "$NODE_IP"
# the wire itself: the host sends 32 MiB to this sink first (tcp-host-guest.sh)
nc -l -p $((CTL_PORT + 1)) >/dev/null 2>&1 &
NG=$(vm_ng 0 1)
expect_ok "node: map --ublk $NG --name $MAPNAME" run_to 90 $Z map --ublk "$NG" --name $MAPNAME -o json
U=/dev/ublkb$(jget ublk_dev_id /tmp/vm-cmd.out)
expect_eq "node: $U: $NS_NZ zones of $PO2 sectors" \
	"$(cat /sys/block/${U#/dev/}/queue/chunk_sectors) $(cat /sys/block/${U#/dev/}/queue/nr_zones)" \
	"$PO2 $NS_NZ"
tb_fill "$U" local
tb_round "$U" local a
expect_ok "node: export $MAPNAME over TCP" $Z export $MAPNAME --nqn "$NQN" --traddr "$NODE_IP" \
	--trsvcid "$NVME_PORT" --hostnqn "$HOSTNQN"
vm_log "node: exported $U, waiting for the host's round"
msg=$(ctl_recv 900)
expect_eq "node: the host ran its round" "$msg" done
tb_round "$U" local b
expect_ok "node: export --remove" $Z export $MAPNAME --remove
expect_ok "node: unmap" run_to 60 $Z unmap $MAPNAME
tb_results

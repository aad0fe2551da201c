# Shared by the two guests of layer 47 (busybox ash, sourced after
# tests/vm/guest/lib.sh): addresses, the control channel, and what both
# sides assert against: the geometry the layer gives QEMU for the node's
# npo2 namespace, and the zone append limit the kernels derive from it.
# Sizes in bytes unless named otherwise, sectors of 512 bytes.

[ -n "${UT_COMMON_LOADED:-}" ] && return 0
UT_COMMON_LOADED=1

NODE_IP=10.0.2.1
HOST_IP=10.0.2.2
NVME_PORT=4420
CTL_PORT=7000
NQN=nqn.2026-12.org.zns-npo2:zexp
HOSTNQN=nqn.2026-12.org.zns-npo2:stock-host
HOSTID=3f1c7a52-8e0b-4d6a-9c21-5b7e0d4a6f93
MIB=1048576
MAPNAME=zexp

# the node's namespace (tests/layers.d/47-vm-ublk-nvmet-tcp.sh passes the
# same numbers to QEMU): npo2 zones of 48 MiB, 16 of them
NS_ZSZE=$((48 * MIB))
NS_SIZE=$((768 * MIB))
NS_NZ=$((NS_SIZE / NS_ZSZE))
PO2=$(( 64 * MIB / 512 ))		# po2 zone of the mapping, sectors
CAP=$((NS_ZSZE / 512))			# zone capacity, sectors

# The zone append limit, derived from kernel constants, not from the tool:
# stock 6.12 hides the npo2 namespace's block device, whose passthrough
# queue keeps max_hw_sectors 255 (130560 bytes); the server's commands are
# whole 4 KiB pages: 31 pages = 126976 bytes = the ublk device's limit.
# nvmet's ZASL is ilog2(limit in 4 KiB pages) = ilog2(31) = 4, so the
# remote controller takes appends of 2^4 pages = 65536 bytes.
UBLK_APPEND=$((255 * 512 / 4096 * 4096))
ZASL=4
REMOTE_APPEND=$(( (1 << ZASL) * 4096 ))

# net_up ADDR: eth0 (virtio-net) up with ADDR/24, within 10 s of boot
net_up() {
	local i=0
	while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	ip link set eth0 up && ip addr add "$1/24" dev eth0
}

# ctl_send MSG: one line to the node's control listener (retried for up
# to 60 s: the listener is between two messages or not up yet)
ctl_send() {
	local i=0
	while [ $i -lt 120 ]; do
		echo "$1" | timeout 5 nc "$NODE_IP" "$CTL_PORT" 2>/dev/null && return 0
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}

# ctl_recv SEC: the next line sent to the control port, within SEC seconds
ctl_recv() {
	timeout "$1" nc -l -p "$CTL_PORT" 2>/dev/null | head -1
}

# mk_pattern FILE: the 64 KiB pattern the host writes at zone 3 and the
# node reads back from its namespace
mk_pattern() {
	local i=0
	while [ $i -lt 16 ]; do
		echo "zns-npo2 layer 47 pattern block $i of the host"
		i=$((i + 1))
	done >/tmp/pat.txt
	dd if=/dev/zero bs=65536 count=1 2>/dev/null | tr '\000' 'p' >"$1"
	dd if=/tmp/pat.txt of="$1" conv=notrunc 2>/dev/null
}

# Shared by the two guests of layer 71 (busybox ash, sourced after
# tests/vm/guest/lib.sh): the addresses, the control channel and the
# geometry the target configures its null_blk devices with, which is what
# both sides assert against. Sizes in MiB, sectors of 512 bytes.

[ -n "${TCP_COMMON_LOADED:-}" ] && return 0
TCP_COMMON_LOADED=1

TGT_IP=10.0.2.1
HOST_IP=10.0.2.2
NVME_PORT=4420
CTL_PORT=7000
NQN=nqn.2026-12.org.zns-npo2:tcp
HOSTNQN=nqn.2026-12.org.zns-npo2:stock-host
HOSTID=6a3b2f4e-5d1c-4e8a-9b7f-0c2d4e6f8a10
MB=2048

# nsid zone_size_mib size_mib: 1 po2, a multiple of the zone size (the
# control); 2 po2 with a smaller last zone (6 x 32 MiB + 8 MiB); 3 npo2
NS1_ZS=32 NS1_SIZE=256
NS2_ZS=32 NS2_SIZE=200
NS3_ZS=96 NS3_SIZE=384

# the pattern the stock host writes to namespace 1 and the target reads
# back from the backing device: SEED at zone 2, BYTES long
PAT_SECTOR=$((2 * NS1_ZS * MB)) PAT_BYTES=1048576 PAT_SEED=71

# net_up ADDR: eth0 (virtio-net) up with ADDR/24, within 10 s of boot
net_up() {
	local i=0
	while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	ip link set eth0 up && ip addr add "$1/24" dev eth0
}

# ctl_send MSG: one line to the target's control listener (retried for
# up to 60 s: the listener is between two messages or not up yet)
ctl_send() {
	local i=0
	while [ $i -lt 120 ]; do
		echo "$1" | timeout 5 nc "$TGT_IP" "$CTL_PORT" 2>/dev/null && return 0
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}

# ctl_recv SEC: the next line sent to the control port, within SEC seconds
ctl_recv() {
	timeout "$1" nc -l -p "$CTL_PORT" 2>/dev/null | head -1
}

# log_since N PATTERN: dmesg lines after the first N that match PATTERN
log_since() {
	dmesg | tail -n +$(($1 + 1)) | grep -E "$2"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 71: a stock 6.12 NVMe host against the patched NVMe target, two
# QEMU VMs at once on a QEMU socket network (review finding N3 of v2):
#   target  build/kernel/bzImage: zoned null_blk devices exported over
#           NVMe/TCP (tests/vm/nvmet-tcp/target.sh): po2, po2 with a
#           smaller last zone (refused: ZNS has none), npo2
#   host    Debian's stock 6.12 with nvme-tcp and virtio_net
#           (tests/vm/nvmet-tcp/host.sh): uses the po2 namespace, does not
#           see the smaller last zone, hides the npo2 block device and
#           reports its zones through the ng node, while the target itself,
#           as a patched host over nvme-loop, uses the npo2 namespace.
# The guests sequence the two phases over a control port (busybox nc).
# Each run is judged by tests/vm/vm-run.sh (failed checks, BUG:/WARNING:/
# Oops/panic in its console log). Needs build/kernel/bzImage (make kernel).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/layer.sh

L=71-vm-nvmet-tcp
layer_patched_kernel $L || exit 1
out=build/vm-nvmet-tcp
mkdir -p "$out" build/vm-logs
gcc -static -O2 -Wall -Wextra -Werror -o "$out/zonectl" tests/vm/patched/helpers/zonectl.c || exit 1
adds=(--add "$out/zonectl" --add tests/vm/patched/zlib.sh:/vm/guest/zlib.sh)
tlog=build/vm-logs/nvmet-tcp-target.log hlog=build/vm-logs/nvmet-tcp-host.log
rm -f "$tlog" "$hlog"

# a free port for the socket network, found now (the target's QEMU listens)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	exit 1
# listening: a socket in state LISTEN (0A) on 127.0.0.1:port
listening() { grep -qE "^ *[0-9]+: 0100007F:$(printf %04X "$port") 00000000:0000 0A " /proc/net/tcp; }

start=$SECONDS
tests/vm/vm-run.sh --kernel "$img" --guest tests/vm/nvmet-tcp/target.sh --quiet --mem 1G \
	--timeout 240 --net "listen=127.0.0.1:$port" "${adds[@]}" --log "$tlog" &
tpid=$!
# the host's QEMU connects at start, so wait for the listening socket (a
# probe connection would be taken as the peer)
i=0
until listening || ! kill -0 $tpid 2>/dev/null || [ $i -ge 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
hrc=1
if listening; then
	tests/vm/vm-run.sh --kernel stock --modules "nvme-tcp virtio_net" \
		--guest tests/vm/nvmet-tcp/host.sh --quiet --mem 1G --timeout 240 \
		--net "connect=127.0.0.1:$port" "${adds[@]}" --log "$hlog"
	hrc=$?
else
	echo "$L: the target's QEMU does not listen on port $port" >&2
	kill $tpid 2>/dev/null
fi
wait $tpid
trc=$?

fail=0
layer_report "$L (target)" "$tlog" $trc $start || fail=1
layer_report "$L (stock host)" "$hlog" $hrc $start || fail=1
echo "$L: $(layer_totals "$tlog" "$hlog")"
exit $fail

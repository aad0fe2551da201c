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

start=$SECONDS
target=(--kernel "$img" --guest tests/vm/nvmet-tcp/target.sh --quiet --mem 1G --timeout 240
	"${adds[@]}" --log "$tlog")
host=(--kernel stock --modules "nvme-tcp virtio_net" --guest tests/vm/nvmet-tcp/host.sh --quiet
	--mem 1G --timeout 240 "${adds[@]}" --log "$hlog")
layer_pair target host
trc=$pair_lrc hrc=$pair_crc

fail=0
layer_report "$L (target)" "$tlog" $trc $start || fail=1
layer_report "$L (stock host)" "$hlog" $hrc $start || fail=1
echo "$L: $(layer_totals "$tlog" "$hlog")"
exit $fail

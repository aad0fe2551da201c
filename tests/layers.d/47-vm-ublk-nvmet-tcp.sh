#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 47: a `map --ublk` mapping exported over NVMe/TCP by the kernel's
# own target, two VMs on Debian's stock 6.12 on a QEMU socket network:
#   node  the npo2 namespace (48 MiB zones) served as a ublk device and
#         exported through nvmet-tcp with --persist (the export unit's
#         file checked, and the export made again from it)
#         (tests/vm/ublk-tcp/node.sh); its
#         server SIGKILLed, then sent SIGTERM (it parks: the export is an
#         in-kernel user) and restarted when the host asks; unmap refused
#         while exported; the export restarted (its unit's stop and start)
#         with the namespace's identifiers kept; a reboot (reboot -f), after
#         which the next boot maps and exports again from what its own
#         disk (ctrl 1) kept
#   host  nvme connect -t tcp, the zone append limit of the head disk
#         (stock 6.12 stacks it only from the second scan: a rescan),
#         blkzone report against the configured geometry, fio zbd
#         write+verify, btrfs with fsync'ed files across the server's kill
#         and across its SIGTERM and restart (a pause, no error), remount,
#         verify, scrub, no I/O error; across the export's restart and the
#         node's reboot (ctrl_loss_tmo 600 s; btrfs mounted and idle, a
#         reader reading: the node's drained `export --remove` makes the
#         host hold its commands): no read fails, the same disk with the
#         same UUID/NGUID, writes on, no I/O error
#         (tests/vm/ublk-tcp/host.sh)
# The node is a busybox initramfs, not systemd: the SIGTERM is the one
# `systemctl stop` sends, the restart the plain `map --ublk` the unit runs
# (layer 90 runs the units themselves). The node boots 6.12 only: on 7.x
# the server's own look finds the export in configfs before it would ask
# the driver's TRY_STOP_DEV, so it parks with the same line (layer 52
# checks that park under an nvmet export on 7.x), and a second pair of
# boots would add 3-5 min to the layer.
# The guests sequence the fault over a control port (busybox nc).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/layer.sh

L=47-vm-ublk-nvmet-tcp
[ -x build/nvme-zns-npo2 ] || { echo "$L: nvme-zns-npo2 not built: run make" >&2; exit 1; }
mkdir -p build/vm-logs
# the host's mkfs.btrfs and btrfs (both guests get the files of tests/vm/ublk-tcp/)
adds=()
layer_btrfs_tools $L
nlog=build/vm-logs/ublk-tcp-node.log hlog=build/vm-logs/ublk-tcp-host.log
rm -f "$nlog" "$hlog"

start=$SECONDS
node=(--kernel stock --guest tests/vm/ublk-tcp/node.sh --quiet --mem 1G
	--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=48M,zcap=48M
	--ns ctrl=1,nsid=1,size=4M,lbas=4096 --reboots 1
	--modules "ublk_drv nvmet nvmet-tcp virtio_net" --append no_timer_check
	--timeout 900 --log "$nlog")
host=(--kernel stock --guest tests/vm/ublk-tcp/host.sh --quiet --mem 1G
	--modules "nvme-tcp virtio_net crc32c_generic? crc32_generic? btrfs"
	--append no_timer_check --timeout 900 "${adds[@]}" --log "$hlog")
layer_pair node host
nrc=$pair_lrc hrc=$pair_crc

fail=0
layer_report "$L (node)" "$nlog" $nrc $start || fail=1
layer_report "$L (host)" "$hlog" $hrc $start || fail=1
echo "$L: $(layer_totals "$nlog" "$hlog")"
exit $fail

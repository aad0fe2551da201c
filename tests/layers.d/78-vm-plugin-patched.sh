#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 78: the nvme-cli plugin in QEMU on the patched kernel (npo2 block
# devices, dm-po2zone): the guest of layer 58 (tests/vm/plugin/guest.sh)
# again, where the npo2 namespaces have block devices and `map` works, so
# map/status/unmap are compared on a real mapping too.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "78-vm-plugin-patched: build/nvme-zns-npo2 missing: run make" >&2; exit 1; }
layer_patched_kernel 78-vm-plugin-patched || { echo "78-vm-plugin-patched: no patched kernel" >&2; exit 1; }
bash scripts/build-nvme-cli.sh || { echo "78-vm-plugin-patched: building nvme-cli failed" >&2; exit 1; }

mkdir -p build/vm-logs
log=build/vm-logs/plugin-patched-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
bash tests/vm/vm-run.sh --kernel "$img" --preset standard --guest tests/vm/plugin/guest.sh \
	--add build/nvme-cli/nvme:/usr/bin/nvme-zp --add build/nvme-zns-npo2:/usr/bin/nvme-zns-npo2 \
	--timeout 280 --log "$log" --quiet
vm=$?
layer_lines "$log"
echo "--- host-side checks"
python3 tests/vm/plugin/check-plugin.py "$log" build/vm-logs/plugin-patched-list.json --patched
host=$?
layer_result 78-vm-plugin-patched "$log" $vm $start $host || exit 1

#!/bin/bash
# Layer 55: async engine in QEMU on the stock kernel: batched zone resets and
# finishes through io_uring NVMe passthrough on an npo2 ng device (checked
# with nvme-cli's report), Dataset Management on a conventional namespace
# (data read back), refusals (partial zones, misalignment), forced sync path.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] ||
	{ echo "55-vm-async: nvme-zns-npo2 missing: run make" >&2; exit 1; }
log=build/vm-logs/async-$(date +%Y%m%d-%H%M%S).log
mkdir -p build/vm-logs
start=$SECONDS
bash tests/vm/async/run.sh --timeout 280 --log "$log" --quiet
vm=$?
layer_report 55-vm-async "$log" $vm $start || exit 1

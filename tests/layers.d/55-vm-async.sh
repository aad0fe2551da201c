#!/bin/bash
# Layer 55: async engine in QEMU on the stock kernel: batched zone resets and
# finishes through io_uring NVMe passthrough on an npo2 ng device (checked
# with nvme-cli's report), Dataset Management on a conventional namespace
# (data read back), refusals (partial zones, misalignment), forced sync path.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ -x build/nvme-zns-npo2 ] ||
	{ echo "55-vm-async: nvme-zns-npo2 missing: run make" >&2; exit 1; }
log=build/vm-logs/async-$(date +%Y%m%d-%H%M%S).log
mkdir -p build/vm-logs
bash tests/vm/async/run.sh --timeout 280 --log "$log" --quiet
rc=$?
grep -aE '^(ok|not ok|#)' "$log" | grep -av '^### ' || true
grep -a '^GUEST-RESULT' "$log" | tail -1
[ $rc -eq 0 ] || echo "55-vm-async: FAILED; console log: $log"
exit $rc

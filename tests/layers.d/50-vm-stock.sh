#!/bin/bash
# Layer 50: QEMU end-to-end tests on Debian's stock 6.12 kernel (ng path,
# hidden npo2 block devices): guest assertions (tests/vm/guest/stock.sh)
# plus host-side JSON checks of the same run (tests/vm/check-stock.py).
set -uo pipefail
cd "$(dirname "$0")/../.."
[ -x build/nvme-zns-npo2 ] || { echo "50-vm-stock: nvme-zns-npo2 not built: run make" >&2; exit 1; }
log=build/vm-logs/stock-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
bash tests/vm/vm-run.sh --kernel stock --preset standard --guest tests/vm/guest/stock.sh \
	--timeout 400 --log "$log" --quiet
vm=$?
grep -aE '^(ok|not ok|#)' "$log" | grep -av '^### ' || true
echo "--- host-side checks"
python3 tests/vm/check-stock.py "$log"
host=$?
echo "50-vm-stock: $(grep -a '^GUEST-RESULT' "$log" | tail -1), host $( [ $host -eq 0 ] && echo pass || echo FAIL), $((SECONDS - start)) s"
if [ $vm -ne 0 ] || [ $host -ne 0 ]; then
	echo "50-vm-stock: FAILED; console log: $log"
	exit 1
fi
echo "50-vm-stock: console log: $log"

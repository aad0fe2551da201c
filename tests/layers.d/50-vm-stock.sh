#!/bin/bash
# Layer 50: QEMU end-to-end tests on Debian's stock 6.12 kernel (ng path,
# hidden npo2 block devices): guest assertions (tests/vm/guest/stock.sh)
# plus host-side JSON checks of the same run (tests/vm/check-stock.py).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/layer.sh
[ -x build/nvme-zns-npo2 ] || { echo "50-vm-stock: nvme-zns-npo2 not built: run make" >&2; exit 1; }
log=build/vm-logs/stock-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
bash tests/vm/vm-run.sh --kernel stock --preset standard --guest tests/vm/guest/stock.sh \
	--timeout 400 --log "$log" --quiet
vm=$?
layer_lines "$log"
echo "--- host-side checks"
python3 tests/vm/check-stock.py "$log"
host=$?
layer_result 50-vm-stock "$log" $vm $start $host || exit 1

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 5b: the nvme-cli plugin in QEMU on Debian's stock 6.12 kernel
# (--preset standard): `nvme zns-npo2 <cmd>` against `nvme-zns-npo2 <cmd>`
# for every command of the table (tests/vm/plugin/guest.sh), then host-side
# checks of the plugin's JSON against the configured namespaces.
set -uo pipefail
cd "$(dirname "$0")/../.."
znp=build/nvme-zns-npo2
[ -x "$znp" ] || { echo "58-vm-plugin: nvme-zns-npo2 not built: run make" >&2; exit 1; }
# The plugin is built from the same sources (layer 45 builds it; rebuild if stale).
bash scripts/build-nvme-cli.sh || { echo "58-vm-plugin: building nvme-cli failed" >&2; exit 1; }

mkdir -p build/vm-logs
log=build/vm-logs/plugin-$(date +%Y%m%d-%H%M%S).log
start=$SECONDS
bash tests/vm/vm-run.sh --kernel stock --preset standard --guest tests/vm/plugin/guest.sh \
	--add build/nvme-cli/nvme:/usr/bin/nvme-zp --add "$znp:/usr/bin/nvme-zns-npo2" \
	--timeout 280 --log "$log" --quiet
vm=$?
grep -aE '^(ok|not ok|#)' "$log" | grep -av '^### ' || true
echo "--- host-side checks"
python3 tests/vm/plugin/check-plugin.py "$log" build/vm-logs/plugin-list.json
host=$?
echo "58-vm-plugin: $(grep -a '^GUEST-RESULT' "$log" | tail -1), host $( [ $host -eq 0 ] && echo pass || echo FAIL), $((SECONDS - start)) s"
if [ $vm -ne 0 ] || [ $host -ne 0 ]; then
	echo "58-vm-plugin: FAILED; console log: $log"
	exit 1
fi
echo "58-vm-plugin: console log: $log; transcript of nvme zns-npo2 list -o json: build/vm-logs/plugin-list.json"

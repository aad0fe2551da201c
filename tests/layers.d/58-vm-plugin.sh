#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 5b: the nvme-cli plugin in QEMU on Debian's stock 6.12 kernel
# (--preset standard): `nvme zns-npo2 <cmd>` against `nvme-zns-npo2 <cmd>`
# for every command of the table (tests/vm/plugin/guest.sh), then host-side
# checks of the plugin's JSON against the configured namespaces. One VM run
# per nvme-cli in ZNP_VM_NVME_CLI (default: Debian 12's 2.3, 3.0-rc1 and
# master, the two registration styles and both libnvme APIs; layers 45/46
# built them, rebuilt here if stale).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
znp=build/nvme-zns-npo2
[ -x "$znp" ] || { echo "58-vm-plugin: nvme-zns-npo2 not built: run make" >&2; exit 1; }
mkdir -p build/vm-logs
fail=0
summary=()
for v in ${ZNP_VM_NVME_CLI:-2.3 3.0-rc1 master}; do
	if [ "$v" = 2.3 ]; then out=build/nvme-cli tag=plugin; else out=build/nvme-cli-$v tag=plugin-$v; fi
	bash scripts/build-nvme-cli.sh --version="$v" || {
		echo "58-vm-plugin: building nvme-cli $v failed" >&2
		summary+=("nvme-cli $v: build FAILED")
		fail=1
		continue
	}
	log=build/vm-logs/$tag-$(date +%Y%m%d-%H%M%S).log
	start=$SECONDS
	bash tests/vm/vm-run.sh --kernel stock --preset standard --guest tests/vm/plugin/guest.sh \
		--add "$out/nvme:/usr/bin/nvme-zp" --add "$znp:/usr/bin/nvme-zns-npo2" \
		--timeout 280 --log "$log" --quiet
	vm=$?
	grep -aE '^(ok|not ok|#)' "$log" | grep -av '^### ' | sed "s/^/[$v] /" || true
	echo "--- host-side checks (nvme-cli $v)"
	python3 tests/vm/plugin/check-plugin.py "$log" "build/vm-logs/$tag-list.json"
	host=$?
	summary+=("nvme-cli $v: $(grep -a '^GUEST-RESULT' "$log" | tail -1), host $([ $host -eq 0 ] && echo pass || echo FAIL), $((SECONDS - start)) s, console log $log")
	if [ $vm -ne 0 ] || [ $host -ne 0 ]; then
		fail=1
	fi
done
printf '58-vm-plugin: %s\n' "${summary[@]}"
[ $fail = 0 ] || { echo "58-vm-plugin: FAILED"; exit 1; }
echo "58-vm-plugin: pass; transcripts of nvme zns-npo2 list -o json: build/vm-logs/plugin*-list.json"

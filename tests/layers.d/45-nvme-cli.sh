#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 45: nvme-cli 2.3 (Debian's source, through apt) with the zns-npo2
# plugin grafted in (scripts/build-nvme-cli.sh -> build/nvme-cli/nvme), on the
# host (tests/nvme-cli/host-checks.sh): same output and exit status as
# nvme-zns-npo2 without devices and on emulated namespaces, nvme-cli's help
# paths, and nvme's own bash and zsh completions extended by the patch, driven
# in real bash and zsh. Newer nvme-cli: layer 46. Devices in QEMU: layer 58.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
start=$SECONDS
bash scripts/build-nvme-cli.sh --version=2.3 || { echo "45-nvme-cli: build failed"; exit 1; }
echo "# nvme-cli 2.3: build $((SECONDS - start)) s"
start=$SECONDS
bash tests/nvme-cli/host-checks.sh build/nvme-cli/nvme build/nvme-cli/tree nvme-cli-2.3
rc=$?
echo "45-nvme-cli: host checks $((SECONDS - start)) s, $([ $rc = 0 ] && echo pass || echo FAILED)"
exit $rc

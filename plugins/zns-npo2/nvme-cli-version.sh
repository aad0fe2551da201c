#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Print the version of the nvme-cli source tree $1 (its meson project version).
set -euo pipefail
v=$(sed -n "/^project(/,/)/s/^ *version: *'\([^']*\)'.*/\1/p" "$1/meson.build" | head -n1)
[ -n "$v" ] || { echo "nvme-cli-version: $1/meson.build: no project version" >&2; exit 2; }
echo "$v"

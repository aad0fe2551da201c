#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Print the path of a checkpatch.pl: the kernel tree `make kernel` unpacked,
# or scripts/checkpatch.pl (with the spelling and const_structs lists it
# reads beside it, and the kernel's .clang-format, which the upstream series
# lays its library copy out with) taken once from the pinned kernel source
# (linux-source-7.3, scripts/kernel-source-7.3.sh, make deps) into
# build/checkpatch/.
set -euo pipefail
cd "$(dirname "$0")/.."
for p in build/kernel/src/scripts/checkpatch.pl build/checkpatch/scripts/checkpatch.pl; do
	if [ -f "$p" ] && [ -f "${p%/scripts/checkpatch.pl}/.clang-format" ]; then
		echo "$PWD/$p"
		exit 0
	fi
done
src=$(bash scripts/kernel-source-7.3.sh) && [ -r "$src" ] ||
	{ echo "checkpatch-path: no linux-source-7.3 (scripts/kernel-source-7.3.sh, make deps)" >&2; exit 1; }
tmp=$(mktemp -d build/checkpatch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tar -xf "$src" -C "$tmp" --strip-components=1 --wildcards '*/scripts/checkpatch.pl' \
	'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' '*/.clang-format'
rm -rf build/checkpatch
mv "$tmp" build/checkpatch
trap - EXIT
echo "$PWD/build/checkpatch/scripts/checkpatch.pl"

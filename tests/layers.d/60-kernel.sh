#!/bin/bash
# Layer 60: build the patched kernel (`make kernel`): Debian's linux-source
# 6.12.117 + kernel-patches/series + kernel-patches/xarray/series, minimal
# QEMU config, bzImage with ccache.
# Reuses build/kernel/bzImage when nothing changed; a cold build takes
# ~12-16 min on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash scripts/kernel-build.sh

img=build/kernel/bzImage
[ -s "$img" ] || { echo "60-kernel: $img missing after the build"; exit 1; }
want=$(cat kernel-patches/series kernel-patches/xarray/series | grep -cvE '^[[:space:]]*(#|$)')
have=$(wc -l <build/kernel/applied)
[ "$have" -eq "$want" ] ||
	{ echo "60-kernel: $have of $want patches applied to the built tree"; exit 1; }
file -b "$img" | grep -q 'Linux kernel x86 boot executable' ||
	{ echo "60-kernel: $img is not a bzImage: $(file -b "$img")"; exit 1; }
echo "60-kernel: $img ($(stat -c %s "$img") bytes) with $have patches"

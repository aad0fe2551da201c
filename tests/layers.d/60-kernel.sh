#!/bin/bash
# Layer 60: build the patched kernel (`make kernel`): Debian's linux-source
# 7.3.4 + kernel-patches/series + kernel-patches/xarray/series, minimal
# QEMU config, bzImage with ccache.
# Reuses build/kernel/bzImage when nothing changed; a cold build takes
# ~15-20 min on 2 cores. Under scripts/run-layers.sh the build started in
# the background with the first layer (ZNP_KERNEL_BG_PID, _RC, _LOG):
# this layer waits for it and reports its log.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -n "${ZNP_KERNEL_BG_PID:-}" ]; then
	start=$SECONDS
	while kill -0 "$ZNP_KERNEL_BG_PID" 2>/dev/null && [ ! -s "$ZNP_KERNEL_BG_RC" ]; do
		[ $((SECONDS - start)) -lt 3600 ] ||
			{ echo "60-kernel: the background build did not end in 60 min"; exit 1; }
		sleep 5
	done
	cat "$ZNP_KERNEL_BG_LOG" 2>/dev/null || true
	[ -s "$ZNP_KERNEL_BG_RC" ] ||
		{ echo "60-kernel: the background build (pid $ZNP_KERNEL_BG_PID) ended without a status"; exit 1; }
	rc=$(cat "$ZNP_KERNEL_BG_RC")
	echo "60-kernel: the background build ended (exit $rc); waited $((SECONDS - start)) s for it"
	[ "$rc" = 0 ] || exit 1
fi
# up to date after the background build: only checks its stamp
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

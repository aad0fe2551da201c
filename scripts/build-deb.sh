#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make deb: the Debian package zns-npo2 (debian/), built by
# `dpkg-buildpackage -us -uc -b` in a copy of the files git tracks (as they
# are in the working tree), so that build/ and other untracked files never
# reach the package build; then lintian. Result: build/deb/zns-npo2_*.deb.
#   build-deb.sh [--no-lintian]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
lintian=1
[ "${1:-}" = --no-lintian ] && lintian=0
out=$BUILD/deb
ver=$(dpkg-parsechangelog -S Version)
src=$out/zns-npo2-$ver
rm -rf "$out"
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard -- . ':!:build' |
	xargs -0 -I{} sh -c '[ -e "{}" ] && printf "%s\0" "{}"' | tar --null -T - -cf - | tar -xf - -C "$src"
(cd "$src" && nice -n 10 dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	# a failed check's own line first: the tail is meson's summary
	grep -a -e ': CHECK(.*) failed' -e '^not ok' "$out/build.log" | head -20 >&2 || true
	tail -40 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed, log $out/build.log" >&2
	exit 1
}
deb=$(ls "$out"/zns-npo2_"$ver"_*.deb)
echo "build-deb: $deb"
if [ "$lintian" = 1 ]; then
	# errors fail the build; the warnings kept are listed in debian/README.source
	lintian --fail-on error "$out"/zns-npo2_"$ver"_*.changes
fi

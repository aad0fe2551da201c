#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build the external zoned test suites, unmodified, from their upstream
# source snapshots (git archive tarballs): blktests (the zbd group and the C
# helpers it runs) and zonefs-tools (mkzonefs, the test tools, the test
# scripts, built with autotools). Output: build/suites/{blktests,zonefs-tools}
# plus one tar of each for the VM initramfs; and blkzone from Debian's
# util-linux 2.38 source with scripts/patches/util-linux-2.38-blkzone-npo2.patch
# (its zone alignment checks assume a power-of-2 zone size) in
# build/suites/blkzone-npo2/blkzone, to show which suite failures are that
# tool's. Rebuilt only when an input changes.
#
#   scripts/build-suites.sh
#
# The tarballs are not part of this repository (third-party code). They are
# looked up in $ZNP_VENDOR, else in a folder named vendor/ in a sibling
# directory of the repository's checkout (../*/vendor/). SHA256SUMS, when
# present beside them, is checked. A missing tarball is an error, never a
# skip. Exit: 0 built, 1 missing or failed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
out=$ROOT/build/suites

find_vendor() {
	local d
	if [ -n "${ZNP_VENDOR:-}" ]; then
		echo "$ZNP_VENDOR"
		return
	fi
	for d in "$ROOT"/../*/vendor; do
		if compgen -G "$d/blktests-*.tar.gz" >/dev/null && compgen -G "$d/zonefs-tools-*.tar.gz" >/dev/null; then
			(cd "$d" && pwd)
			return
		fi
	done
}
vendor=$(find_vendor)
die() { echo "build-suites: $*" >&2; exit 1; }
[ -n "$vendor" ] && [ -d "$vendor" ] ||
	die "no source snapshots of blktests and zonefs-tools: set ZNP_VENDOR to the folder holding blktests-*.tar.gz and zonefs-tools-*.tar.gz (looked in ${ZNP_VENDOR:-../*/vendor})"
bt=$(compgen -G "$vendor/blktests-*.tar.gz" | head -1) || die "$vendor: no blktests-*.tar.gz"
zf=$(compgen -G "$vendor/zonefs-tools-*.tar.gz" | head -1) || die "$vendor: no zonefs-tools-*.tar.gz"
if [ -f "$vendor/SHA256SUMS" ]; then
	for t in "$bt" "$zf"; do
		(cd "$vendor" && grep " $(basename "$t")\$" SHA256SUMS | sha256sum -c --quiet -) ||
			die "$t does not match $vendor/SHA256SUMS"
	done
fi
for t in autoreconf libtoolize make gcc g++; do
	command -v "$t" >/dev/null || die "$t not installed (run make deps)"
done
[ -f /usr/include/blkid/blkid.h ] && [ -f /usr/include/uuid/uuid.h ] ||
	die "libblkid-dev and uuid-dev are needed (run make deps)"

mkdir -p "$out"
patch=$ROOT/scripts/patches/util-linux-2.38-blkzone-npo2.patch
key=$(sha256sum "$bt" "$zf" "$0" "$patch" | sha256sum | cut -c1-16)
if [ "$(cat "$out/key" 2>/dev/null)" = "$key" ] && [ -s "$out/blktests.tar" ] && [ -s "$out/zonefs-tools.tar" ] &&
	[ -x "$out/blkzone-npo2/blkzone" ]; then
	echo "build-suites: up to date ($(basename "$bt"), $(basename "$zf"))"
	exit 0
fi
rm -rf "$out/blktests" "$out/zonefs-tools" "$out/blkzone-npo2" "$out/key"
mkdir -p "$out/blktests" "$out/zonefs-tools"
tar xzf "$bt" -C "$out/blktests" --strip-components=1
tar xzf "$zf" -C "$out/zonefs-tools" --strip-components=1
log=$out/build.log
echo "build-suites: building $(basename "$bt") and $(basename "$zf") (log $log)"
{
	nice -n 10 make -C "$out/blktests" -j"$(nproc)"
	cd "$out/zonefs-tools"
	nice -n 10 ./autogen.sh
	nice -n 10 ./configure --with-tests
	nice -n 10 make -j"$(nproc)"
} >"$log" 2>&1 || { tail -20 "$log" >&2; die "build failed"; }
cd "$ROOT"

# Debian's util-linux source (apt-get source through the private apt
# configuration of scripts/debsrc.sh), patched, only blkzone built
ul=$out/util-linux
if [ ! -x "$out/blkzone-npo2/blkzone" ]; then
	rm -rf "$ul"
	mkdir -p "$ul/apt/lists/partial" "$ul/dl"
	# shellcheck source=scripts/debsrc.sh
	. scripts/debsrc.sh
	znp_debsrc_derive "$ul/apt/sources.d" build-suites
	znp_debsrc_aptopts "$ul/apt"
	{
		apt-get -q "${znp_aptopts[@]}" update
		(cd "$ul/dl" && apt-get -q "${znp_aptopts[@]}" source "util-linux=$(dpkg-query -W -f='${Version}' util-linux)")
	} >>"$log" 2>&1 || { tail -20 "$log" >&2; die "apt-get source util-linux failed"; }
	src=$(find "$ul/dl" -mindepth 1 -maxdepth 1 -type d -name 'util-linux-*' | head -1)
	[ -n "$src" ] || die "no util-linux source tree in $ul/dl"
	{
		cd "$src"
		patch -p1 <"$patch"
		nice -n 10 ./configure --disable-nls --without-python --without-systemd --without-udev \
			--without-ncurses --without-ncursesw --without-readline --without-tinfo
		nice -n 10 make -j"$(nproc)" blkzone
	} >>"$log" 2>&1 || { tail -20 "$log" >&2; die "patched blkzone build failed"; }
	cd "$ROOT"
	mkdir -p "$out/blkzone-npo2"
	install -m 0755 "$src/blkzone" "$out/blkzone-npo2/blkzone"
	rm -rf "$ul"
fi

for f in blktests/check blktests/src/zbdioctl zonefs-tools/src/mkzonefs \
	zonefs-tools/tests/tools/zio zonefs-tools/tests/tools/zopen zonefs-tools/tests/zonefs-tests.sh; do
	[ -e "$out/$f" ] || die "$f was not built"
done
tar cf "$out/blktests.tar" -C "$out" blktests
tar cf "$out/zonefs-tools.tar" -C "$out" --exclude='*.o' zonefs-tools/tests zonefs-tools/src/mkzonefs
echo "$key" >"$out/key"
echo "build-suites: built $(basename "$bt" .tar.gz) and $(basename "$zf" .tar.gz)"

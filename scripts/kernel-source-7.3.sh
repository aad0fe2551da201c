#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch the base of the kernel series (kernel-patches/): Debian's
# linux-source-7.3 at the pinned version, checked against the pinned SHA-256
# of its .deb, and print the path of the source tarball it carries
# (build/kernel-src-7.3/linux-source-7.3.tar.xz).
#
# The package comes from trixie-backports through a private apt configuration
# (scripts/debsrc.sh: URIs and Signed-By of the system's own Debian entry, the
# lists in build/kernel-src-7.3/apt); the system's apt state is not touched
# and nothing is installed.
#
# Debian keeps only the current backports kernel in its archive: when the
# pinned version is gone, `apt-get download` fails and the series has to be
# rebased on the version that replaced it (kernel-patches/README.md).
#
# Environment: BUILD (default build).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac

KSRC_PKG=linux-source-7.3
KSRC_VERSION=7.3.4-1~bpo13+1
KSRC_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3
SUITES="trixie trixie-backports"

TOP=$BUILD/kernel-src-7.3
APT=$TOP/apt
TAR=$TOP/$KSRC_PKG.tar.xz
P=kernel-source-7.3

die() { echo "$P: $*" >&2; exit 1; }

if [ -s "$TAR" ] && [ "$(cat "$TOP/VERSION" 2>/dev/null)" = "$KSRC_VERSION" ]; then
	echo "$TAR"
	exit 0
fi
for t in apt-get dpkg-deb sha256sum; do
	command -v "$t" >/dev/null || die "$t missing"
done

# shellcheck source=scripts/debsrc.sh
. "$ROOT/scripts/debsrc.sh"
znp_debsrc_binary "$APT/sources.d" "$SUITES" "$P"
mkdir -p "$APT/lists/partial"
znp_aptopts=()
znp_debsrc_aptopts "$APT"
apt-get -qq "${znp_aptopts[@]}" update >&2 || die "apt-get update failed"

dl=$TOP/deb
rm -rf "$dl" "$TOP/unpack"
mkdir -p "$dl"
(cd "$dl" && apt-get -qq "${znp_aptopts[@]}" download "$KSRC_PKG=$KSRC_VERSION" >&2) ||
	die "apt-get download $KSRC_PKG=$KSRC_VERSION failed (gone from the archive? see kernel-patches/README.md)"
deb=$(find "$dl" -name "${KSRC_PKG}_*.deb" | head -n1)
[ -n "$deb" ] || die "no $KSRC_PKG .deb downloaded"
sum=$(sha256sum <"$deb" | cut -d' ' -f1)
[ "$sum" = "$KSRC_SHA256" ] || die "$(basename "$deb"): SHA-256 $sum, expected $KSRC_SHA256"
mkdir -p "$TOP/unpack"
dpkg-deb -x "$deb" "$TOP/unpack"
[ -s "$TOP/unpack/usr/src/$KSRC_PKG.tar.xz" ] || die "$(basename "$deb") carries no usr/src/$KSRC_PKG.tar.xz"
mv "$TOP/unpack/usr/src/$KSRC_PKG.tar.xz" "$TAR.tmp"
mv "$TAR.tmp" "$TAR"
echo "$KSRC_VERSION" >"$TOP/VERSION"
rm -rf "$dl" "$TOP/unpack"
echo "$TAR"

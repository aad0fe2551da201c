#!/bin/bash
# Build mkfs.f2fs and fsck.f2fs from Debian's f2fs-tools source with the
# patches of kernel-patches/f2fs-tools/ applied (f2fs-tools 1.15 refuses
# zoned devices whose zone size is not a power of 2; the kernel series lets
# f2fs use them directly).
#
#   scripts/f2fs-tools-build.sh      -> build/f2fs-tools/{mkfs.f2fs,fsck.f2fs}
#
# The source comes from `apt-get source f2fs-tools` through a private apt
# configuration under build/f2fs-tools/apt/ whose deb-src entries are derived
# from the system's own apt sources (same URIs and suites), so the system's
# apt state is never touched. The Debian version is pinned: the patches are
# written against it. Nothing is rebuilt when the source, the patches and
# this script are unchanged.
#
# Environment: BUILD (default build), JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
PKG=f2fs-tools
VERSION=1.15.0-1
OUT=$ROOT/$BUILD/f2fs-tools
PATCHDIR=$ROOT/kernel-patches/f2fs-tools

# shellcheck source=scripts/debsrc.sh
. scripts/debsrc.sh
die() { echo "f2fs-tools: $*" >&2; exit 1; }
say() { echo "f2fs-tools: $*"; }

for t in apt-get dpkg-source autoreconf libtoolize make gcc pkg-config; do
	command -v "$t" >/dev/null || die "$t not installed: run make deps"
done
pkg-config --exists uuid blkid || die "uuid-dev / libblkid-dev not installed: run make deps"

patches=()
for p in "$PATCHDIR"/*.patch; do
	[ -f "$p" ] && patches+=("$p")
done
[ ${#patches[@]} -gt 0 ] || die "no patches in $PATCHDIR"

stamp=$( { echo "$PKG $VERSION"; sha256sum "$0" scripts/debsrc.sh "${patches[@]}"; } | sha256sum | cut -c1-32)
if [ -x "$OUT/mkfs.f2fs" ] && [ -x "$OUT/fsck.f2fs" ] &&
	[ "$(cat "$OUT/stamp" 2>/dev/null)" = "$stamp" ]; then
	say "$OUT/mkfs.f2fs is up to date"
	exit 0
fi
mkdir -p "$OUT"
rm -f "$OUT/stamp"

dl=$OUT/dl
src=$dl/$PKG-${VERSION%-*}
if [ ! -f "$src/lib/libf2fs.c" ]; then
	say "fetching the Debian source of $PKG $VERSION (apt-get source)"
	apt=$OUT/apt
	znp_debsrc_derive "$apt/sources.d" f2fs-tools
	mkdir -p "$apt/lists/partial" "$dl"
	znp_debsrc_aptopts "$apt"
	apt-get -q "${znp_aptopts[@]}" update >"$OUT/apt-update.log" 2>&1 ||
		{ tail -5 "$OUT/apt-update.log" >&2; die "apt-get update (deb-src) failed"; }
	(cd "$dl" && apt-get -q "${znp_aptopts[@]}" source "$PKG=$VERSION") >"$OUT/apt-source.log" 2>&1 ||
		{ tail -5 "$OUT/apt-source.log" >&2; die "apt-get source $PKG=$VERSION failed"; }
	[ -f "$src/lib/libf2fs.c" ] || die "$src: not an f2fs-tools source tree"
fi

# a private copy keeps the Debian source pristine
tree=$OUT/tree
rm -rf "$tree"
cp -a "$src" "$tree"
for p in "${patches[@]}"; do
	patch -d "$tree" -p1 --quiet --forward <"$p" >"$OUT/patch.log" 2>&1 ||
		{ cat "$OUT/patch.log" >&2; die "$(basename "$p") does not apply to $PKG $VERSION"; }
	say "applied $(basename "$p")"
done

say "building mkfs.f2fs and fsck.f2fs ($JOBS jobs)"
(
	cd "$tree"
	autoreconf -fi >"$OUT/autoreconf.log" 2>&1
	./configure --disable-shared --without-selinux >"$OUT/configure.log" 2>&1
	nice -n 10 make -j"$JOBS" -C lib >"$OUT/make.log" 2>&1
	nice -n 10 make -j"$JOBS" -C mkfs >>"$OUT/make.log" 2>&1
	nice -n 10 make -j"$JOBS" -C fsck >>"$OUT/make.log" 2>&1
) || { tail -20 "$OUT"/make.log "$OUT"/configure.log 2>/dev/null >&2; die "build failed (logs in $OUT)"; }
install -m 0755 "$tree/mkfs/mkfs.f2fs" "$OUT/mkfs.f2fs"
install -m 0755 "$tree/fsck/fsck.f2fs" "$OUT/fsck.f2fs"
echo "$stamp" >"$OUT/stamp"
say "built $OUT/mkfs.f2fs and $OUT/fsck.f2fs ($PKG $VERSION + ${#patches[@]} patches)"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build nvme-cli with the zns-npo2 plugin grafted in.
#
#   scripts/build-nvme-cli.sh [--no-plugin] [--version=V] [NVME_CLI_SRC]
#
# V (or NVME_CLI_VERSION) is 2.3 (default), 2.13, 2.16, 3.0-rc1 or master; the
# result is build/nvme-cli/nvme for 2.3 and build/nvme-cli-V/nvme for the others.
# 2.3 is Debian's nvme-cli source package, fetched with `apt-get source`
# through a private apt configuration under build/nvme-cli/apt/ whose deb-src
# entries are derived from the system's own apt sources, so the system's apt
# state is never touched. The others are unpacked from the vendor tarballs
# (scripts/vendor.sh; 2.13 and 2.16 with the libnvme they pair with as the
# libnvme subproject, 3.0-rc1 and master have libnvme in their tree). With
# NVME_CLI_SRC (an nvme-cli checkout) that tree is copied and used, never
# modified; its version (master for a tree registering commands in plain C)
# comes from the tree (plugins/zns-npo2/graft.sh --describe). Builds are offline (--wrap-mode=nodownload, Debian's
# json-c), build only the nvme target, without nvme-cli's docs and tests, in
# one build directory per version (incremental; ccache when installed).
# --no-plugin builds the unmodified tree (OUT/plain/).
#
# The graft itself is plugins/zns-npo2/graft.sh; see plugins/zns-npo2/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/build/nvme-cli	# Debian's source and apt state live here

plugin=1
src=
want=${NVME_CLI_VERSION:-}
for arg in "$@"; do
	case "$arg" in
	--no-plugin) plugin=0 ;;
	--version=*) want=${arg#--version=} ;;
	-h | --help)
		sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "build-nvme-cli: unknown option $arg" >&2
		exit 2
		;;
	*) src=$arg ;;
	esac
done

# shellcheck source=scripts/debsrc.sh
. scripts/debsrc.sh

fetch_debian_source() {
	znp_debsrc_fetch "$out/apt" "$out/dl" nvme-cli build-nvme-cli
}

# nvme-cli tarball (vendor name) and the libnvme it pairs with, per version.
vendor_tarball() {
	case $1 in
	2.13) echo "nvme-cli-2.13.tar.gz libnvme-1.13.tar.gz" ;;
	2.16) echo "nvme-cli-2.16.tar.gz libnvme-1.16.2.tar.gz" ;;
	3.0-rc1) echo "nvme-cli-3.0-rc1.tar.gz" ;;
	master) echo "nvme-cli-master-e117ee680.tar.gz" ;;
	*) return 1 ;;
	esac
}
# The versions the graft knows: those with a patch for nvme-cli's side.
known=$(find plugins/zns-npo2/nvme-cli -name '*.patch' -printf '%f\n' | sed 's/\.patch$//' | sort -V | tr '\n' ' ')
known=${known% }

# Unpack a vendor tarball (git archive: one top directory) into $2, once.
unpack() {
	local tarball=$1 dir=$2
	[ -f "$dir/.znp-unpacked" ] && [ "$(cat "$dir/.znp-unpacked")" = "$(basename "$tarball")" ] && return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xzf "$tarball" -C "$dir" --strip-components=1
	basename "$tarball" >"$dir/.znp-unpacked"
}

if [ -n "$src" ]; then
	[ -f "$src/meson.build" ] || {
		echo "build-nvme-cli: $src: not an nvme-cli source tree (no meson.build)" >&2
		exit 2
	}
	src=$(cd "$src" && pwd)
	if [ "$plugin" = 1 ]; then
		desc=$(bash plugins/zns-npo2/graft.sh --describe "$src" 2>&1) || {
			echo "build-nvme-cli: ${desc#graft: }" >&2
			exit 2
		}
		version=${desc%% *}
	else
		version=$(bash plugins/zns-npo2/nvme-cli-version.sh "$src")
	fi
	if [ -n "$want" ] && [ "$want" != "$version" ]; then
		echo "build-nvme-cli: $src is nvme-cli $version, not NVME_CLI_VERSION=$want" >&2
		exit 2
	fi
else
	version=${want:-2.3}
	case " $known " in
	*" $version "*) ;;
	*)
		echo "build-nvme-cli: nvme-cli $version: not a version the graft knows ($known)" >&2
		exit 2
		;;
	esac
	if [ "$version" = 2.3 ]; then
		src=$(fetch_debian_source)
	else
		# shellcheck source=scripts/vendor.sh
		. scripts/vendor.sh
		read -r cli_tar lib_tar <<<"$(vendor_tarball "$version")"
		cli_tar=$(znp_vendor_tarball "$cli_tar")
		src=$root/build/nvme-cli-$version/src
		unpack "$cli_tar" "$src"
	fi
fi
[ -f "$src/plugin.h" ] || [ -f "$src/src/plugin.h" ] || {
	echo "build-nvme-cli: $src: not an nvme-cli source tree (no plugin.h)" >&2
	exit 2
}
if [ "$version" = 2.3 ]; then
	base=$out
else
	base=$root/build/nvme-cli-$version
fi
if [ "$plugin" = 1 ]; then
	dest=$base
else
	dest=$base/plain
fi
tree=$dest/tree
mkdir -p "$dest"

# The graft is made in a private copy (stage/: the source stays pristine) and
# then synced by content into tree/, where meson builds: files the graft left
# as they were keep their mtimes, so a rebuild recompiles only what changed.
# nvme-cli 2.13+ wants a newer libnvme than Debian 12's: the paired vendor
# libnvme becomes its subproject (kept across runs).
stage=$dest/stage
rsync -a --delete --exclude=/.build --exclude=/.git --exclude=/.znp-unpacked \
	--filter='P /subprojects/libnvme/' "$src/" "$stage/"
read -r _ lib_tar <<<"$(vendor_tarball "$version" || true)"
if [ -n "${lib_tar:-}" ] && [ ! -f "$stage/subprojects/libnvme/meson.build" ]; then
	# shellcheck source=scripts/vendor.sh
	. scripts/vendor.sh
	unpack "$(znp_vendor_tarball "$lib_tar")" "$stage/subprojects/libnvme"
fi
if [ "$plugin" = 1 ]; then
	bash "$root/plugins/zns-npo2/graft.sh" "$stage" "${ZNP_BUILD_DIR:-$root/build}"
fi
mkdir -p "$tree"
rsync -rlp --checksum --delete --exclude=/.build "$stage/" "$tree/"

# nvme-cli's (and its libnvme subproject's) docs, tests, examples and python
# bindings are not built: only the options each tree has are passed.
has_opt() { grep -Eq "(option\(|^ *)'$2'" "$1/meson_options.txt" 2>/dev/null; }
# Libraries built in the tree (libnvme) are linked statically: build/.../nvme
# runs from wherever it is copied (the VM tests copy it into the guest).
opts=(-Ddocs=false -Dversion-tag="$version" --default-library=static)
for o in nvme-tests tests examples; do
	has_opt "$tree" "$o" && opts+=("-D$o=false")
done
has_opt "$tree" python && opts+=(-Dpython=disabled)
if [ -f "$tree/subprojects/libnvme/meson.build" ]; then
	lib=$tree/subprojects/libnvme
	opts+=(-Dlibnvme:docs=false)
	for o in tests examples; do
		has_opt "$lib" "$o" && opts+=("-Dlibnvme:$o=false")
	done
	has_opt "$lib" python && opts+=(-Dlibnvme:python=disabled)
fi

bdir=$tree/.build
if [ ! -f "$bdir/build.ninja" ]; then
	meson setup "$bdir" "$tree" --wrap-mode=nodownload --buildtype=debugoptimized \
		"${opts[@]}" >"$dest/meson-setup.log" 2>&1 || {
		cat "$dest/meson-setup.log" >&2
		echo "build-nvme-cli: meson setup of nvme-cli $version failed (log: $dest/meson-setup.log)" >&2
		exit 1
	}
fi
start=$SECONDS
nice -n 10 ninja -C "$bdir" nvme >"$dest/ninja.log" 2>&1 || {
	tail -n 60 "$dest/ninja.log" >&2
	echo "build-nvme-cli: building nvme-cli $version failed (log: $dest/ninja.log)" >&2
	exit 1
}
install -m 0755 "$bdir/nvme" "$dest/nvme"
ver=$("$dest/nvme" version 2>&1 | head -n1)
if [ -z "$ver" ] || ! "$dest/nvme" version >/dev/null 2>&1; then
	echo "build-nvme-cli: $dest/nvme (nvme-cli $version) does not run: $ver" >&2
	exit 1
fi
echo "build-nvme-cli: $dest/nvme ($ver; ninja $((SECONDS - start)) s)"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build nvme-cli with the zns-npo2 plugin grafted in: build/nvme-cli/nvme.
#
#   scripts/build-nvme-cli.sh [--no-plugin] [NVME_CLI_SRC]
#
# Without NVME_CLI_SRC, Debian's nvme-cli source package is fetched with
# `apt-get source` through a private apt configuration under build/nvme-cli/apt/
# whose deb-src entries are derived from the system's own apt sources (same
# URIs and suites), so the system's apt state is never touched.  With
# NVME_CLI_SRC (an nvme-cli 2.x checkout), that tree is copied and used; it is
# never modified.  --no-plugin builds the unmodified tree (build/nvme-cli/plain/).
#
# The graft itself is plugins/zns-npo2/graft.sh; see plugins/zns-npo2/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/build/nvme-cli

plugin=1
src=
for arg in "$@"; do
	case "$arg" in
	--no-plugin) plugin=0 ;;
	-h | --help)
		sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "build-nvme-cli: unknown option $arg" >&2
		exit 2
		;;
	*) src=$arg ;;
	esac
done

# Write deb-src entries mirroring every deb entry of the system's apt sources.
derive_deb_src() {
	local dir=$1 f
	mkdir -p "$dir"
	: >"$dir/deb-src.sources"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		grep -q '^Types:.*\bdeb\b' "$f" || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" >>"$dir/deb-src.sources"
		echo >>"$dir/deb-src.sources"
	done
	: >"$dir/deb-src.list"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$dir/deb-src.list"
	done
	[ -s "$dir/deb-src.sources" ] || [ -s "$dir/deb-src.list" ] || {
		echo "build-nvme-cli: no deb entries in /etc/apt to derive deb-src from" >&2
		exit 1
	}
}

fetch_debian_source() {
	local apt=$out/apt dl=$out/dl
	local existing
	existing=$(find "$dl" -mindepth 1 -maxdepth 1 -type d -name 'nvme-cli-*' 2>/dev/null | head -n1)
	if [ -n "$existing" ]; then
		echo "$existing"
		return
	fi
	command -v dpkg-source >/dev/null || {
		echo "build-nvme-cli: dpkg-source missing (install dpkg-dev: make deps)" >&2
		exit 1
	}
	derive_deb_src "$apt/sources.d"
	mkdir -p "$apt/lists/partial" "$dl"
	local aptopts=(
		-o Dir::Etc::SourceList=/dev/null
		-o Dir::Etc::SourceParts="$apt/sources.d"
		-o Dir::State::Lists="$apt/lists"
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		-o APT::Sandbox::User=root
	)
	apt-get -q "${aptopts[@]}" update >&2
	(cd "$dl" && apt-get -q "${aptopts[@]}" source nvme-cli >&2)
	find "$dl" -mindepth 1 -maxdepth 1 -type d -name 'nvme-cli-*' | head -n1
}

if [ -z "$src" ]; then
	src=$(fetch_debian_source)
fi
[ -f "$src/nvme.c" ] && [ -f "$src/plugin.h" ] || {
	echo "build-nvme-cli: $src: not an nvme-cli source tree (no nvme.c/plugin.h)" >&2
	exit 2
}
src=$(cd "$src" && pwd)
version=$(sed -n "s/^ *version: *'\([^']*\)'.*/\1/p" "$src/meson.build" | head -n1)

if [ "$plugin" = 1 ]; then
	dest=$out
	tree=$out/tree
else
	dest=$out/plain
	tree=$out/plain/tree
fi
mkdir -p "$dest"

# A private copy keeps the source pristine; rsync keeps mtimes of unchanged
# files so rebuilds stay incremental.
rsync -a --delete --exclude=/.build --exclude=/.git "$src/" "$tree/"
if [ "$plugin" = 1 ]; then
	bash "$root/plugins/zns-npo2/graft.sh" "$tree" "${ZNP_BUILD_DIR:-$root/build}"
fi

bdir=$tree/.build
if [ ! -f "$bdir/build.ninja" ]; then
	meson setup "$bdir" "$tree" --wrap-mode=nodownload --buildtype=debugoptimized \
		-Ddocs=false -Dversion-tag="$version" >"$dest/meson-setup.log" 2>&1 || {
		cat "$dest/meson-setup.log" >&2
		exit 1
	}
fi
nice -n 10 ninja -C "$bdir" nvme >"$dest/ninja.log" 2>&1 || {
	tail -n 60 "$dest/ninja.log" >&2
	exit 1
}
install -m 0755 "$bdir/nvme" "$dest/nvme"
echo "build-nvme-cli: $dest/nvme ($("$dest/nvme" version | head -n1))"

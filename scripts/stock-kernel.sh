#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian's stock kernels of the test matrix, unpacked into build/ (never
# installed): the VM layers boot them with tests/vm/vm-run.sh
# (STOCK_KDIR=<dir>, `--kernel stock`).
#
#   7    the newest linux-binary-7.*+deb13-amd64 (+ linux-modules-... and
#        linux-base-..., which holds its config and modules.builtin) of Debian 13
#        (trixie, trixie-backports): Debian keeps only the current
#        backports kernel, so the newest one is taken each time, never a
#        pinned version
#   6.1  the newest linux-image-6.1.*-amd64-unsigned of Debian 12 (bookworm):
#        Debian 12's default kernel, without ublk_drv
#
# Packages come through a private apt configuration (scripts/debsrc.sh's
# pattern): one .sources entry whose URIs and Signed-By are those of the
# system's own Debian entry, naming the suites above; its lists live in
# build/stock-kernel/apt. Each kernel is unpacked with dpkg-deb -x into
# build/stock-kernel/<KVER>/ (the image at lib/modules/<KVER>/vmlinuz),
# `depmod -b` run there, and build/stock-kernel/<NAME> points at it.
#
# usage: stock-kernel.sh [--cached] NAME...
#   prints "NAME KVER DIR" per kernel; --cached: use what an earlier run
#   unpacked (no apt-get update) when there is one
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
TOP=$BUILD/stock-kernel
APT=$TOP/apt
P=stock-kernel

cached=0
[ "${1:-}" = --cached ] && { cached=1; shift; }
[ $# -gt 0 ] || { echo "usage: $0 [--cached] 7|6.1..." >&2; exit 2; }
for n in "$@"; do
	case "$n" in 7|6.1) ;; *) echo "$P: unknown kernel $n (7 or 6.1)" >&2; exit 2 ;; esac
done

# ---- the private apt configuration ------------------------------------------
# The system's Debian entry (not -security): its URIs and Signed-By, with
# the suites of the matrix (scripts/debsrc.sh's znp_debsrc_binary).
derive() {
	mkdir -p "$APT/sources.d" "$APT/lists/partial"
	rm -f "$APT/sources.d/stock-kernel.sources"	# the name before debsrc.sh wrote it
	znp_debsrc_binary "$APT/sources.d" "trixie trixie-backports bookworm" "$P"
}

# shellcheck source=scripts/debsrc.sh
. "$ROOT/scripts/debsrc.sh"
updated=0
aptopts() {
	local -a znp_aptopts
	znp_debsrc_aptopts "$APT"
	opts=("${znp_aptopts[@]}")
}
update() {
	[ $updated = 0 ] || return 0
	derive
	aptopts
	apt-get -qq "${opts[@]}" update >&2 || { echo "$P: apt-get update failed" >&2; exit 1; }
	updated=1
}
newest() {	# newest PATTERN: the highest package name apt knows matching the ERE
	apt-cache "${opts[@]}" search --names-only "$1" | cut -d' ' -f1 | sort -V | tail -n1
}

# add_config DIR: the configuration and the lists of built-in modules
# (lib/modules/KVER/config, modules.builtin, modules.builtin.modinfo, from
# linux-base-KVER) of a 7.x kernel unpacked before the script fetched that
# package with it; layer 72's stock control gives them to the suites
add_config() {
	local dir=$1 kver dl d f
	kver=$(cat "$dir/KVER")
	[ ! -s "$dir/lib/modules/$kver/config" ] || return 0
	update
	echo "$P: fetching linux-base-$kver (its configuration)" >&2
	dl=$TOP/deb
	rm -rf "$dl"
	mkdir -p "$dl/x"
	(cd "$dl" && apt-get -qq "${opts[@]}" download "linux-base-$kver" >&2) ||
		{ echo "$P: apt-get download linux-base-$kver failed" >&2; exit 1; }
	for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$dl/x"; done
	for f in config modules.builtin modules.builtin.modinfo; do
		cp "$dl/x/usr/lib/modules/$kver/$f" "$dir/lib/modules/$kver/" ||
			{ echo "$P: linux-base-$kver has no lib/modules/$kver/$f" >&2; exit 1; }
	done
	rm -rf "$dl"
}

# ---- one kernel -----------------------------------------------------------------
fetch() {
	local name=$1 pkgs kver dir dl d tmp
	if [ $cached = 1 ] && [ -f "$TOP/$name/READY" ]; then
		[ "$name" != 7 ] || add_config "$TOP/$name"
		echo "$name $(cat "$TOP/$name/KVER") $(readlink -f "$TOP/$name")"
		return
	fi
	update
	case "$name" in
	7)
		d=$(newest '^linux-binary-7\.[0-9.]+\+deb13-amd64$')
		[ -n "$d" ] || { echo "$P: no linux-binary-7.*+deb13-amd64 in trixie/trixie-backports" >&2; exit 1; }
		kver=${d#linux-binary-}
		pkgs=("linux-binary-$kver" "linux-modules-$kver" "linux-base-$kver")
		;;
	6.1)
		d=$(newest '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$')
		[ -n "$d" ] || { echo "$P: no linux-image-6.1.*-amd64-unsigned in bookworm" >&2; exit 1; }
		kver=${d#linux-image-}
		kver=${kver%-unsigned}
		pkgs=("$d")
		;;
	esac
	dir=$TOP/$kver
	if [ ! -f "$dir/READY" ]; then
		echo "$P: fetching ${pkgs[*]}" >&2
		dl=$TOP/deb
		rm -rf "$dl" "$dir.tmp"
		mkdir -p "$dl" "$dir.tmp"
		(cd "$dl" && apt-get -qq "${opts[@]}" download "${pkgs[@]}" >&2) ||
			{ echo "$P: apt-get download ${pkgs[*]} failed" >&2; exit 1; }
		for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$dir.tmp"; done
		rm -rf "$dl"
		tmp=$dir.tmp
		# Debian 13 packages are merged-/usr, Debian 12's are not: one layout
		[ -d "$tmp/lib" ] || [ ! -d "$tmp/usr/lib/modules" ] || ln -s usr/lib "$tmp/lib"
		[ -f "$tmp/lib/modules/$kver/vmlinuz" ] || mv "$tmp/boot/vmlinuz-$kver" "$tmp/lib/modules/$kver/vmlinuz"
		# depmod warns that modules.order and modules.builtin are not in the packages
		/sbin/depmod -b "$tmp" "$kver" 2>&1 | grep -v 'could not open modules\.\(order\|builtin\)' >&2 || true
		[ -s "$tmp/lib/modules/$kver/modules.dep" ] || { echo "$P: depmod made no modules.dep for $kver" >&2; exit 1; }
		echo "$kver" >"$tmp/KVER"
		touch "$tmp/READY"
		rm -rf "$dir"
		mv "$tmp" "$dir"
	fi
	ln -sfn "$kver" "$TOP/$name.tmp"
	mv -T "$TOP/$name.tmp" "$TOP/$name"
	# earlier versions of this kernel line go
	for d in "$TOP"/*/KVER; do
		[ -f "$d" ] || continue
		d=$(dirname "$d")
		case "$(basename "$d")" in "$kver"|7|6.1) continue ;; esac
		case "$name:$(basename "$d")" in 7:7.*|6.1:6.1.*) rm -rf "$d" ;; esac
	done
	echo "$name $kver $dir"
}

mkdir -p "$TOP"
for n in "$@"; do fetch "$n"; done

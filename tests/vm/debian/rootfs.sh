#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian 12 root file system of the real-systemd layer
# (tests/layers.d/90-vm-systemd.sh): mmdebstrap of the host's own suite from
# the host's own apt sources (every deb entry of /etc/apt, as
# scripts/debsrc.sh derives them), with systemd, udev and the tools the
# tests use. Cached as a directory under build/vm-debian/ and rebuilt when
# the package list, the suite or the host's sources change.
#   rootfs.sh [BUILD]     prints the path of the directory
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build}}
CACHE=$BUILD/vm-debian
mkdir -p "$CACHE"

# systemd as PID 1, udev, the tools of the test, and the run-time libraries
# of the zns-npo2 package (the guest has no network: dpkg -i, not apt)
PKGS=systemd,systemd-sysv,udev,kmod,nvme-cli,btrfs-progs,f2fs-tools,fio,util-linux,dmsetup,procps,libnvme1,libjson-c5,liburing2,libdevmapper1.02.1
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || { echo "rootfs: no VERSION_CODENAME in /etc/os-release" >&2; exit 1; }

# the host's deb sources, deb822 and one-line style
src=$CACHE/sources
mkdir -p "$src"
rm -f "$src"/*
n=0
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	grep -q '^Types:.*\bdeb\b' "$f" || continue
	n=$((n + 1))
	sed 's/^Types:.*/Types: deb/' "$f" >"$src/$n.sources"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	sed -n 's/^[[:space:]]*\(deb[[:space:]].*\)/\1/p' "$f" >"$src/$n.list"
	[ -s "$src/$n.list" ] || rm -f "$src/$n.list"
done
mirrors=("$src"/*)
[ -e "${mirrors[0]}" ] || { echo "rootfs: no deb entries in /etc/apt" >&2; exit 1; }

key=$( (echo "$suite $PKGS"; cat "${mirrors[@]}"; sed -n '/mmdebstrap --variant/,$p' "$0") | sha1sum | cut -c1-16)
out=$CACHE/rootfs-$key
if [ ! -x "$out/sbin/init" ]; then
	rm -rf "$CACHE"/rootfs-*
	echo "rootfs: mmdebstrap $suite (cached as $out)" >&2
	start=$SECONDS
	mmdebstrap --variant=apt --include="$PKGS" --quiet \
		--customize-hook='rm -f "$1"/etc/machine-id "$1"/var/lib/dbus/machine-id; : >"$1"/etc/machine-id' \
		--customize-hook='echo znp-guest >"$1"/etc/hostname' \
		--customize-hook='chroot "$1" passwd -d root >/dev/null' \
		"$suite" "$out.tmp" "${mirrors[@]}" >&2
	rm -rf "$out"
	mv "$out.tmp" "$out"
	echo "rootfs: built in $((SECONDS - start)) s" >&2
fi
echo "$out"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Provide the 6.12 ublk UAPI header (zoned ublk: UBLK_F_ZONED, UBLK_F_USER_COPY,
# UBLK_U_CMD_GET_FEATURES) for the build, never committed to the tree:
#   1. the system's <linux/ublk_cmd.h> when it already has the zoned definitions
#      (linux-libc-dev >= 6.6);
#   2. include/uapi/linux/ublk_cmd.h of an unpacked kernel tree ($KSRC_DIR);
#   3. the same file extracted from linux-source-6.12 ($KSRC_TAR), which
#      `make deps` installs.
# usage: ublk-uapi.sh OUTPUT
set -eu
out=$1
sys=${UBLK_SYS_HEADER:-/usr/include/linux/ublk_cmd.h}
tarball=${KSRC_TAR:-/usr/src/linux-source-6.12.tar.xz}
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT

good() { grep -q 'define UBLK_F_ZONED' "$1" && grep -q 'UBLK_U_CMD_GET_FEATURES' "$1" &&
	grep -q 'zone_append_lba' "$1"; }

if [ -f "$sys" ] && good "$sys"; then
	cp "$sys" "$tmp"
elif [ -n "${KSRC_DIR:-}" ] && [ -f "$KSRC_DIR/include/uapi/linux/ublk_cmd.h" ]; then
	cp "$KSRC_DIR/include/uapi/linux/ublk_cmd.h" "$tmp"
elif [ -f "$tarball" ]; then
	# --occurrence=1: stop reading the archive at the first match
	tar -xJf "$tarball" --wildcards --occurrence=1 -O '*/include/uapi/linux/ublk_cmd.h' >"$tmp"
else
	echo "ublk-uapi: no zoned ublk UAPI: $sys lacks it and $tarball is missing (run make deps)" >&2
	exit 1
fi
good "$tmp" || { echo "ublk-uapi: the ublk_cmd.h found lacks the zoned ublk definitions" >&2; exit 1; }
mv "$tmp" "$out"
trap - EXIT

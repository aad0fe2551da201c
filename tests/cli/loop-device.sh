#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A non-NVMe, non-zoned block device (a loop device, root needed): every
# command refuses it with exit 3 and one line naming it, and its data is
# unchanged afterwards (nothing was sent).
#   loop-device.sh path/to/nvme-zns-npo2
set -u
BIN=$(realpath "$1")
export BIN
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root for losetup"
	exit 77		# meson reports it as skipped, never as passed
fi
IMG=$TMP/loop.img
head -c $((8 << 20)) /dev/urandom >"$IMG"
LOOP=$(losetup -f --show "$IMG") || { echo "not ok - losetup failed"; exit 1; }
trap 'losetup -d "$LOOP"; rm -rf "$TMP"' EXIT
before=$(sha256sum <"$LOOP")

WHY='not an NVMe namespace or zoned block device'
expect_err 3 "$LOOP" "$WHY" -- report "$LOOP"
expect_err 3 "$LOOP" "$WHY" -- report "$LOOP" -o json
expect_err 3 "$LOOP" "$WHY" -- check "$LOOP"
for cmd in open close finish reset offline; do
	expect_err 3 "$LOOP" "$WHY" -- $cmd "$LOOP" -s 0 -f
	expect_err 3 "$LOOP" "$WHY" -- $cmd "$LOOP" --all --force
done
expect_err 3 "$LOOP" "$WHY" -- reset "$LOOP" -a --dry-run
expect_err 2 "$LOOP" "invalid --start-lba '12x'" -- reset "$LOOP" -s 12x -f

after=$(sha256sum <"$LOOP")
[ "$before" = "$after" ] && ok "loop device data unchanged" || not_ok "loop device data changed"
finish

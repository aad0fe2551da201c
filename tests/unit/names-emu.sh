#!/bin/bash
# Device names as nvme-cli users type them, on emulated namespaces: the
# block node of a namespace the kernel hid (no node, sysfs hidden=1) is
# served through its generic node; a bare kernel name means the node under
# the dev root; a controller node with -n N means namespace N's generic
# node, and without -n stays refused (exit 3) before anything is sent.
#
#   names-emu.sh NVME_ZNS_NPO2 LIBZNPEMU MKFAKE
set -u
# shellcheck source=tests/unit/emu-lib.sh
. "$(dirname "$0")/emu-lib.sh"
emu_begin names-emu "$@"

cat >"$root/emu.conf" <<'CONF'
path=dev/nvme0 kind=ctrl serial=SN-NAMES-0
path=dev/ng0n1 nsid=1 zsze=24576 zones=10
path=dev/ng0n2 nsid=2 zsze=32768 zones=8
path=dev/nvme0n2 kind=nvme twin=ng0n2
CONF
python3 "$MKFAKE" "$root" >/dev/null || { echo "mkfake failed" >&2; exit 1; }
export LD_PRELOAD=$EMU ZNP_EMU_CONFIG=$root/emu.conf ZNP_SYSFS_ROOT=$root/sys \
	ZNP_DEV_ROOT=$root/dev ZNP_RUN_DIR=$root/run LC_ALL=C
D=$root/dev
[ ! -e "$D/nvme0n1" ] && [ "$(cat "$root/sys/block/nvme0n1/hidden")" = 1 ] &&
	ok "setup: nvme0n1 hidden, no node" || bad "setup: nvme0n1 not hidden"

# the geometry each namespace was configured with, in report -o json
geom_is() {	# ZONE_SIZE NSID
	LD_PRELOAD= python3 - "$root/out" "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["zone_size"] == int(sys.argv[2]) and j["nsid"] == int(sys.argv[3]), j
PY
}

# ---- the hidden block node: its generic node ------------------------------------------
t "report /dev/nvme0n1 (hidden): served through ng0n1" 0 "$BIN" report "$D/nvme0n1" -o json -c 1
geom_is 24576 1 && ok "... namespace 1's zones" || bad "... not namespace 1"
t "reset -f -s 0 /dev/nvme0n1 (hidden)" 0 "$BIN" reset -f -s 0 "$D/nvme0n1"
t "check /dev/nvme0n1 (hidden)" 11 "$BIN" check "$D/nvme0n1"
has "... sees the hidden block device" "$root/out" "block device hidden"
# the emulator answers by path: take the generic node out of sysfs instead
mv "$root/sys/class/nvme-generic/ng0n1" "$root/ng0n1.sys"
t "hidden block node, generic node gone: exit 3" 3 "$BIN" report "$D/nvme0n1"
lines "... one line" "$root/err" 1
has "... says why" "$root/err" "nvme0n1: block device hidden by the kernel.*ngXnY"
mv "$root/ng0n1.sys" "$root/sys/class/nvme-generic/ng0n1"

# ---- bare names ------------------------------------------------------------------------
cd "$root" || exit 1
mkdir -p empty && cd empty || exit 1
t "bare ng0n2" 0 "$BIN" report ng0n2 -o json -c 1
geom_is 32768 2 && ok "... namespace 2" || bad "... not namespace 2"
t "bare nvme0n2 (visible)" 0 "$BIN" report nvme0n2 -o json -c 1
geom_is 32768 2 && ok "... namespace 2" || bad "... not namespace 2"
t "bare nvme0n1 (hidden)" 0 "$BIN" report nvme0n1 -o json -c 1
geom_is 24576 1 && ok "... namespace 1" || bad "... not namespace 1"
t "bare name of nothing: exit 3" 3 "$BIN" report ng9n9
has "... no such device, named as typed" "$root/err" "^nvme-zns-npo2: ng9n9: no such device$"
# a file of that name in the working directory is what was meant
: >ng0n2
t "./ng0n2 is a regular file here: exit 3" 3 "$BIN" report ng0n2
has "... not a device" "$root/err" "ng0n2: not a block or character device"
rm -f ng0n2
cd "$root" || exit 1

# ---- controller node and -n ------------------------------------------------------------
t "/dev/nvme0 -n 1" 0 "$BIN" report "$D/nvme0" -n 1 -o json -c 1
geom_is 24576 1 && ok "... namespace 1" || bad "... not namespace 1"
t "/dev/nvme0 -n 2" 0 "$BIN" report "$D/nvme0" -n 2 -o json -c 1
geom_is 32768 2 && ok "... namespace 2" || bad "... not namespace 2"
t "bare nvme0 --namespace-id=2" 0 "$BIN" report nvme0 --namespace-id=2 -o json -c 1
geom_is 32768 2 && ok "... namespace 2" || bad "... not namespace 2"
t "/dev/nvme0 -n 3: no such namespace, exit 3" 3 "$BIN" report "$D/nvme0" -n 3
has "... says so" "$root/err" "nvme0: controller has no namespace with that ID"
for cmd in report "reset -f -a" "finish -f -s 0" "discard -f --offset 0 --length 4096"; do
	# shellcheck disable=SC2086 # the command's words
	t "$cmd /dev/nvme0 without -n: refused, exit 3" 3 "$BIN" $cmd "$D/nvme0"
	has "... controller node" "$root/err" "is an NVMe controller node"
done
t "/dev/nvme0n2 -n 1: still a guard, exit 3" 3 "$BIN" report "$D/nvme0n2" -n 1
has "... names both" "$root/err" "is namespace 2, not 1"
t "/dev/ng0n2 -n 2 passes the guard" 0 "$BIN" report "$D/ng0n2" -n 2 -c 1

emu_end names-emu

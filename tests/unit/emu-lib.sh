# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Shared by the shell tests that run the binary against emulated namespaces
# (map-emu.sh, ublk-emu.sh); sourced after `set -u` with the script's own
# arguments NVME_ZNS_NPO2 LIBZNPEMU MKFAKE.
#
#   emu_begin NAME BIN EMU MKFAKE   sets BIN, EMU, MKFAKE (absolute paths) and
#                                   root, a fresh /tmp/znp-NAME.XXXXXX removed
#                                   at exit (kept when KEEP is set)
#   ok [DESC], bad DESC             a pass, a failure: "ok N - DESC",
#                                   "not ok N - DESC" (tests/lib/tap.sh)
#   t DESC WANT_RC CMD...           run CMD, stdout/stderr in $root/out, $root/err
#   has DESC FILE ERE               FILE has a line matching ERE
#   lines DESC FILE N               FILE has exactly N lines
#   emu_end NAME                    the plan and "# NAME: P passed, F failed";
#                                   Return: 0 when something passed and
#                                   nothing failed

# shellcheck source=../lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

emu_begin() {
	BIN=$(realpath "$2") EMU=$(realpath "$3") MKFAKE=$(realpath "$4")
	root=$(mktemp -d "/tmp/znp-$1.XXXXXX")
	# shellcheck disable=SC2064 # expanded now: the directory of this run
	trap "[ -n \"${KEEP:-}\" ] || rm -rf \"$root\"" EXIT
}

ok() { tap_ok "$@"; }
bad() { tap_not_ok "$*"; }

t() {
	local desc=$1 want=$2 rc
	shift 2
	"$@" >"$root/out" 2>"$root/err"
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else
		bad "$desc: exit $rc, want $want"
		cat "$root/err" "$root/out" | tap_diag_file - 8
	fi
}

has() {
	if grep -Eq -- "$3" "$2"; then ok "$1"; else bad "$1: /$3/ not in: $(head -3 "$2")"; fi
}

lines() {
	local n
	n=$(wc -l <"$2")
	if [ "$n" = "$3" ]; then ok "$1"; else bad "$1: $n lines, want $3"; fi
}

emu_end() {
	tap_done "$1"
}

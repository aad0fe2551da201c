# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# The result printing of every shell test (TAP style), sourced by
# tests/cli/lib.sh, tests/unit/emu-lib.sh and tests/vm/guest/lib.sh (copied
# into the VM initramfs as /vm/tap.sh). POSIX sh: runs under bash and
# busybox ash.
#
#   tap_ok [DESC]               "ok N - DESC" ("ok N" without one)
#   tap_not_ok DESC [DIAG...]   "not ok N - DESC", then "#   DIAG" per argument
#   tap_diag TEXT...            "# TEXT"
#   tap_diag_file FILE [N]      the first N (20) lines of FILE as "#   | line"
#   tap_plan N                  "1..N" (a plan up front; tap_done prints one
#                               at the end otherwise)
#   tap_done [NAME]             "1..N" (unless planned) and the closing
#                               "# NAME: P passed, F failed"; Return: 0 when
#                               something passed and nothing failed (and the
#                               plan, if any, was met)
#
# Counters: TAP_N (tests so far), TAP_PASS, TAP_FAIL. With TAP_RESULTS set
# to a file, every ok/not ok line is appended to it too: the VM guest's
# /init counts /tmp/vm-results, since guest checks also run in subshells
# (pipelines) whose counters are lost.

[ -n "${TAP_LOADED:-}" ] && return 0
TAP_LOADED=1
TAP_N=0
TAP_PASS=0
TAP_FAIL=0
TAP_PLANNED=

tap_line_() {
	echo "$*"
	if [ -n "${TAP_RESULTS:-}" ]; then echo "$*" >>"$TAP_RESULTS"; fi
}

tap_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_PASS=$((TAP_PASS + 1))
	if [ $# -gt 0 ]; then tap_line_ "ok $TAP_N - $*"; else tap_line_ "ok $TAP_N"; fi
}

tap_not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAIL=$((TAP_FAIL + 1))
	tap_line_ "not ok $TAP_N - $1"
	shift
	for tap_d_ in "$@"; do
		echo "#   $tap_d_"
	done
	return 0
}

tap_diag() {
	echo "# $*"
}

tap_diag_file() {
	sed 's/^/#   | /' "$1" | head -n "${2:-20}"
}

tap_plan() {
	TAP_PLANNED=$1
	echo "1..$1"
}

tap_done() {
	[ -n "$TAP_PLANNED" ] || echo "1..$TAP_N"
	echo "# ${1:+$1: }$TAP_PASS passed, $TAP_FAIL failed"
	if [ -n "$TAP_PLANNED" ] && [ "$TAP_PLANNED" != "$TAP_N" ]; then
		echo "# planned $TAP_PLANNED tests, ran $TAP_N"
		return 1
	fi
	[ "$TAP_FAIL" -eq 0 ] && [ "$TAP_PASS" -gt 0 ]
}

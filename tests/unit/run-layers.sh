#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/run-layers.sh on fake layers: a pass, a failure and a skip (exit 77)
# are each reported as such; a skip is listed, never counted as a pass, and
# fails the run unless ZNP_ALLOW_SKIP=1.
set -u
. "$(dirname "$0")/../lib/tap.sh"
runner=$(realpath "$(dirname "$0")/../../scripts/run-layers.sh")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/l"
mklayer() { printf '#!/bin/bash\necho "layer %s"\nexit %s\n' "$1" "$2" >"$tmp/l/$1.sh"; }

# run DESC WANT_RC [VAR=VALUE...]: the runner on $tmp/l, output in $tmp/out
run() {
	local desc=$1 want=$2 rc
	shift 2
	env ZNP_LAYERS_DIR="$tmp/l" ZNP_TEST_LOGS="$tmp/logs" "$@" bash "$runner" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then tap_ok "$desc: exit $rc"; else
		tap_not_ok "$desc: exit $rc, want $want"
		tap_diag_file "$tmp/out"
	fi
}
# has DESC ERE: a line of the runner's output matches ERE
has() {
	if grep -Eq -- "$2" "$tmp/out"; then tap_ok "$1"; else
		tap_not_ok "$1: /$2/ not in the output"
		tap_diag_file "$tmp/out"
	fi
}

mklayer 10-a 0
mklayer 20-b 0
run "two passing layers" 0
has "two passing layers: final line" '^layers: 2 passed, 0 failed$'

mklayer 30-c 77
run "a skipped layer fails the run" 1
has "skip reported" '^=== layer 30-c: SKIP '
has "skip listed by name" '^skipped layers \(not passed\): 30-c$'
has "skip not counted as a pass" '^layers: 2 passed, 0 failed, 1 skipped$'
run "ZNP_ALLOW_SKIP=1 lets a skip through" 0 ZNP_ALLOW_SKIP=1
has "ZNP_ALLOW_SKIP=1: still listed" '^skipped layers \(not passed\): 30-c$'

mklayer 40-d 3
run "a failed layer fails the run, ZNP_ALLOW_SKIP or not" 1 ZNP_ALLOW_SKIP=1
has "failure reported with its status" '^=== layer 40-d: FAIL rc=3 '
has "failure listed" '^failed layers: 40-d '
has "counts" '^layers: 2 passed, 1 failed, 1 skipped$'
if grep -q '^layer 40-d$' "$tmp/logs/40-d.log" 2>/dev/null; then
	tap_ok "each layer's output in its log"
else
	tap_not_ok "no log of layer 40-d"
fi
tap_done run-layers

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/docs/layers.py fails on each kind of drift, on a copy of the tree's
# layer files and READMEs: a layer file missing from README.md's table, a
# table row without a file, two layers with one number, a stale "Layer 5b".
set -u
. "$(dirname "$0")/../lib/tap.sh"
src=$(realpath "$1")
check=$(dirname "$(realpath "$0")")/layers.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fresh() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/tests"
	cp -r "$src/tests/layers.d" "$tmp/t/tests/"
	cp "$src/README.md" "$tmp/t/"
}
# expect DESC ERE: layers.py fails on the copy, saying ERE
expect() {
	if python3 "$check" "$tmp/t" >"$tmp/out" 2>&1; then
		tap_not_ok "$1: layers.py passed"
	elif ! grep -Eq -- "$2" "$tmp/out"; then
		tap_not_ok "$1: layers.py failed without /$2/"
		tap_diag_file "$tmp/out"
	else
		tap_ok "$1"
	fi
}

fresh
if python3 "$check" "$tmp/t" >"$tmp/out" 2>&1; then tap_ok "an unmodified copy passes"; else
	tap_not_ok "an unmodified copy fails"
	tap_diag_file "$tmp/out"
fi
fresh
printf '#!/bin/bash\nexit 0\n' >"$tmp/t/tests/layers.d/99-vm-new.sh"
expect "a new layer file without a README row" 'missing 99-vm-new'
fresh
first=$(ls "$tmp/t/tests/layers.d" | head -1)
rm "$tmp/t/tests/layers.d/$first"
expect "a README row without a layer file" "no file for ${first%.sh}"
fresh
cp "$tmp/t/tests/layers.d/$first" "$tmp/t/tests/layers.d/${first:0:2}-other.sh"
expect "two layers with one number" "shared: ${first:0:2} "
fresh
sed -i '2s/.*/# Layer 5b: something/' "$tmp/t/tests/layers.d/$first"
expect "an old-style layer number in a header" '"Layer 5b"'
tap_done layers-selftest

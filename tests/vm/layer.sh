# SPDX-License-Identifier: GPL-2.0-or-later
# Host-side helpers of the VM test layers (tests/layers.d/NN-vm-*.sh; bash,
# sourced from the repository root).

# layer_report LAYER LOG RC START: print the guest's result lines from the
# console LOG and its GUEST-RESULT line with the seconds since START; RC is
# tests/vm/vm-run.sh's exit status. Returns 1 if RC is not 0.
layer_report() {
	local layer=$1 log=$2 rc=$3 start=$4
	grep -aE '^(ok|not ok|#)' "$log" | grep -av '^### ' || true
	echo "$layer: $(grep -a '^GUEST-RESULT' "$log" | tail -1), $((SECONDS - start)) s"
	if [ "$rc" -ne 0 ]; then
		echo "$layer: FAILED; console log: $log"
		return 1
	fi
	echo "$layer: console log: $log"
}

# layer_totals LOG...: "P guest checks passed, F failed", summed over the
# GUEST-RESULT lines of the console logs (a missing log or line counts 0)
layer_totals() {
	local l r p f tot_p=0 tot_f=0
	for l in "$@"; do
		r=$(grep -a '^GUEST-RESULT: ' "$l" 2>/dev/null | tail -1)
		p=$(echo "$r" | sed -nE 's/GUEST-RESULT: ([0-9]+) passed.*/\1/p')
		f=$(echo "$r" | sed -nE 's/.* ([0-9]+) failed.*/\1/p')
		tot_p=$((tot_p + ${p:-0})) tot_f=$((tot_f + ${f:-0}))
	done
	echo "$tot_p guest checks passed, $tot_f failed"
}

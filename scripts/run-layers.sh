#!/bin/bash
# Run every test layer of `make test` in order: tests/layers.d/NN-*.sh.
# A layer passes with exit 0 and fails with any other status but 77, which
# is a skip: reported as SKIP, listed by name at the end and never counted
# as a pass. A skip fails the run too (every layer must be able to run on
# this machine type) unless ZNP_ALLOW_SKIP=1 is set, for a developer's
# partial run; CI never sets it. See tests/README.md.
# ZNP_LAYERS_DIR and ZNP_TEST_LOGS replace tests/layers.d and
# build/test-logs (tests/unit/run-layers.sh runs the script on fake layers).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
layers=${ZNP_LAYERS_DIR:-tests/layers.d}
logdir=${ZNP_TEST_LOGS:-build/test-logs}
mkdir -p "$logdir"
pass=0 fail=0 skip=0 failed=() skipped=()

# The patched kernel (layer 60 and every layer after it) is built in the
# background from the start, under SCHED_IDLE: it runs only on a CPU that
# nothing else wants, i.e. on what the layers before it leave idle (a VM
# under TCG runs on one core of two), and never delays them.
# Layer 60 waits for it and fails if it failed. ZNP_KERNEL_BG=0 turns this
# off, 1 on; by default it is on unless ZNP_LAYERS_DIR names other layers.
[ -n "${ZNP_LAYERS_DIR:-}" ] && kbg_default=0 || kbg_default=1
if [ "${ZNP_KERNEL_BG:-$kbg_default}" = 1 ] && [ -e "$layers/60-kernel.sh" ]; then
	export ZNP_KERNEL_BG_RC=$logdir/kernel-build.rc ZNP_KERNEL_BG_LOG=$logdir/kernel-build.log
	rm -f "$ZNP_KERNEL_BG_RC"
	setsid bash -c 'chrt --idle -p 0 $$ 2>/dev/null || renice -n 19 $$ >/dev/null
		bash scripts/kernel-build.sh >"$ZNP_KERNEL_BG_LOG" 2>&1
		echo $? >"$ZNP_KERNEL_BG_RC"' </dev/null &
	export ZNP_KERNEL_BG_PID=$!
	# its own session: the whole build goes with the run
	trap 'kill -- -"$ZNP_KERNEL_BG_PID" 2>/dev/null' EXIT
	echo "=== the patched kernel builds in the background (log: $ZNP_KERNEL_BG_LOG)"
fi
for layer in "$layers"/[0-9]*.sh; do
	[ -e "$layer" ] || continue
	name=$(basename "$layer" .sh)
	echo "=== layer $name"
	start=$SECONDS
	bash "$layer" 2>&1 | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "=== layer $name: PASS ($((SECONDS - start)) s)"
	elif [ "$rc" -eq 77 ]; then
		skip=$((skip + 1))
		skipped+=("$name")
		echo "=== layer $name: SKIP ($((SECONDS - start)) s), log: $logdir/$name.log"
	else
		fail=$((fail + 1))
		failed+=("$name")
		echo "=== layer $name: FAIL rc=$rc ($((SECONDS - start)) s), log: $logdir/$name.log"
	fi
done
echo
[ ${#failed[@]} -eq 0 ] || echo "failed layers: ${failed[*]} (logs in $logdir/, VM console logs in build/vm-logs/)"
if [ ${#skipped[@]} -gt 0 ]; then
	echo "skipped layers (not passed): ${skipped[*]}"
	[ "${ZNP_ALLOW_SKIP:-}" = 1 ] || echo "a skipped layer fails the run (ZNP_ALLOW_SKIP=1 allows it)"
fi
echo "layers: $pass passed, $fail failed$([ "$skip" -gt 0 ] && echo ", $skip skipped")"
[ "$fail" -eq 0 ] || exit 1
[ "$skip" -eq 0 ] || [ "${ZNP_ALLOW_SKIP:-}" = 1 ]

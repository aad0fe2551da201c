#!/bin/bash
# Run every test layer of `make test` in order: tests/layers.d/NN-*.sh.
# A layer passes with exit 0; anything else (77 "skip" included) fails:
# every layer must be able to run on this machine type.
set -uo pipefail
cd "$(dirname "$0")/.."
logdir=build/test-logs
mkdir -p "$logdir"
pass=0 fail=0 failed=()
for layer in tests/layers.d/[0-9]*.sh; do
	name=$(basename "$layer" .sh)
	echo "=== layer $name"
	start=$SECONDS
	bash "$layer" 2>&1 | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "=== layer $name: PASS ($((SECONDS - start)) s)"
	else
		fail=$((fail + 1))
		failed+=("$name")
		echo "=== layer $name: FAIL rc=$rc ($((SECONDS - start)) s), log: $logdir/$name.log"
	fi
done
echo
[ ${#failed[@]} -eq 0 ] || echo "failed layers: ${failed[*]} (logs in $logdir/, VM console logs in build/vm-logs/)"
echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

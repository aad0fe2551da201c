#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the CLI tests (tests/cli: bad input, golden output against the
# emulator) with every invocation of the binary under valgrind memcheck
# (the fault and adversarial tests run under ASan + UBSan in build-asan): an error or a leak makes that invocation
# exit 99, which the tests see as a wrong exit code; the logs are checked
# again afterwards.
#   tests/fuzz/valgrind.sh BUILD_DIR      (normal build, not the ASan one)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
V=$B/valgrind
rm -rf "$V"
mkdir -p "$V/logs"
V=$(realpath "$V")
BIN=$(realpath "$B/nvme-zns-npo2")
EMU=$(realpath "$B/tests/emu/libznpemu.so")
WRAP=$V/nvme-zns-npo2
cat >"$WRAP" <<WRAP
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,possible \\
	--errors-for-leak-kinds=definite,possible --track-fds=no \\
	--log-file=$V/logs/%p.log "$BIN" "\$@"
WRAP
chmod +x "$WRAP"

fail=0
run() {
	local name=$1
	shift
	if "$@" >"$V/$name.out" 2>&1; then
		echo "valgrind: $name: $(grep -c '^ok' "$V/$name.out") checks passed"
	else
		echo "valgrind: $name: FAILED"
		grep -v '^ok' "$V/$name.out" | head -20
		return 1
	fi
}
export LC_ALL=C
run cli-bad-input bash tests/cli/bad-input.sh "$WRAP" &
run cli-emu-golden python3 tests/cli/emu-cli.py "$WRAP" "$EMU" tests/emu/mkfake.py tests/cli/golden/emu &
wait %1 || fail=1
wait %2 || fail=1
n=$(ls "$V/logs" | wc -l)
bad=$(grep -l . "$V/logs"/*.log 2>/dev/null || true)
if [ -n "$bad" ]; then
	fail=1
	echo "valgrind reported errors:"
	head -40 $bad
fi
echo "valgrind: $n invocations of nvme-zns-npo2, $(echo -n "$bad" | grep -c . || true) with reports"
exit $fail

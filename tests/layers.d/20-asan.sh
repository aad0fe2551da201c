#!/bin/bash
# Layer 20: the unit, emulator and CLI tests again, built with
# AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, gcc), any
# report fatal; then the CLI tests' binary invocations under valgrind
# memcheck (the normal build).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build-asan
if [ ! -f $B/build.ninja ]; then
	meson setup $B -Db_sanitize=address,undefined -Db_lundef=false -Ddocs=disabled \
		-Dc_args=-fno-sanitize-recover=all --buildtype=debugoptimized >/dev/null
fi
nice -n 5 ninja -C $B >$B/ninja.log 2>&1 || { tail -40 $B/ninja.log; exit 1; }

# The emulator (LD_PRELOAD) comes before libasan in the library list of
# every test program; ASan only insists on being first, it works either way.
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:verify_asan_link_order=0:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
meson test -C $B --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
	--suite unit --suite emu --suite cli --suite fuzz --suite faults --suite adversarial
skips=0
python3 tests/lib/meson-skips.py $B || skips=$?
[ $skips -eq 0 ] || [ $skips -eq 77 ] || exit 1

bash tests/fuzz/valgrind.sh build
[ $skips -eq 0 ] || exit 77

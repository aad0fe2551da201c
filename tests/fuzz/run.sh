#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the libFuzzer targets with clang (build-fuzz/, ASan + UBSan, coverage
# on the library code too) and run each for a bounded time.
#   tests/fuzz/run.sh [--time SEC] [--runs N] [TARGET...]
# Defaults: every target (tests/fuzz/fuzz-*.c), 60 s each (`make fuzz`);
# layer 25 uses --time 15. The working corpus grows in build-fuzz/corpus/,
# seeded from tests/fuzz/corpus/; a crash leaves its input in
# build-fuzz/artifacts/TARGET/ and fails the run (copy it to
# tests/fuzz/regress/TARGET/ once fixed: replay-TARGET runs it in meson test).
# Prints "TARGET: N executions, T s" per target.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=60 runs=-1 targets=()
while [ $# -gt 0 ]; do
	case $1 in
	--time) secs=$2; shift 2 ;;
	--runs) runs=$2; secs=0; shift 2 ;;
	-*) echo "usage: $0 [--time SEC] [--runs N] [TARGET...]" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz-*.c; do
		t=$(basename "$f" .c)
		targets+=("${t#fuzz-}")
	done
fi

B=${ZNP_FUZZ_BUILD:-build-fuzz}
if [ ! -f $B/build.ninja ]; then
	CC=clang meson setup $B -Dfuzz=true -Ddocs=disabled --buildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' >$B.setup.log 2>&1 ||
		{ cat $B.setup.log; exit 1; }
	mv $B.setup.log $B/
fi
# a build dir configured before a target was added lacks it: reconfigure
for t in "${targets[@]}"; do
	[ -f tests/fuzz/fuzz-$t.c ] || { echo "no fuzz target $t" >&2; exit 2; }
	if ! ninja -C $B -t targets all 2>/dev/null | grep -q "^tests/fuzz/fuzz-$t:"; then
		meson setup --reconfigure $B >$B/reconfigure.log 2>&1 ||
			{ cat $B/reconfigure.log; exit 1; }
		break
	fi
done
ninja -C $B $(printf 'tests/fuzz/fuzz-%s ' "${targets[@]}") >$B/ninja.log 2>&1 ||
	{ tail -50 $B/ninja.log; exit 1; }

export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fail=0
for t in "${targets[@]}"; do
	mkdir -p $B/corpus/$t $B/artifacts/$t
	log=$B/fuzz-$t.log
	args=(-timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1
	      -artifact_prefix=$B/artifacts/$t/)
	[ "$runs" -ge 0 ] && args+=(-runs="$runs") || args+=(-max_total_time="$secs")
	start=$SECONDS
	rc=0
	$B/tests/fuzz/fuzz-$t "${args[@]}" $B/corpus/$t tests/fuzz/corpus/$t >$log 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' $log | tail -1)
	echo "$t: ${execs:-?} executions, $((SECONDS - start)) s, corpus $(ls $B/corpus/$t | wc -l) files"
	if [ $rc -ne 0 ]; then
		fail=1
		echo "$t: FAILED (rc $rc), input in $B/artifacts/$t/:"
		grep -E 'ERROR|invariant|runtime error|SUMMARY' $log | head -5
	fi
done
exit $fail

# KUnit suites built into the patched kernel (busybox ash; sourced after
# tests/vm/guest/lib.sh). The kernel runs them at boot and prints their
# results in KTAP to the kernel log: per suite a top-level result
# "ok N SUITE", the count of its test cases in "# SUITE: pass:P fail:F
# skip:S total:T" and, in the "# Totals: ..." line after it, the count of
# every result, one per parameter of a parameterised case.

[ -n "${KUNIT_LOADED:-}" ] && return 0
KUNIT_LOADED=1

# kunit_check SUITE:CASES:RESULTS...: no KTAP result of the log is "not ok",
# and each SUITE ran and passed with exactly CASES test cases and RESULTS
# results, none failed or skipped (a skip is not a pass).
kunit_check() {
	local log=/tmp/kunit.log spec suite cases results res st tot
	dmesg | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' >"$log"
	if grep -Eq '^ *not ok [0-9]+ ' "$log"; then
		not_ok "kunit: no KTAP result is 'not ok'" \
			"$(grep -E '^ *not ok [0-9]+ ' "$log" | head -5)"
	else
		ok "kunit: no KTAP result is 'not ok'"
	fi
	for spec in "$@"; do
		suite=${spec%%:*} cases=${spec#*:}
		results=${cases#*:} cases=${cases%%:*}
		res=$(awk -v s="$suite" '$0 ~ "^(not )?ok [0-9]+ " s "$" { print }' "$log")
		st=$(grep -E "^# $suite: pass:" "$log" | tail -1)
		tot=$(awk -v s="$suite" '
			$0 ~ "^# " s ": pass:" { want = 1; next }
			want && /^# Totals: / { t = $0; want = 0 }
			END { print t }' "$log")
		vm_log "kunit $suite: ${res:-no result}; ${st#"# "}; ${tot#"# "}"
		expect_match "kunit $suite: the suite ran and passed" \
			"^ok [0-9]+ $suite\$" "$res"
		expect_eq "kunit $suite: $cases test cases passed, none failed or skipped" \
			"$st" "# $suite: pass:$cases fail:0 skip:0 total:$cases"
		expect_eq "kunit $suite: $results results (with parameters) passed" \
			"$tot" "# Totals: pass:$results fail:0 skip:0 total:$results"
	done
}

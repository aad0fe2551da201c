# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for CLI tests: run the binary, check exit code, stdout, stderr.
# Sourced; $BIN is the binary under test.

PASS=0
FAIL=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/stdout
ERR=$TMP/stderr

ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }

# run ARGS...: run the binary, set $RC, capture stdout/stderr
run() {
	RC=0
	"$BIN" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

# json_error_ok CODE SUBJECT LINE: stdout ($OUT) is one JSON document
# {"error": {...}} saying what the stderr LINE says: exit_code CODE, device
# SUBJECT (null when SUBJECT is the command), message the LINE's problem, and
# errno/nvme_status numbers (at most one of them) with their names.
json_error_ok() {
	python3 - "$OUT" "$1" "$2" "$3" "${CMD_NAME:-}" 2>"$TMP/jerr" <<'PY'
import json, sys
out, code, subject, line, cmd = sys.argv[1:6]
doc = json.load(open(out))
assert list(doc) == ['error'], 'keys %s' % list(doc)
e = doc['error']
want = ['errno', 'errno_name', 'nvme_status', 'nvme_status_name', 'device', 'message', 'exit_code']
assert list(e) == want, 'error keys %s' % list(e)
assert e['exit_code'] == int(code), 'exit_code %r' % e['exit_code']
assert e['device'] == (None if subject == cmd else subject), 'device %r' % e['device']
assert line.endswith(': ' + e['message']), 'message %r, line %r' % (e['message'], line)
assert e['errno'] is None or e['nvme_status'] is None, 'both errno and nvme_status'
for k in ('errno', 'nvme_status'):
    assert (e[k] is None) == (e[k + '_name'] is None), k
    assert e[k] is None or (isinstance(e[k], int) and e[k] > 0), k
PY
}

# expect_err CODE SUBJECT PROBLEM_REGEX -- ARGS...
# The documented exit code, exactly one line on stderr:
# "nvme-zns-npo2: SUBJECT: PROBLEM" with PROBLEM matching the regex; nothing
# on stdout, or with -o json the error as one JSON document (json_error_ok).
expect_err() {
	local code=$1 subject=$2 re=$3 desc line json=0 a prev=
	shift 4
	desc="$* -> exit $code"
	for a in "$@"; do
		[ "$prev $a" = "-o json" ] && json=1
		prev=$a
	done
	CMD_NAME=$1
	run "$@"
	line=$(cat "$ERR")
	if [ "$RC" -ne "$code" ]; then
		not_ok "$desc: exit $RC, stderr: $line"
	elif [ $json = 0 ] && [ -s "$OUT" ]; then
		not_ok "$desc: unexpected stdout: $(head -c 200 "$OUT")"
	elif [ $json = 1 ] && ! json_error_ok "$code" "$subject" "$line"; then
		not_ok "$desc: stdout is not the error as JSON: $(tail -n 1 "$TMP/jerr"): $(head -c 300 "$OUT")"
	elif [ "$(wc -l <"$ERR")" -ne 1 ]; then
		not_ok "$desc: stderr is not one line: $line"
	elif [[ "$line" != "nvme-zns-npo2: $subject: "* ]]; then
		not_ok "$desc: error does not name '$subject': $line"
	elif ! grep -Eq -- "$re" <<<"${line#"nvme-zns-npo2: $subject: "}"; then
		not_ok "$desc: problem does not match /$re/: $line"
	else
		ok "$desc ($line)"
	fi
}

# expect_ok CODE ARGS...: exit code CODE and nothing on stderr
expect_rc() {
	local code=$1
	shift
	run "$@"
	if [ "$RC" -ne "$code" ] || [ -s "$ERR" ]; then
		not_ok "$* -> exit $code: got $RC, stderr: $(cat "$ERR")"
	else
		ok "$* -> exit $code"
	fi
}

# json_ok FILE: one valid JSON document
json_ok() {
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>"$TMP/jerr"
}

finish() {
	echo "# $PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ] && [ "$PASS" -gt 0 ]
}

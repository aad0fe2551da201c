# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for CLI tests: run the binary, check exit code, stdout, stderr.
# Sourced; $BIN is the binary under test. Results print through
# tests/lib/tap.sh ("ok N - ...", "not ok N - ...", a closing count).

# shellcheck source=../lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/stdout
ERR=$TMP/stderr

ok() { tap_ok "$*"; }
not_ok() { tap_not_ok "$*"; }

# run ARGS...: run the binary, set $RC, capture stdout/stderr
run() {
	RC=0
	"$BIN" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

# expect_err CODE SUBJECT PROBLEM_REGEX -- ARGS...
# The documented exit code, nothing on stdout, exactly one line on stderr:
# "nvme-zns-npo2: SUBJECT: PROBLEM" with PROBLEM matching the regex.
expect_err() {
	local code=$1 subject=$2 re=$3 desc line
	shift 4
	desc="$* -> exit $code"
	run "$@"
	line=$(cat "$ERR")
	if [ "$RC" -ne "$code" ]; then
		not_ok "$desc: exit $RC, stderr: $line"
	elif [ -s "$OUT" ]; then
		not_ok "$desc: unexpected stdout: $(head -c 200 "$OUT")"
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

# expect_rc CODE ARGS...: exit code CODE and nothing on stderr
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

# finish: the plan and the closing count; Return: 0 when something passed
# and nothing failed
finish() {
	tap_done
}

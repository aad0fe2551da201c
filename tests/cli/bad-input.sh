#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input to the real binary: each gives one line on stderr naming the
# device (or the command when there is none) and the problem, the
# documented exit code, and nothing on stdout (with -o json: the same error
# as one JSON document, checked by tests/cli/lib.sh's json_error_ok).
#   bad-input.sh path/to/nvme-zns-npo2
set -u
BIN=$(realpath "$1")
export BIN
. "$(dirname "$0")/lib.sh"

REG=$TMP/regular-file
printf 'not a device' >"$REG"
DIR=$TMP
NOPE=/dev/znp-no-such-device

# Unsuitable devices: exit 3
for cmd in report check; do
	expect_err 3 "$NOPE" 'no such device' -- $cmd "$NOPE"
	expect_err 3 "$REG" 'not a block or character device' -- $cmd "$REG"
	expect_err 3 "$DIR" 'not a block or character device' -- $cmd "$DIR"
	expect_err 3 /dev/null 'not an NVMe namespace or zoned block device' -- $cmd /dev/null
done
for cmd in open close finish reset offline; do
	expect_err 3 /dev/null 'not an NVMe namespace or zoned block device' -- \
		$cmd /dev/null -s 0 -f
	expect_err 3 "$NOPE" 'no such device' -- $cmd "$NOPE" --all --force
done
expect_err 3 /dev/null 'not an NVMe' -- reset /dev/null -s 0 --dry-run
expect_err 3 /dev/zero 'not an NVMe' -- report /dev/zero -o json
expect_err 3 "$NOPE" 'no such device' -- check "$NOPE" -o json
expect_err 3 /dev/null 'not an NVMe namespace' -- reset /dev/null --all -f -o json
expect_err 2 report 'missing argument <device>' -- report -o json
expect_err 2 "$NOPE" "unexpected argument 'x'" -- report -o json "$NOPE" x
# the device must not have changed
[ "$(cat "$REG")" = 'not a device' ] && ok "regular file untouched" || not_ok "regular file changed"

# Garbage numbers: exit 2, before the device is looked at
expect_err 2 /dev/null "invalid --start-lba '12x': unknown suffix" -- report /dev/null -s 12x
expect_err 2 /dev/null "invalid --start-lba '-1': negative" -- report /dev/null -s -1
expect_err 2 /dev/null "invalid --count '-1': negative" -- reset /dev/null -s 0 -c -1 -f
expect_err 2 /dev/null "invalid --start-lba '18446744073709551616': out of range" -- \
	open /dev/null --start-lba 18446744073709551616
expect_err 2 /dev/null "invalid --start-lba '0x10000000000000000': out of range" -- \
	open /dev/null --start-lba=0x10000000000000000
expect_err 2 /dev/null "invalid --count '99999999999999999999': out of range" -- \
	report /dev/null -c 99999999999999999999
expect_err 2 /dev/null "invalid --count '16E': out of range" -- report /dev/null -c 16E
expect_err 2 /dev/null "invalid --count '': empty" -- report /dev/null -c ''
expect_err 2 /dev/null "invalid --start-lba '1.5': trailing garbage" -- report /dev/null -s 1.5
expect_err 2 /dev/null "invalid --start-lba ' 1': not a number" -- report /dev/null -s ' 1'
expect_err 2 /dev/null "invalid --namespace-id '4294967296': out of range" -- \
	check /dev/null -n 4294967296
expect_err 2 "$NOPE" "invalid --start-lba 'abc': not a number" -- reset "$NOPE" -s abc -f

# Unknown state names / formats / options
expect_err 2 /dev/null "invalid --state 'opened': unknown zone state" -- report /dev/null -S opened
expect_err 2 /dev/null "invalid --state '9': unknown zone state" -- report /dev/null --state 9
expect_err 2 /dev/null "invalid --output-format 'xml'" -- report /dev/null -o xml
expect_err 2 /dev/null "invalid --output-format 'JSON'" -- check /dev/null -o JSON
expect_err 2 /dev/null '--bogus: unknown option' -- report /dev/null --bogus
expect_err 2 /dev/null '-Z: unknown option' -- report /dev/null -Z
expect_err 2 /dev/null '-S: unknown option' -- reset /dev/null -S full
expect_err 2 /dev/null '--force: takes no argument' -- reset /dev/null --force=yes
expect_err 2 /dev/null '--sta: ambiguous option: --start-lba --state' -- report /dev/null --sta 0
expect_err 2 list '-s: unknown option' -- list -s 0
# ... and with -o json anywhere on the line: the same error as one JSON object
expect_err 2 /dev/null '--bogus: unknown option' -- report /dev/null -o json --bogus
expect_err 2 /dev/null '-Z: unknown option' -- report -Z /dev/null -o json
expect_err 2 /dev/null "invalid --start-lba 'abc': not a number" -- report /dev/null --start-lba abc -o json
expect_err 2 report '--start-lba: requires an argument' -- report -o json --start-lba
expect_err 2 /dev/null '--force: takes no argument' -- reset /dev/null -o json --force=yes
expect_err 2 list '-s: unknown option' -- list -o json -s 0

# Missing or extra arguments
for cmd in report check open close finish reset offline; do
	expect_err 2 $cmd 'missing argument <device>' -- $cmd
done
expect_err 2 /dev/null '-s: requires an argument' -- report /dev/null -s
expect_err 2 /dev/null '--count: requires an argument' -- report /dev/null --count
expect_err 2 /dev/null "unexpected argument 'extra'" -- report /dev/null extra
expect_err 2 list "unexpected argument 'extra'" -- list extra
expect_err 2 /dev/null 'missing --start-lba, --all or --zone' -- reset /dev/null -f
expect_err 2 /dev/null 'missing --start-lba, --all or --zone' -- open /dev/null
expect_err 2 /dev/null 'cannot be combined' -- reset /dev/null -a -s 0 -f
expect_err 2 /dev/null 'cannot be combined' -- close /dev/null --select-all -c 2
expect_err 2 /dev/null 'count must be at least 1' -- open /dev/null -s 0 -c 0
# more arguments than a command takes: the first extra one is named, nothing
# is opened (map takes at most 4 devices: a fifth is not dropped silently)
expect_err 2 "$NOPE" "^unexpected argument 'e'$" -- map "$NOPE" b c d e --name n
expect_err 2 "$NOPE" "^unexpected argument 'f'$" -- map "$NOPE" b c d f g h --name n
expect_err 2 "$NOPE" "^unexpected argument 'x'$" -- unmap "$NOPE" x
expect_err 2 "$NOPE" "^unexpected argument 'x'$" -- status "$NOPE" x
expect_err 2 report "^unexpected argument 'x'$" -- help report x
expect_err 2 version "^unexpected argument 'x'$" -- version x
# option dependencies from the command table: checked before the device
expect_err 2 "$NOPE" '^--all cannot be combined with --start-lba$' -- reset "$NOPE" -a -s 0 -f
expect_err 2 "$NOPE" '^--all cannot be combined with --count$' -- open "$NOPE" --all -c 2
expect_err 2 "$NOPE" '^missing --start-lba, --all or --zone$' -- finish "$NOPE" -f
expect_err 2 "$NOPE" '^--ranges cannot be combined with --length$' -- \
	discard "$NOPE" -r - -l 4096 -f
expect_err 2 "$NOPE" '^--ranges cannot be combined with --offset$' -- \
	discard "$NOPE" --ranges=- --offset 0 --dry-run
for opt in --foreground --recover --force-ublk "--queues 2" "--queue-depth 2" "--ublk-id 1"; do
	# shellcheck disable=SC2086
	expect_err 2 "$NOPE" "^${opt%% *} needs --ublk$" -- map "$NOPE" $opt
done
expect_err 2 "$NOPE" '^--recover needs --ublk-id \(the device to take back\)$' -- \
	map --ublk "$NOPE" --recover
expect_err 2 "$NOPE" "^--restore takes no positional argument \('$NOPE' given\)" -- \
	map --restore "$NOPE"
expect_err 2 "$NOPE" '^mapping several devices needs --name$' -- map "$NOPE" b
expect_err 2 "$NOPE" '^--persist records one device per mapping' -- map "$NOPE" b --name n -p
expect_err 2 "$NOPE" '^--ublk serves one namespace: map several devices without it$' -- \
	map "$NOPE" b --ublk
for opt in "--name n" --persist --ublk; do
	# shellcheck disable=SC2086
	expect_err 2 map "^--restore cannot be combined with ${opt%% *} " -- map --restore $opt
done
expect_err 2 /dev/null 'count must be at least 1' -- report /dev/null -c 0
expect_err 2 frobnicate 'unknown command' -- frobnicate /dev/null
expect_err 2 frobnicate 'unknown command' -- help frobnicate
expect_err 2 __table 'unknown command' -- help __table

# A range list that cannot be opened: one line naming the file, exit 2 for a
# wrong path (1 for a file that is there but unreadable), before the device
# is looked at (a missing device does not change the error)
LIST=$TMP/no-such-ranges
expect_err 2 "$LIST" 'cannot open the range list: No such file or directory' -- \
	discard /dev/null --ranges "$LIST" -f
expect_err 2 "$LIST" 'cannot open the range list: No such file or directory' -- \
	discard "$NOPE" -r "$LIST" --dry-run
expect_err 2 "$REG/x" 'cannot open the range list: Not a directory' -- \
	discard /dev/null --ranges="$REG/x" -f
expect_err 2 "$DIR" 'cannot open the range list: Is a directory' -- \
	discard /dev/null --ranges "$DIR" -f
# An unreadable range list: root reads any file, so as root the binary runs
# without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (setpriv, util-linux)
printf '0 4096\n' >"$TMP/unreadable"
chmod 000 "$TMP/unreadable"
if [ "$(id -u)" = 0 ]; then
	printf '#!/bin/sh\nexec setpriv --bounding-set=-dac_override,-dac_read_search -- "%s" "$@"\n' \
		"$BIN" >"$TMP/nodac"
	chmod 755 "$TMP/nodac"
	BIN=$TMP/nodac
fi
expect_err 1 "$TMP/unreadable" 'cannot open the range list: Permission denied' -- \
	discard /dev/null --ranges "$TMP/unreadable" -f
BIN=$(realpath "$1")

# Output that cannot be written (a full disk) fails with one line, as
# util-linux's close_stdout: the command's own result does not hide it
for args in "version" "version -o json" "__table" "help" "help report" "--help" "list -o json"; do
	# shellcheck disable=SC2086
	RC=0; "$BIN" $args >/dev/full 2>"$ERR" || RC=$?
	line=$(cat "$ERR")
	[ "$RC" -eq 1 ] && [ "$(wc -l <"$ERR")" -eq 1 ] &&
		[[ "$line" =~ ^nvme-zns-npo2:\ [a-z_]+:\ cannot\ write\ standard\ output(:\ No\ space\ left\ on\ device)?$ ]] &&
		ok "$args >/dev/full -> exit 1 ($line)" || not_ok "$args >/dev/full: exit $RC, stderr: $line"
done
# an error exit code stays what it was, with the write error added
RC=0; "$BIN" report "$NOPE" -o json >/dev/full 2>"$ERR" || RC=$?
[ "$RC" -eq 3 ] && ok "report of a missing device >/dev/full keeps exit 3" ||
	not_ok "report missing >/dev/full: exit $RC, $(cat "$ERR")"

# No arguments: usage on stderr, exit 2, nothing on stdout
run
[ "$RC" -eq 2 ] && [ ! -s "$OUT" ] && grep -q '^Usage:' "$ERR" && ok "no arguments -> usage, exit 2" ||
	not_ok "no arguments: exit $RC"

# Help, version and the table (positive controls for the parser)
for args in "help" "--help" "help report" "report --help" "reset -h" "list -h"; do
	run $args
	[ "$RC" -eq 0 ] && [ ! -s "$ERR" ] && grep -q '^Usage: nvme-zns-npo2' "$OUT" &&
		ok "$args -> usage" || not_ok "$args: exit $RC"
done
run report --help
grep -q -- '--start-lba=LBA' "$OUT" && grep -q 'implicit-open' "$OUT" &&
	ok "report --help lists options from the table" || not_ok "report --help: $(cat "$OUT")"
expect_rc 0 version
grep -Eq '^nvme-zns-npo2 version [0-9]+\.[0-9]+' "$OUT" && ok "version text" || not_ok "version: $(cat "$OUT")"
expect_rc 0 version -o json
json_ok "$OUT" && ok "version -o json is JSON" || not_ok "version json: $(cat "$TMP/jerr")"
expect_rc 0 __table
json_ok "$OUT" && ok "__table is JSON" || not_ok "__table json: $(cat "$TMP/jerr")"
# every visible command of the table appears in `help`, and nothing else
python3 - "$OUT" <<'PY' && ok "__table commands == help commands" || not_ok "__table/help drift"
import json, os, subprocess, sys
t = json.load(open(sys.argv[1]))
helptext = subprocess.run([os.environ['BIN'], 'help'],
                          capture_output=True, text=True).stdout
listed = [l.split()[0] for l in helptext.splitlines() if l.startswith('  ')]
want = [c['name'] for c in t['commands'] if not c['hidden']]
sys.exit(0 if listed == want else 1)
PY

finish

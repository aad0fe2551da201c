#!/bin/bash
# Loop-device tests of `discard` (root): file-backed loop devices filled with
# a known per-sector pattern; discarded ranges must read back as zeros and
# every other sector must keep its pattern. io_uring path and forced
# synchronous fallback (ZNP_FORCE_SYNC=1), error paths, safety refusals,
# Ctrl-C with an exact account of what was done.
# Output: TAP-like "ok N - ..." / "not ok N - ..." lines; exit 0 only when
# every test passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${ZNP_BIN:-$ROOT/build/nvme-zns-npo2}
OUT=$ROOT/build/loop
mkdir -p "$OUT"

[ "$(id -u)" = 0 ] || { echo "tests/loop: needs root (loop devices)"; exit 1; }
[ -x "$BIN" ] || { echo "tests/loop: $BIN missing: run make first"; exit 1; }
modprobe loop 2>/dev/null || true
gcc -O2 -Wall -o "$OUT/blkpat" tests/loop/blkpat.c || exit 1
PAT=$OUT/blkpat

T=0 FAILED=0
WORK=$(mktemp -d /dev/shm/znp-loop.XXXXXX)
LOOPS=() MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { T=$((T + 1)); echo "ok $T - $*"; }
not_ok() {
	T=$((T + 1)) FAILED=$((FAILED + 1))
	echo "not ok $T - $1"
	shift
	[ $# -gt 0 ] && printf '#   %s\n' "$@"
	[ -s "$WORK/err" ] && sed 's/^/#   stderr: /' "$WORK/err" | head -5
	return 0
}
# check DESC CONDITION-COMMAND...
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }

# new_loop VAR SIZE [losetup options]: a fresh loop device over a sparse
# file, its path in VAR (not echoed: LOOPS must be updated in this shell,
# not in a command substitution's subshell, or cleanup would miss it)
new_loop() {
	local var=$1 f dev
	f=$(mktemp "$WORK/img.XXXXXX")
	truncate -s "$2" "$f" || return 1
	shift 2
	dev=$(losetup -f --show "$@" "$f") || return 1
	LOOPS+=("$dev")
	printf -v "$var" '%s' "$dev"
}

# json KEY.PATH < file: print a value of the JSON document
json() {
	python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v=v[int(k)] if isinstance(v,list) else v[k]
print(json.dumps(v) if isinstance(v,(dict,list)) or isinstance(v,bool) or v is None else v)' "$1"
}

# run EXPECTED_RC DESC ARGS...: run the tool, stdout to $WORK/out, stderr to $WORK/err
RC=
run() {
	local want=$1 desc=$2
	shift 2
	"$BIN" "$@" >"$WORK/out" 2>"$WORK/err"
	RC=$?
	if [ "$RC" = "$want" ]; then
		ok "$desc (exit $RC)"
	else
		not_ok "$desc" "exit $RC, expected $want: nvme-zns-npo2 $*"
	fi
}

# intact DESC DEV RANGES [N]: the first N ranges zero, everything else its pattern
intact() {
	local out
	if out=$("$PAT" check "$2" "$3" ${4:+"$4"} 2>&1); then
		ok "$1 ($out)"
	else
		not_ok "$1" "$out"
	fi
}

err_has() { grep -q -- "$1" "$WORK/err"; }
one_line_err() { [ "$(wc -l <"$WORK/err")" = 1 ] && grep -q "^nvme-zns-npo2: $1: " "$WORK/err"; }

: >"$WORK/none"

# --- io_uring path, ranges from a file ---------------------------------------
new_loop D 64M || { echo "cannot create a loop device"; exit 1; }
"$PAT" fill "$D" || { echo "cannot write the pattern to $D"; exit 1; }
cat >"$WORK/r1" <<EOF
# offset length
0 4096
8192 12288
1M 64K
$((64 * 1024 * 1024 - 4096)) 4096
EOF
sed -e '/^#/d' -e 's/1M/1048576/' -e 's/64K/65536/' "$WORK/r1" >"$WORK/r1.bytes"
run 0 "discard a range list through io_uring" discard "$D" --ranges "$WORK/r1" --force -o json
check "JSON: engine io_uring-discard, no fallback" \
	test "$(json result.engine <"$WORK/out"):$(json result.fallbacks <"$WORK/out")" = "io_uring-discard:0"
check "JSON: 4 commands, 86016 bytes, target block" \
	test "$(json result.completed <"$WORK/out"):$(json result.bytes <"$WORK/out"):$(json target <"$WORK/out")" = "4:86016:block"
check "JSON: seconds and iops present" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; sys.exit(not (r["seconds"]>0 and r["iops"]>0))' "$WORK/out"
intact "discarded ranges read zero, neighbours intact" "$D" "$WORK/r1.bytes"

# --- --offset/--length, --lba ------------------------------------------------
"$PAT" fill "$D"
run 0 "discard --offset 2M --length 1M" discard "$D" --offset 2M --length 1M --force
echo "$((2 << 20)) $((1 << 20))" >"$WORK/r2"
intact "--offset/--length range zero, rest intact" "$D" "$WORK/r2"
check "no progress output when stderr is not a terminal" test ! -s "$WORK/err"
"$PAT" fill "$D"
run 0 "discard --lba --offset 16 --length 24" discard "$D" --lba --offset 16 --length 24 --force
echo "8192 12288" >"$WORK/r3"
intact "--lba range (512-byte LBAs) zero, rest intact" "$D" "$WORK/r3"

# --- forced synchronous fallback ---------------------------------------------
"$PAT" fill "$D"
ZNP_FORCE_SYNC=1 run 0 "discard with ZNP_FORCE_SYNC=1" discard "$D" --ranges "$WORK/r1" --force -o json
check "JSON: engine blkdiscard-ioctl" test "$(json result.engine <"$WORK/out")" = blkdiscard-ioctl
intact "fallback: discarded ranges zero, neighbours intact" "$D" "$WORK/r1.bytes"

# --- ranges from stdin, queue depth 1 ----------------------------------------
"$PAT" fill "$D"
"$BIN" discard "$D" --ranges - --force -q 1 -o json <"$WORK/r1.bytes" >"$WORK/out" 2>"$WORK/err"
check "ranges from stdin, -q 1 (exit $?)" test "$(json result.completed <"$WORK/out")" = 4
intact "stdin ranges zero, neighbours intact" "$D" "$WORK/r1.bytes"

# --- dry run -----------------------------------------------------------------
"$PAT" fill "$D"
run 0 "--dry-run" discard "$D" --ranges "$WORK/r1" --dry-run -o json
check "dry run JSON: plan of 4 commands, dry_run true" \
	test "$(json dry_run <"$WORK/out"):$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["plan"]))' "$WORK/out")" = "true:4"
check "dry run plan entry 2 is 1 MiB + 64 KiB" \
	test "$(json plan.2.start <"$WORK/out"):$(json plan.2.length <"$WORK/out")" = "1048576:65536"
run 0 "--dry-run text" discard "$D" --offset 4096 --length 4096 --dry-run
check "dry run text names the range (hex)" grep -q "start 0x1000 length 0x1000" "$WORK/out"
intact "dry run changed nothing" "$D" "$WORK/none"

# --- error paths: nothing changed on disk -------------------------------------
run 4 "no --force and no terminal: refused" discard "$D" --offset 0 --length 4096
check "refusal: one-line error naming the device" one_line_err "$D"
run 2 "range past the end" discard "$D" --offset 64M --length 4096 --force
check "past the end: message" err_has "past the end"
run 2 "range crossing the end" discard "$D" --offset $((64 * 1024 * 1024 - 4096)) --length 8192 --force
run 2 "offset not a multiple of the logical block size" discard "$D" --offset 1000 --length 4096 --force
check "misalignment: one-line error naming the device" one_line_err "$D"
check "misalignment: message" err_has "logical block size"
run 2 "offset not aligned to the discard granularity" discard "$D" --offset 512 --length 4096 --force
check "granularity: message" err_has "granularity"
printf '0 8192\n4096 4096\n' >"$WORK/overlap"
run 2 "overlapping ranges" discard "$D" --ranges "$WORK/overlap" --force
check "overlap: message" err_has "overlaps"
printf '0 4096\nfoo 4096\n' >"$WORK/junk"
run 2 "malformed range list" discard "$D" --ranges "$WORK/junk" --force
check "malformed list: line number" err_has "line 2"
run 2 "zero length" discard "$D" --offset 0 --length 0 --force
run 2 "--ranges with --offset" discard "$D" --ranges "$WORK/r1" --offset 0 --force
run 2 "--queue-depth 0" discard "$D" --offset 0 --length 4096 -q 0 --force
intact "error paths changed nothing" "$D" "$WORK/none"

new_loop RO 16M -r
run 3 "read-only device" discard "$RO" --offset 0 --length 4096 --force
check "read-only: message" err_has "read-only"
run 3 "regular file" discard "$WORK/r1" --force
run 3 "missing device" discard /dev/znp-no-such-device --force

# --- safety: mounted, held ------------------------------------------------------
new_loop M 64M
mkfs.ext4 -q -F "$M" >/dev/null 2>&1
MNT=$WORK/mnt
mkdir -p "$MNT"
if mount "$M" "$MNT"; then
	run 4 "mounted device refused" discard "$M" --force
	check "mounted: message says where" err_has "is mounted on $MNT"
	umount "$MNT"
	MNT=
else
	not_ok "mount an ext4 loop device for the mounted-device test"
fi
"$PAT" fill "$D"
python3 -c 'import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print("held", flush=True); time.sleep(30)' "$D" >"$WORK/held" &
HOLDER=$!
for _ in $(seq 50); do [ -s "$WORK/held" ] && break; sleep 0.1; done
run 4 "device opened exclusively by another process refused" discard "$D" --offset 0 --length 4096 --force
check "held: the refusal names the process" err_has "is in use (open by pid $HOLDER (python3))"
kill "$HOLDER"; wait "$HOLDER" 2>/dev/null
intact "held device unchanged" "$D" "$WORK/none"

# --- whole device ----------------------------------------------------------------
new_loop W 8M
"$PAT" fill "$W"
run 0 "whole device (no range given)" discard "$W" --force
echo "0 $((8 << 20))" >"$WORK/rall"
intact "whole device reads zero" "$W" "$WORK/rall"

# --- terminal: progress and confirmation (through a pseudo-terminal) -----------
"$PAT" fill "$D"
printf 'n\n' | script -qec "$BIN discard $D --offset 0 --length 4096" /dev/null >"$WORK/tty" 2>&1
RC=$?
check "terminal: answering n refuses (exit $RC)" test "$RC" = 4
intact "not confirmed: nothing changed" "$D" "$WORK/none"
printf 'y\n' | script -qec "$BIN discard $D --ranges $WORK/r1" /dev/null >"$WORK/tty" 2>&1
RC=$?
check "terminal: answering y discards (exit $RC)" test "$RC" = 0
check "terminal: the question names the device" grep -q "of $D?" "$WORK/tty"
check "terminal: progress line done/total, rate, ETA" grep -q "4/4 commands.*IOPS, ETA" "$WORK/tty"
intact "confirmed: ranges zero, rest intact" "$D" "$WORK/r1.bytes"

# --- Ctrl-C: stop submitting, wait, report exactly what was done --------------
new_loop B 1G
python3 -c 'import random; r=random.Random(7); [print(b*4096, 4096) for b in r.sample(range(262144), 200000)]' >"$WORK/rbig"
interrupt_test() {	# NAME ENV QD DELAY
	local name=$1 envv=$2 qd=$3 delay=$4 n
	"$PAT" fill "$B" || { not_ok "$name: write the pattern"; return; }
	env $envv "$BIN" discard "$B" --ranges "$WORK/rbig" --force -q "$qd" -o json >"$WORK/out" 2>"$WORK/err" &
	local pid=$!
	sleep "$delay"
	# a background job of a script starts with SIGINT ignored until the tool
	# installs its handler (just before the first command): repeat the signal
	while kill -INT "$pid" 2>/dev/null; do sleep 0.1; done
	wait "$pid"
	RC=$?
	check "$name: Ctrl-C exits 130 (exit $RC)" test "$RC" = 130
	n=$(json result.submitted <"$WORK/out" 2>/dev/null || echo x)
	check "$name: JSON says interrupted, all submitted completed ($n of 200000)" \
		test "$(json result.interrupted <"$WORK/out" 2>/dev/null):$(json result.completed <"$WORK/out" 2>/dev/null)" = "true:$n"
	check "$name: stderr is one line saying what was done" \
		grep -q "interrupted: $n of 200000 commands done" "$WORK/err"
	[ "$n" != x ] && intact "$name: exactly the first $n ranges are zero, all else intact" "$B" "$WORK/rbig" "$n"
}
interrupt_test "io_uring" "ZNP_FORCE_SYNC=0" 2 0.3
interrupt_test "fallback" "ZNP_FORCE_SYNC=1" 64 0.3

# --- the O_EXCL descriptor is held for the whole operation ----------------------
# (blkdiscard's rule): while a discard runs, no one else can claim the device
"$BIN" discard "$B" --ranges "$WORK/rbig" --force -q 1 -o json >"$WORK/out" 2>"$WORK/err" &
DPID=$!
# until the tool holds the device open (it reads the range list first)
for _ in $(seq 600); do
	for f in /proc/$DPID/fd/*; do [ "$(readlink "$f" 2>/dev/null)" = "$B" ] && break 2; done
	sleep 0.05
done
EXCL=$(python3 -c 'import errno,os,sys
try:
    os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)); print("opened")
except OSError as e:
    print(errno.errorcode[e.errno])' "$B")
RUNNING=no
kill -0 "$DPID" 2>/dev/null && RUNNING=yes
while kill -INT "$DPID" 2>/dev/null; do sleep 0.1; done
wait "$DPID"
check "discard still running while another process tried O_EXCL ($RUNNING)" test "$RUNNING" = yes
check "O_EXCL open during a discard refused (got $EXCL)" test "$EXCL" = EBUSY

echo "# $T tests, $FAILED failed"
[ "$FAILED" = 0 ]

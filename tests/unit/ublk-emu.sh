#!/bin/bash
# ublk mappings without a kernel: the check verdict mappable-ublk (exit 15)
# when a ublk control node exists, map --ublk refusals and dry run, and the
# status / list / unmap views of records under a test state directory
# (ZNP_RUN_DIR), on emulated namespaces (tests/emu) and a fake sysfs. The
# real server is tested in QEMU (tests/layers.d/53-vm-ublk-life.sh).
#
#   ublk-emu.sh NVME_ZNS_NPO2 LIBZNPEMU MKFAKE
set -u
# shellcheck source=tests/unit/emu-lib.sh
. "$(dirname "$0")/emu-lib.sh"
emu_begin ublk-emu "$@"

cat >"$root/emu.conf" <<'CONF'
path=dev/nvme0 kind=ctrl serial=SN-ZNS-0
path=dev/ng0n1 nsid=1 zsze=24576 zones=10
path=dev/nvme0n1 kind=nvme twin=ng0n1
path=dev/ng0n2 nsid=2 zsze=24576 zones=10
path=dev/ng0n3 nsid=3 zsze=32768 zcap=24576 zones=8
path=dev/ng0n4 nsid=4 zsze=20480 zcap=16384 zones=12
path=dev/ng0n8 nsid=8 csi=0 nlbas=100000
CONF
python3 "$MKFAKE" "$root" >/dev/null || { echo "mkfake failed" >&2; exit 1; }
# the processes that may use a device: none but this one (unmap's proof that
# a device is unused reads every process's descriptors, which the host's
# processes may not let it)
mkdir -p "$root/proc/self"
printf 'Name:\tnvme-zns-npo2\nNSpid:\t1\n' >"$root/proc/self/status"
printf 'Filename\tType\tSize\tUsed\tPriority\n' >"$root/proc/swaps"
export LD_PRELOAD=$EMU ZNP_EMU_CONFIG=$root/emu.conf ZNP_SYSFS_ROOT=$root/sys \
	ZNP_DEV_ROOT=$root/dev ZNP_PROC_ROOT=$root/proc ZNP_RUN_DIR=$root/run LC_ALL=C
D=$root/dev
# without device-mapper (this host), commands about dm mappings exit 5
if grep -q device-mapper /proc/misc 2>/dev/null; then nodm=3; nodm_status=0; else nodm=5; nodm_status=5; fi

# ---- check: the ublk route -------------------------------------------------------
t "hidden npo2, no ublk driver: needs kernel patches (11)" 11 "$BIN" check "$D/ng0n2"
# a dry run exits as the real run would: 5, the kernel has no ublk driver
t "map --ublk, no ublk driver: not supported (5)" 5 "$BIN" map --ublk "$D/ng0n2"
has "... one line: the kernel the route needs" "$root/err" \
	"^nvme-zns-npo2: $D/ng0n2: this kernel \(\?\) has no ublk driver: the ublk route needs Linux >= 6\.6"
lines "... one line" "$root/err" 1
t "map --ublk --dry-run, no ublk driver: as the real run (5)" 5 "$BIN" map --ublk "$D/ng0n2" --dry-run
has "... the same line" "$root/err" "^nvme-zns-npo2: $D/ng0n2: this kernel \(\?\) has no ublk driver"
lines "... one line" "$root/err" 1
[ ! -s "$root/out" ] && ok || bad "a refused dry run printed a plan: $(cat "$root/out")"
[ ! -e "$root/run" ] && ok || bad "a refused map --ublk created the state directory"
mknod "$root/dev/ublk-control" c 1 3 || bad "mknod ublk-control"
t "hidden npo2 with a ublk control node: mappable through ublk (15)" 15 "$BIN" check "$D/ng0n2"
has "check text: the verdict" "$root/out" "^verdict: +mappable-ublk: .*map --ublk"
t "check json" 15 "$BIN" check "$D/ng0n2" -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "check JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["verdict"] == "mappable-ublk", j
assert j["exit_code"] == 15, j
assert "ublk-zoned-available" in j["reasons"] and "block-device-hidden" in j["reasons"], j
PY
t "visible npo2 block device stays mappable (0)" 0 "$BIN" check "$D/nvme0n1"
t "po2 stays po2 (10)" 10 "$BIN" check "$D/ng0n3"
t "capacity < size stays 12" 12 "$BIN" check "$D/ng0n4"

# ---- map --ublk refusals and dry run (nothing is created) -----------------------------
t "map --ublk --dry-run of the hidden namespace" 0 "$BIN" map --ublk "$D/ng0n2" --dry-run -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "map --ublk dry run JSON"
import json, sys
j = json.load(open(sys.argv[1]))
exp = {"kind": "ublk", "dry_run": True, "ublk_dev_id": None, "server_pid": None,
       "zone_sectors": 262144, "zone_cap_sectors": 196608, "nr_zones": 10,
       "size_sectors": 2621440, "lba_size": 4096, "zone_size": 24576, "nsid": 2}
bad = {k: (j.get(k), v) for k, v in exp.items() if j.get(k) != v}
assert not bad, bad
open(sys.argv[1] + ".ident", "w").write(j["identity"])
PY
ident=$(cat "$root/out.ident")
# the text plan in the namespace's LBAs, in hex, as the dm dry run's
t "map --ublk --dry-run, text" 0 "$BIN" map --ublk "$D/ng0n2" --dry-run
has "... zone size in LBAs" "$root/out" "^# zone size: +0x8000 LBAs \(128 MiB\), a power of 2 \(device zone: 0x6000 LBAs, 96 MiB\)$"
has "... zone cap in LBAs" "$root/out" "^# zone cap: +0x6000 LBAs \(96 MiB\)$"
has "... size in LBAs" "$root/out" "^# size: +0x50000 LBAs \(1\.[0-9] GiB\)$"
[ ! -e "$root/run" ] && ok || bad "a dry run created the state directory"
t "map --ublk of a visible block device: use plain map (4)" 4 "$BIN" map --ublk "$D/ng0n1"
has "... pointing to plain map" "$root/err" "map it with plain .map."
t "map --ublk of a po2 namespace (3)" 3 "$BIN" map --ublk "$D/ng0n3"
t "map --ublk, capacity < size (3)" 3 "$BIN" map --ublk "$D/ng0n4"
t "map --ublk of a conventional namespace (3)" 3 "$BIN" map --ublk "$D/ng0n8"
t "--queues 0 (2)" 2 "$BIN" map --ublk "$D/ng0n2" --queues 0
t "--queues 65 (2)" 2 "$BIN" map --ublk "$D/ng0n2" --queues 65
t "--foreground without --ublk (2)" 2 "$BIN" map "$D/ng0n2" --foreground
t "--ublk with --restore (2)" 2 "$BIN" map --ublk --restore
t "map --ublk --name of an unrecorded mapping (3)" 3 "$BIN" map --ublk --name nosuch \
	--config "$root/none.conf"

# the systemd unit's form (--name, no device): a namespace list that cannot be
# read is a failure (1), not "not present" (3)
echo "u1 $ident via=ublk" >"$root/u1.conf"
t "map --ublk --name, no such name: 3" 3 "$BIN" map --ublk --name u2 --config "$root/u1.conf"
mv "$root/sys/class/nvme-generic" "$root/sys/class/nvme-generic.away"
: >"$root/sys/class/nvme-generic"	# not a directory: the scan fails (ENOTDIR)
t "map --ublk --name, the namespaces cannot be listed: 1" 1 "$BIN" map --ublk --name u1 \
	--config "$root/u1.conf"
has "... one line saying so" "$root/err" "^nvme-zns-npo2: u1: cannot list the NVMe namespaces: "
lines "... only that line" "$root/err" 1
rm "$root/sys/class/nvme-generic"
mv "$root/sys/class/nvme-generic.away" "$root/sys/class/nvme-generic"
rm -rf "$root/sys/class/nvme-generic"/* "$root/sys/class/nvme"/* 2>/dev/null
t "map --ublk --name, the namespace is not there: 3" 3 "$BIN" map --ublk --name u1 \
	--config "$root/u1.conf"
has "... not present" "$root/err" "^nvme-zns-npo2: u1: namespace .* is not present"
LD_PRELOAD= python3 "$MKFAKE" "$root" >/dev/null || bad "mkfake again"

# ---- records: status, list, unmap --------------------------------------------------------
mkdir -m 0700 "$root/run"
key=$(printf '%s' "$ident" | LD_PRELOAD= python3 -c '
import sys
s = sys.stdin.read()
print("".join(c if c.isalnum() or c in ".-" else "_%02x" % ord(c) for c in s))')
cat >"$root/run/$key.ublk" <<REC
ident=$ident
ng=ng0n2
name=
nsid=2
dev_id=5
pid=999999
lba_size=4096
zone_size=24576
zone_cap=24576
nr_zones=10
po2_zone_sectors=262144
persist=0
started=1764600000
REC
chmod 600 "$root/run/$key.ublk"
mkdir -p "$root/sys/block/ublkb5" "$root/sys/class/ublk-char/ublkc5"
t "status with a record, server gone, disk there" 0 "$BIN" status -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "status JSON"
import json, sys
j = json.load(open(sys.argv[1]))
u = [m for m in j["mappings"] if m.get("kind") == "ublk"]
assert len(u) == 1 and j["nr_mappings"] >= 1, j
u = u[0]
exp = {"device": "ublkb5", "ublk_dev_id": 5, "backing": "ng0n2", "nsid": 2, "server_pid": 999999,
       "health": "dead-quiesced", "po2_zone_sectors": 262144, "nr_zones": 10,
       "zone_sectors": 196608, "size_sectors": 2621440}
bad = {k: (u.get(k), v) for k, v in exp.items() if u.get(k) != v}
assert not bad, bad
PY
t "status ublkb5" 0 "$BIN" status ublkb5
has "status text: health and pid" "$root/out" "ublkb5 +ublkb5 +ng0n2 .*ublk dead-quiesced, pid 999999"
t "list shows the ublk device" 0 "$BIN" list
has "list: MAPPED-AS ublkb5" "$root/out" "^$root/dev/ng0n2 .* hidden +ublkb5 +znpemu"
t "a second map --ublk of a namespace whose device is quiesced needs the driver (5)" 5 \
	"$BIN" map --ublk "$D/ng0n2"
has "... naming what is missing" "$root/err" "ublk"
rm -rf "$root/sys/block/ublkb5" "$root/sys/class/ublk-char/ublkc5"
t "status: the device is gone: missing" 0 "$BIN" status ublkb5 -o json
has "... health missing" "$root/out" '"health": "missing"'
t "list: no MAPPED-AS for a stale record" 0 "$BIN" list
has "list: ng0n2 not mapped" "$root/out" "^$root/dev/ng0n2 .* hidden +- +znpemu"
# --persist of a namespace that is served already (its server holds the
# lock): refused (4) before anything is recorded, so the mapping file keeps
# the entry of the served mapping, under its name, byte for byte
printf '%s\n' "# ours" "first $ident via=ublk" "other sn:x:nsid:1" >"$root/p.conf"
cp "$root/p.conf" "$root/p.conf.before"
exec 9>>"$root/run/$key.lock"	# this shell holds the server's lock
flock -x 9 || bad "cannot take the lock"
t "map --ublk --persist of a served namespace: refused (4)" 4 "$BIN" map --ublk "$D/ng0n2" \
	--persist --name second --config "$root/p.conf" 9>&-
has "... naming the server that has it" "$root/err" "already served by server pid 999999 as /dev/ublkb5"
cmp -s "$root/p.conf" "$root/p.conf.before" && ok || bad "the mapping file changed: $(cat "$root/p.conf")"
exec 9>&-

# records that cannot be listed (ENOMEM, EACCES) are a failure (1), not "no
# such mapping" (3, or 5 without device-mapper): one line, the record stays
for e in 12 13; do
	ZNP_EMU_FDOPENDIR_ERRNO=$e t "status ublkb5, listing fails (errno $e): 1" 1 "$BIN" status ublkb5
	has "... one line naming the state directory" "$root/err" \
		"^nvme-zns-npo2: ublkb5: cannot read the ublk mapping records in $root/run: "
	lines "... only that line" "$root/err" 1
	ZNP_EMU_FDOPENDIR_ERRNO=$e t "unmap ublkb5, listing fails (errno $e): 1" 1 "$BIN" unmap ublkb5 \
		--config "$root/none.conf"
	[ -e "$root/run/$key.ublk" ] && ok || bad "unmap removed the record it could not list"
done
ZNP_EMU_FDOPENDIR_ERRNO=12 t "status, listing fails: 1" 1 "$BIN" status -o json
has "... says so" "$root/err" "^nvme-zns-npo2: status: cannot read the ublk mapping records in "
t "unmap of a stale record removes it" 0 "$BIN" unmap ublkb5 --config "$root/none.conf"
[ ! -e "$root/run/$key.ublk" ] && ok || bad "record still there after unmap"
t "unmap again: not a ublk mapping (no such mapping 3, no dm 5)" $nodm "$BIN" unmap ublkb5

# ---- the mappings lock: 0600, a bounded wait that names its holder --------------------
stale_rec() {	# a record whose device is gone (unmap forgets it, then the mapping file)
	printf 'ident=%s\nng=ng0n2\nname=\nnsid=2\ndev_id=7\npid=999999\n' "$ident" \
		>"$root/run/$key.ublk"
	chmod 600 "$root/run/$key.ublk"
}
cdir=$(mktemp -d /tmp/znp-conf.XXXXXX)
chmod 755 "$cdir"	# like /etc/zns-npo2: anyone may look, only root writes
conf=$cdir/mappings.conf
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && command -v flock >/dev/null; then
	# an old release's 0644 lock: any user could flock() it and hang every update
	install -m 0644 /dev/null "$conf.lock"
	LD_PRELOAD= runuser -u nobody -- flock -n "$conf.lock" true && ok ||
		bad "setup: nobody cannot flock a 0644 lock file"
	stale_rec
	t "unmap of a stale record updates the mapping file" 0 "$BIN" unmap ublkb7 --config "$conf"
	[ "$(stat -c %a "$conf.lock")" = 600 ] && ok ||
		bad "mappings lock is mode $(stat -c %a "$conf.lock"), want 600"
	LD_PRELOAD= runuser -u nobody -- flock -n "$conf.lock" true 2>/dev/null &&
		bad "nobody can flock the mappings lock" || ok
	LD_PRELOAD= runuser -u nobody -- flock -n -x "$conf.lock" -c 'sleep 1' 2>/dev/null &&
		bad "nobody can hold the mappings lock" || ok
	# held by another process: a failure after the wait, naming the holder
	LD_PRELOAD= flock -x "$conf.lock" sleep 30 &
	holder=$!
	for _ in $(seq 300); do grep -q " FLOCK .* $holder " /proc/locks && break; sleep 0.1; done
	stale_rec
	start=$(date +%s)
	t "unmap while the mappings lock is held: fails after the wait (1)" 1 \
		"$BIN" unmap ublkb7 --config "$conf"
	took=$(($(date +%s) - start))
	[ "$took" -ge 4 ] && [ "$took" -le 15 ] && ok || bad "waited ${took}s for the lock, want ~5"
	has "... naming the lock and its holder" "$root/err" \
		"cannot update $conf: its lock $conf.lock stayed held for 5 s by pid $holder \(flock\)"
	lines "... in one line" "$root/err" 1
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	[ ! -e "$conf.tmp" ] && [ -z "$(find "$cdir" -name '.mappings.conf.*')" ] && ok ||
		bad "temporary files left in $cdir"
else
	echo "# not root (or no runuser/flock): the mappings lock checks are left out"
fi
rm -rf "$cdir"
# an unsafe state directory is not trusted
cp /dev/null "$root/run/x"
chmod 0755 "$root/run"
cat >"$root/run/$key.ublk" <<REC
ident=$ident
dev_id=6
pid=1
REC
mkdir -p "$root/sys/block/ublkb6"
t "status ignores records in a group/world-accessible directory" $nodm_status "$BIN" status -o json
if [ $nodm_status = 0 ]; then
	has "... nothing listed" "$root/out" '"nr_mappings": 0'
else
	has "... nothing listed: only the device-mapper error" "$root/err" 'device-mapper is not available'
fi
t "list: no MAPPED-AS from an untrusted directory" 0 "$BIN" list
has "list: ng0n2 not mapped" "$root/out" "^$root/dev/ng0n2 .* hidden +- +znpemu"

# ---- unmap holds the device O_EXCL across STOP_DEV ------------------------------
# Nothing can mount or claim /dev/ublkbN between the check that it is free
# and the stop: the descriptor of the check (O_EXCL; the emulator opens its
# placeholder without the flag) is the one kept open until STOP_DEV went out
# (here it fails: no ublk-control), as the system calls show (strace).
chmod 0700 "$root/run"
rm -f "$root/run/x"
echo "path=dev/ublkb7 kind=blk lba=4096 zsze=32768 zones=10" >>"$root/emu.conf"
LD_PRELOAD= python3 "$MKFAKE" "$root" >/dev/null || bad "mkfake with ublkb7"
cat >"$root/run/sn_3afake_3ansid_3a7.ublk" <<REC
ident=sn:fake:nsid:7
ng=ng0n2
name=u7
nsid=7
dev_id=7
pid=999999
lba_size=4096
zone_size=24576
zone_cap=24576
nr_zones=10
po2_zone_sectors=262144
persist=0
started=1764600000
fingerprint=1234
REC
chmod 600 "$root/run/sn_3afake_3ansid_3a7.ublk"
if ! command -v strace >/dev/null; then
	bad "strace not installed (make deps)"
else
	LD_PRELOAD= strace -f -qq -e trace=openat,close -E LD_PRELOAD="$EMU" -o "$root/strace" \
		"$BIN" unmap ublkb7 --config "$root/none.conf" >"$root/out" 2>"$root/err"
	has "unmap ublkb7 gets as far as STOP_DEV" "$root/err" "cannot stop /dev/ublkb7"
	LD_PRELOAD= python3 - "$root/strace" <<'PY' && ok || bad "O_EXCL not held across STOP_DEV: $(grep -E 'ublkb7|ublk-control|close' "$root/strace" | tail -8)"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
opens = [(i, re.search(r'= (\d+)$', l).group(1)) for i, l in enumerate(lines)
         if 'openat(' in l and '/dev/ublkb7"' in l and re.search(r'= \d+$', l)]
assert opens, opens
i, fd = opens[0]     # the check: held, and used for the fsync too
# STOP_DEV (after GET_DEV_INFO compared the fingerprint) goes out after it
ctrl = [j for j, l in enumerate(lines) if j > i and 'ublk-control' in l]
assert ctrl, (i, ctrl)
assert len(opens) == 1, opens
closed = [j for j, l in enumerate(lines) if j > i and re.search(r'close\(%s\)' % fd, l)]
assert closed and closed[0] > ctrl[0] > i, (i, ctrl, closed)
PY
fi

# ---- the interlock: no zone or data writer touches a served namespace -----------
# ng0n5 (its twin block node nvme0n5: the same namespace) has written zones
# (preset mixed: zone 1 full, zone 2 closed half-written); a record serves it
# as /dev/ublkb9. Every writer, with and without --force, and its dry run, is
# refused (4) with one line naming the mapping, its device and what to use
# instead, and the zones stay as configured; a stale record (the device gone)
# refuses nothing.
cat >>"$root/emu.conf" <<'CONF'
path=dev/ng0n5 nsid=5 zsze=24576 zones=10 preset=mixed state=ng0n5.state
path=dev/nvme0n5 kind=nvme twin=ng0n5
CONF
LD_PRELOAD= python3 "$MKFAKE" "$root" >/dev/null || bad "mkfake with ng0n5"
t "ng0n5's identity (map --ublk --dry-run)" 0 "$BIN" map --ublk "$D/ng0n5" --dry-run --force-ublk \
	-o json
ident5=$(LD_PRELOAD= python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["identity"])' \
	"$root/out")
key5=$(printf '%s' "$ident5" | LD_PRELOAD= python3 -c '
import sys
s = sys.stdin.read()
print("".join(c if c.isalnum() or c in ".-" else "_%02x" % ord(c) for c in s))')
printf 'ident=%s\nng=ng0n5\nname=vol5\nnsid=5\ndev_id=9\npid=999999\n' "$ident5" \
	>"$root/run/$key5.ublk"
chmod 600 "$root/run/$key5.ublk"
mkdir -p "$root/sys/block/ublkb9" "$root/sys/class/ublk-char/ublkc9"
zones5() {	# the zone report of ng0n5 (conditions, write pointers), as the emulator keeps them
	"$BIN" report "$D/ng0n5" >"$root/zones5" 2>&1
}
zones5 && cp "$root/zones5" "$root/zones5.before"
grep -q " FULL " "$root/zones5.before" && grep -q " CLOSED " "$root/zones5.before" &&
	ok "ng0n5 has written zones to lose" || bad "ng0n5 zones not as configured: $(cat "$root/zones5")"
interlock() {	# DESC INSTEAD CMD...: refused (4), one line, the zones unchanged
	local desc=$1 instead=$2
	shift 2
	t "$desc: refused (4)" 4 "$BIN" "$@"
	has "... names the mapping, its device and the way out" "$root/err" \
		"^nvme-zns-npo2: $D/n[gv]m?e?0n5: served by ublk mapping vol5 as /dev/ublkb9: [a-z]+ refused, even with --force; $instead\$"
	lines "... in one line" "$root/err" 1
	zones5
	cmp -s "$root/zones5" "$root/zones5.before" && ok "... zones unchanged" ||
		bad "... zones changed: $(diff "$root/zones5.before" "$root/zones5" | head -3)"
}
for f in "" -f; do
	for node in ng0n5 nvme0n5; do
		interlock "reset -s 0 $f $node" "use blkzone reset /dev/ublkb9, or unmap vol5 first" \
			reset "$D/$node" -s 0 $f
	done
	interlock "reset -a $f" "use blkzone reset /dev/ublkb9, or unmap vol5 first" \
		reset "$D/ng0n5" -a $f
	interlock "finish -s 0 $f" "use blkzone finish /dev/ublkb9, or unmap vol5 first" \
		finish "$D/ng0n5" -s 0 $f
	interlock "open -s 0 $f" "use blkzone open /dev/ublkb9, or unmap vol5 first" \
		open "$D/ng0n5" -s 0 $f
	interlock "close -s 0x6000 $f" "use blkzone close /dev/ublkb9, or unmap vol5 first" \
		close "$D/ng0n5" -s 0x6000 $f
	interlock "offline -s 0 $f" "unmap vol5 first" offline "$D/ng0n5" -s 0 $f
	interlock "discard $f" "use nvme-zns-npo2 discard /dev/ublkb9, or unmap vol5 first" \
		discard "$D/ng0n5" $f
done
interlock "reset -a --dry-run" "use blkzone reset /dev/ublkb9, or unmap vol5 first" \
	reset "$D/ng0n5" -a --dry-run
interlock "discard --dry-run" "use nvme-zns-npo2 discard /dev/ublkb9, or unmap vol5 first" \
	discard "$D/ng0n5" --dry-run
t "reset -a -f -o json: refused (4)" 4 "$BIN" reset "$D/ng0n5" -a -f -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "refusal JSON: $(cat "$root/out")"
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["exit_code"] == 4 and "served by ublk mapping vol5 as /dev/ublkb9" in e["message"], e
PY
exec 9>>"$root/run/$key5.lock"	# the server's lock held: alive
flock -x 9 || bad "cannot take ng0n5's lock"
interlock "reset -a -f, server alive" "use blkzone reset /dev/ublkb9, or unmap vol5 first" \
	reset "$D/ng0n5" -a -f
exec 9>&-
ZNP_EMU_FDOPENDIR_ERRNO=13 t "reset -a -f, the records cannot be read: 1" 1 "$BIN" reset \
	"$D/ng0n5" -a -f
has "... says so" "$root/err" "^nvme-zns-npo2: $D/ng0n5: cannot read the ublk mapping records in "
zones5
cmp -s "$root/zones5" "$root/zones5.before" && ok "... zones unchanged" || bad "... zones changed"
t "the mapped device itself is no served namespace (report)" 0 "$BIN" report "$D/ng0n2"
rm -rf "$root/sys/block/ublkb9" "$root/sys/class/ublk-char/ublkc9"
t "a stale record (device gone) refuses nothing: reset -a -f" 0 "$BIN" reset "$D/ng0n5" -a -f
zones5
grep -Eq " (FULL|CLOSED) " "$root/zones5" && bad "reset -a left written zones" ||
	ok "... every zone empty"

# ---- the claim: no mapping starts between the interlock's answer and the command
# A command that writes zones takes the namespace's lock shared for its whole
# run; a server holds it exclusive from before ADD_DEV on, a dm mapping while
# it is made. (ng0n5's stale record goes, as unmap would remove it: a
# server that holds the lock and has a record serves; one without is starting.)
rm "$root/run/$key5.ublk"
ln -s /proc/locks "$root/proc/locks"	# who holds a lock: the host's own table
"$BIN" finish "$D/ng0n5" -s 0 -f >/dev/null 2>&1 || bad "finish zone 0 of ng0n5"
zones5 && cp "$root/zones5" "$root/zones5.before"
exec 9>>"$root/run/$key5.lock"	# held exclusive: a server starting on ng0n5
flock -x 9 || bad "cannot take ng0n5's lock"
for c in "reset -s 0 -f" "reset -a -f" "discard -f" "reset -a --dry-run"; do
	# shellcheck disable=SC2086 # $c is words
	t "$c while a mapping of ng0n5 is being made: refused (4)" 4 "$BIN" ${c%% *} "$D/ng0n5" \
		${c#* } 9>&-
	has "... one line naming the lock's holder" "$root/err" \
		"^nvme-zns-npo2: $D/ng0n5: the namespace's lock in $root/run is held by pid [1-9][0-9]* \(a server starting, a mapping being made or a zone command running\): try again when it ends\$"
	lines "... in one line" "$root/err" 1
done
exec 9>&-
zones5
cmp -s "$root/zones5" "$root/zones5.before" && ok "... zones unchanged (zone 0 still full)" ||
	bad "... zones changed: $(diff "$root/zones5.before" "$root/zones5" | head -3)"
exec 9>>"$root/run/$key5.lock"	# held shared: a zone command on ng0n5
flock -s 9 || bad "cannot share ng0n5's lock"
t "map --ublk of ng0n5 beside a zone command: refused (4)" 4 "$BIN" map --ublk "$D/ng0n5" \
	--force-ublk 9>&-
has "... naming the holder" "$root/err" \
	"^nvme-zns-npo2: $D/ng0n5: the namespace's lock in $root/run is held by pid [1-9][0-9]* \(a server starting, a mapping being made or a zone command running\): try again when it ends\$"
t "a second zone command beside it: finish -s 0x6000 -f (0)" 0 "$BIN" finish "$D/ng0n5" \
	-s 0x6000 -f 9>&-
exec 9>&-
if [ "${ZNP_HOOKS:-0}" = 1 ]; then
	# a running command holds its claim until it ends (ZNP_TEST_CLAIM_HOLD
	# stops it after the claim until the file is removed)
	ZNP_TEST_CLAIM_HOLD=$root/hold "$BIN" reset "$D/ng0n5" -s 0 -f >"$root/bg.out" 2>&1 &
	bg=$!
	for _ in $(seq 100); do [ -e "$root/hold" ] && break; sleep 0.1; done
	[ -e "$root/hold" ] && ok "reset -s 0 claimed ng0n5 and waits" || bad "reset never claimed"
	t "map --ublk of ng0n5 while reset runs: refused (4)" 4 "$BIN" map --ublk "$D/ng0n5" \
		--force-ublk
	has "... naming the reset's pid" "$root/err" "the namespace's lock in $root/run is held by pid $bg "
	flock -n -x "$root/run/$key5.lock" true && bad "an exclusive lock was taken beside the claim" ||
		ok "... no exclusive lock beside the claim"
	rm -f "$root/hold"
	wait "$bg" && ok "reset -s 0 ended (0)" || bad "reset -s 0: exit $?: $(cat "$root/bg.out")"
	zones5
	grep -Eq "^ *0 .* EMPTY " "$root/zones5" && ok "... zone 0 empty" ||
		bad "zone 0 not reset: $(head -4 "$root/zones5")"
	flock -n -x "$root/run/$key5.lock" true && ok "... and the claim is gone with it" ||
		bad "the lock is still held after reset ended"
fi

# ---- unmap proves the device unused: users only sysfs and configfs show ------
# (the server's SIGTERM asks the same question; tests/vm/ublk-life/unseen.sh
# has the real loop device, nvmet namespace and hidden process)
u7() { t "$1" 4 "$BIN" unmap ublkb7 --config "$root/none.conf"; }
mkdir -p "$root/sys/block/loop0/loop"
echo "$root/dev/ublkb7" >"$root/sys/block/loop0/loop/backing_file"
echo 7:0 >"$root/sys/block/loop0/dev"
u7 "unmap ublkb7 backing a loop device: refused (4)"
has "... naming the loop device" "$root/err" \
	"^nvme-zns-npo2: u7: /dev/ublkb7 is in use \(backing loop device loop0 \(7:0\)\): not unmapped"
lines "... in one line" "$root/err" 1
echo "$root/dev/gone (deleted)" >"$root/sys/block/loop0/loop/backing_file"
u7 "unmap ublkb7 while a loop device's backing file cannot be resolved: refused (4)"
has "... saying so" "$root/err" "in use \(cannot tell what backs loop device loop0: "
rm -rf "$root/sys/block/loop0"
ns=$root/sys/kernel/config/nvmet/subsystems/nqn.2026-12.test/namespaces/3
mkdir -p "$ns"
echo 1 >"$ns/enable"
echo "$root/dev/ublkb7" >"$ns/device_path"
u7 "unmap ublkb7 exported by an NVMe target namespace: refused (4)"
has "... naming it" "$root/err" "in use \(exported by NVMe target subsystem nqn.2026-12.test namespace 3\)"
rm -rf "$root/sys/kernel"
mkdir -p "$root/sys/module/nvmet"
u7 "unmap ublkb7 with nvmet loaded and no configfs tree: refused (4)"
has "... saying so" "$root/err" "in use \(the NVMe target is loaded and .* cannot be read: "
rmdir "$root/sys/module/nvmet"
mkdir "$root/sys/block/ublkb7/holders/dm-3"
u7 "unmap ublkb7 under a holder: refused (4)"
has "... naming it" "$root/err" "in use \(held by dm-3\)"
rmdir "$root/sys/block/ublkb7/holders/dm-3"
printf 'Filename\tType\tSize\tUsed\tPriority\n%s\tpartition\t8\t0\t-2\n' "$root/dev/ublkb7" \
	>"$root/proc/swaps"
u7 "unmap ublkb7 used as swap: refused (4)"
has "... saying so" "$root/err" "in use \(swap space\)"
printf 'Filename\tType\tSize\tUsed\tPriority\n' >"$root/proc/swaps"
printf 'Name:\tnvme-zns-npo2\nNSpid:\t4242\t1\n' >"$root/proc/self/status"
u7 "unmap ublkb7 from a child PID namespace: refused (4)"
has "... saying so" "$root/err" "in use \(cannot see processes outside this PID namespace\)"
printf 'Name:\tnvme-zns-npo2\nNSpid:\t1\n' >"$root/proc/self/status"

emu_end ublk-emu

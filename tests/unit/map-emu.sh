#!/bin/bash
# map / unmap / status / list against emulated namespaces (tests/emu) on a
# fake sysfs: every refusal that comes before device-mapper is touched, the
# dry run, the "mapped as" column (from fake sysfs holders), and the
# behaviour where the kernel has no device-mapper (this host's kernel).
# The real mappings are tested in QEMU (tests/vm/patched-map, layer 80).
#
#   map-emu.sh NVME_ZNS_NPO2 LIBZNPEMU MKFAKE
set -u
# shellcheck source=tests/unit/emu-lib.sh
. "$(dirname "$0")/emu-lib.sh"
emu_begin map-emu "$@"

cat >"$root/emu.conf" <<'EOF'
path=dev/nvme0 kind=ctrl serial=SN-ZNS-0
path=dev/ng0n1 nsid=1 zsze=24576 zones=10
path=dev/nvme0n1 kind=nvme twin=ng0n1
path=dev/ng0n2 nsid=2 zsze=24576 zones=10
path=dev/ng0n3 nsid=3 zsze=32768 zcap=24576 zones=8
path=dev/nvme0n3 kind=nvme twin=ng0n3
path=dev/ng0n4 nsid=4 zsze=20480 zcap=16384 zones=12
path=dev/nvme0n4 kind=nvme twin=ng0n4
path=dev/ng0n5 nsid=5 zsze=24576 zones=10
path=dev/nvme0n5 kind=nvme twin=ng0n5 excl_busy=1
path=dev/ng0n6 nsid=6 zsze=24576 zones=10
path=dev/nvme0n6 kind=nvme twin=ng0n6
path=dev/ng0n7 nsid=7 zsze=24576 nlbas=250000
path=dev/nvme0n7 kind=nvme twin=ng0n7
path=dev/ng0n8 nsid=8 csi=0 nlbas=100000
path=dev/nvme0n8 kind=nvme twin=ng0n8
path=dev/nullb0 kind=blk lba=4096 zsze=768 zones=32
EOF
python3 "$MKFAKE" "$root" >/dev/null || { echo "mkfake failed" >&2; exit 1; }
export LD_PRELOAD=$EMU ZNP_EMU_CONFIG=$root/emu.conf ZNP_SYSFS_ROOT=$root/sys \
	ZNP_DEV_ROOT=$root/dev LC_ALL=C
D=$root/dev
P=nvme-zns-npo2
# Does this kernel have device-mapper? (This host's has not; then map and
# status must say so, exit 5.)
if grep -q device-mapper /proc/misc 2>/dev/null; then
	have_dm=1
else
	have_dm=0
fi

# ---- dry run -------------------------------------------------------------------
t "dry run of a mappable namespace" 0 "$BIN" map "$D/nvme0n1" --dry-run
# 10 zones of 96 MiB -> 10 x 128 MiB = 2621440 sectors; default name from serial + NSID
has "dry run: the dmsetup command" "$root/out" \
	"^dmsetup create po2-SN-ZNS-0-n1 --uuid ZNPO2-[a-z0-9]+:[^ ]+ --table '0 2621440 po2zone $D/nvme0n1'\$"
has "dry run: po2 zone size" "$root/out" "^# zone size: +0x8000 LBAs \(128 MiB\), a power of 2 \(device zone: 0x6000 LBAs, 96 MiB\)"
has "dry run: says nothing was created" "$root/out" "^dry run: /dev/mapper/po2-SN-ZNS-0-n1 not created\$"
if [ $have_dm = 0 ]; then
	has "dry run without device-mapper: a note" "$root/err" "^$P: $D/nvme0n1: note: device-mapper is not available"
fi
# several devices in JSON: arrays in the order given, not one joined string
t "map --name cat0 of two devices, dry run, JSON" 0 "$BIN" map --name cat0 "$D/nvme0n1" \
	"$D/nvme0n6" --dry-run -o json
LD_PRELOAD= python3 - "$root/out" "$D" <<'PY' && ok "... device and backing are arrays" ||
import json, sys
j, d = json.load(open(sys.argv[1])), sys.argv[2]
want = [d + "/nvme0n1", d + "/nvme0n6"]
assert j["device"] == want and j["backing"] == want, (j["device"], j["backing"])
assert j["nr_zones"] == 20 and j["name"] == "cat0", j
PY
	bad "... device and backing are arrays: $(head -3 "$root/out")"
t "map of one device, dry run, JSON" 0 "$BIN" map "$D/nvme0n1" --dry-run -o json
has "... device stays a string" "$root/out" "^  \"device\": \"$D/nvme0n1\",\$"

t "dry run through the ng node maps the block device" 0 "$BIN" map "$D/ng0n1" --dry-run --name mine -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "dry run JSON"
import json, sys
j = json.load(open(sys.argv[1]))
exp = {"name": "mine", "target": "po2zone", "dry_run": True, "dm": None, "lba_size": 4096,
       "zone_size": 24576, "po2_zone_size": 32768, "zone_cap": 24576, "nr_zones": 10,
       "po2_nlbas": 327680, "size_sectors": 2621440, "persisted": False, "nsid": 1,
       "serial": "SN-ZNS-0", "dm_path": "/dev/mapper/mine"}
bad = {k: (j.get(k), v) for k, v in exp.items() if j.get(k) != v}
assert not bad, bad
assert "dev_zone_size" not in j and "nlbas" not in j, j   # one meaning per key
assert j["backing"].endswith("/dev/nvme0n1"), j["backing"]
assert j["uuid"] == "ZNPO2-" + j["identity"], j
assert j["table"] == "0 2621440 po2zone " + j["backing"], j
PY
t "dry run of a zoned block device (null_blk-like)" 0 "$BIN" map "$D/nullb0" --dry-run
has "null_blk: name, table" "$root/out" "^dmsetup create po2-nullb0 --uuid ZNPO2-dev:nullb0 --table '0 262144 po2zone $D/nullb0'\$"

# ---- refusals (check verdicts first) ----------------------------------------------
t "hidden block device: kernel lacks npo2 support (5)" 5 "$BIN" map "$D/ng0n2"
has "hidden: one line naming the device" "$root/err" "^$P: $D/ng0n2: kernel lacks npo2 support"
lines "hidden: one line" "$root/err" 1
t "po2 namespace: nothing to do (3)" 3 "$BIN" map "$D/nvme0n3"
has "po2: reason" "$root/err" "^$P: $D/nvme0n3: zone size 0x8000 LBAs is a power of 2: nothing to do"
t "capacity < size (3)" 3 "$BIN" map "$D/nvme0n4"
has "capacity: reason" "$root/err" "zone capacity 0x4000 < zone size 0x5000 LBAs"
t "smaller last zone (3)" 3 "$BIN" map "$D/nvme0n7"
has "last zone: reason" "$root/err" "last zone is smaller"
t "conventional namespace (3)" 3 "$BIN" map "$D/nvme0n8"
t "missing device (3)" 3 "$BIN" map "$D/nvme9n9"
has "missing: one line" "$root/err" "^$P: $D/nvme9n9: no such device\$"
t "held block device (4)" 4 "$BIN" map "$D/nvme0n5" --dry-run
has "held: reason (the emulator shows no holder: who is not named)" "$root/err" "block device .*/nvme0n5 is in use \(opened exclusively elsewhere\)$"
t "--persist without a stable identity (3)" 3 "$BIN" map "$D/nullb0" --persist --dry-run
has "--persist: reason" "$root/err" "needs a stable identity"
t "bad --name (2)" 2 "$BIN" map "$D/nvme0n1" --name 'a b'
t "reserved --name (2)" 2 "$BIN" map "$D/nvme0n1" --name znp-creating-x
t "no device (2)" 2 "$BIN" map
t "--restore with a device (2)" 2 "$BIN" map --restore "$D/nvme0n1"

# ---- already mapped, from sysfs holders -------------------------------------------------
mkholder() { # BLK DM-KNAME NAME UUID
	mkdir -p "$root/sys/block/$2/dm" "$root/sys/block/$1/holders"
	echo "$3" >"$root/sys/block/$2/dm/name"
	echo "$4" >"$root/sys/block/$2/dm/uuid"
	ln -s "$root/sys/block/$2" "$root/sys/block/$1/holders/$2"
}
mkholder nvme0n1 dm-0 po2-ours ZNPO2-sn:SN-ZNS-0:nsid:1
mkholder nvme0n6 dm-1 vg-lv LVM-abcdef
t "already mapped (4)" 4 "$BIN" map "$D/nvme0n1" --dry-run
has "already mapped: says by which mapping" "$root/err" "^$P: $D/nvme0n1: already mapped as po2-ours"
t "already mapped through the ng node (4)" 4 "$BIN" map "$D/ng0n1"
# the interlock, dm route: the namespace po2-ours holds (its UUID is ours) is
# refused to every zone command and discard, with and without --force, on
# either node, in one line naming the mapping, its device and the way out
for node in ng0n1 nvme0n1; do
	for f in "" -f; do
		t "reset -a $f of $node, served by po2-ours (4)" 4 "$BIN" reset "$D/$node" -a $f
		has "... names the mapping and the way out" "$root/err" \
			"^$P: $D/$node: served by dm mapping po2-ours as /dev/mapper/po2-ours: reset refused, even with --force; use blkzone reset /dev/mapper/po2-ours, or unmap po2-ours first\$"
		lines "... in one line" "$root/err" 1
	done
done
t "finish -s 0 -f of ng0n1, served by po2-ours (4)" 4 "$BIN" finish "$D/ng0n1" -s 0 -f
t "discard -f of ng0n1, served by po2-ours (4)" 4 "$BIN" discard "$D/ng0n1" -f
has "... names the mapping and the way out" "$root/err" \
	"served by dm mapping po2-ours as /dev/mapper/po2-ours: discard refused, even with --force; use nvme-zns-npo2 discard /dev/mapper/po2-ours, or unmap po2-ours first\$"
t "held by another dm device (4)" 4 "$BIN" map "$D/nvme0n6" --dry-run
has "other holder: named" "$root/err" "in use by dm-1 \(device-mapper device vg-lv\)"
t "list" 0 "$BIN" list
has "list: MAPPED-AS column" "$root/out" "^$root/dev/ng0n1 +$root/dev/nvme0n1 .* visible +po2-ours +znpemu"
has "list: others not mapped" "$root/out" "^$root/dev/ng0n6 +$root/dev/nvme0n6 .* visible +- +znpemu"
t "list -o json" 0 "$BIN" list -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "list JSON mapped_as"
import json, sys
ns = {n["block"]: n["mapped_as"] for n in json.load(open(sys.argv[1]))["namespaces"]}
assert ns["nvme0n1"] == "po2-ours" and ns["nvme0n6"] is None and ns["nvme0n3"] is None, ns
PY
t "unmap a namespace mapped by another tool (3)" 3 "$BIN" unmap "$D/nvme0n6"
has "unmap foreign: says so" "$root/err" "mapped by vg-lv, which is not a mapping made by this tool"
t "unmap a namespace that is not mapped (3)" 3 "$BIN" unmap "$D/nvme0n3"
has "unmap: not mapped" "$root/err" "^$P: $D/nvme0n3: is not mapped\$"
t "unmap a missing device (3)" 3 "$BIN" unmap "$D/nope"

# ---- no device-mapper in this kernel ----------------------------------------------------
rm "$root/sys/block/nvme0n6/holders/dm-1"
if [ $have_dm = 0 ]; then
	t "map without device-mapper (5)" 5 "$BIN" map "$D/nvme0n6"
	has "no dm: one line" "$root/err" "^$P: $D/nvme0n6: device-mapper is not available"
	t "status without device-mapper (5)" 5 "$BIN" status
	lines "status without dm: nothing on stdout" "$root/out" 0
	t "unmap by name without device-mapper (5)" 5 "$BIN" unmap po2-ours
	echo "po2-a sn:SN-ZNS-0:nsid:6" >"$root/maps.conf"
	t "restore without device-mapper (5)" 5 "$BIN" map --restore --config "$root/maps.conf"
fi
# restore --dry-run: a recorded namespace present (found by identity) would be
# mapped, an absent one is skipped; nothing is created either way
t "identity of ng0n6" 0 "$BIN" map "$D/ng0n6" --dry-run -o json
id6=$(LD_PRELOAD= python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["identity"])' "$root/out")
printf '%s\n' "# comment" "r6 $id6 lba_size=4096 zone_size=24576 nr_zones=10" \
	"gone sn:nope:nsid:1" >"$root/maps.conf"
t "restore --dry-run" 0 "$BIN" map --restore --dry-run --config "$root/maps.conf" -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "restore --dry-run JSON"
import json, sys
j = json.load(open(sys.argv[1]))
e = {x["name"]: x for x in j["entries"]}
assert j["nr_entries"] == 2 and e["r6"]["line"] == 2 and e["gone"]["line"] == 3, j
assert e["r6"]["result"] == "would-map" and e["r6"]["device"].endswith("/dev/nvme0n6"), e
assert e["gone"]["result"] == "missing" and "skipped" in e["gone"]["error"]["message"], e
assert list(e["gone"]["error"]) == ["errno", "errno_name", "nvme_status", "nvme_status_name", "device", "message"], e
assert e["gone"]["error"]["device"] == "gone" and e["r6"]["error"] is None, e
PY
printf '%s\n' "r6 $id6 lba_size=4096 zone_size=12288" >"$root/maps.conf"
t "restore --dry-run: recorded geometry differs (3)" 3 "$BIN" map --restore --dry-run --config "$root/maps.conf"
has "geometry differs: one stderr line" "$root/err" "^$P: r6: geometry differs from the recorded one"
t "restore with no mapping file: nothing to do (0)" 0 "$BIN" map --restore --config "$root/none.conf" -o json
LD_PRELOAD= python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["entries"] == [] and j["nr_entries"] == 0, j' \
	"$root/out" && ok || bad "restore JSON with no file"
t "restore without a mapping file: quiet at boot (0)" 0 "$BIN" map --restore --config "$root/none.conf"
[ ! -s "$root/out" ] && [ ! -s "$root/err" ] && ok || bad "restore with no file printed: $(cat "$root/out" "$root/err")"
t "restore --dry-run without a mapping file (0)" 0 "$BIN" map --restore --dry-run --config "$root/none.conf"
has "... says so" "$root/out" "^dry run: no mapping file $root/none.conf: nothing recorded, nothing to restore\$"
lines "... in one line" "$root/out" 1

# ---- a device path the table cannot carry (a space in it) ----------------------------
# The single-device map refuses it; a concatenation must too, not print or
# create a table from a line that was never written.
sp="$root/with space"
mkdir "$sp"
printf '%s\n' "path=dev/ng0n1 nsid=1 zsze=24576 zones=10" "path=dev/nvme0n1 kind=nvme twin=ng0n1" \
	"path=dev/ng0n2 nsid=2 zsze=24576 zones=10" "path=dev/nvme0n2 kind=nvme twin=ng0n2" >"$sp/emu.conf"
python3 "$MKFAKE" "$sp" >/dev/null || bad "mkfake in a directory with a space"
spmap() { # DESC ARGS...: map --dry-run in the tree with a space, refused (3)
	local desc=$1
	shift
	ZNP_EMU_CONFIG=$sp/emu.conf ZNP_SYSFS_ROOT=$sp/sys ZNP_DEV_ROOT=$sp/dev \
		t "$desc: a space in the device path (3)" 3 "$BIN" map "$@" --dry-run
	has "$desc: one line: cannot build the table" "$root/err" \
		"^$P: $sp/dev/nvme0n1: cannot build the table: Invalid argument\$"
	lines "$desc: nothing on stdout" "$root/out" 0
}
spmap "one device" "$sp/dev/nvme0n1"
spmap "two devices" "$sp/dev/nvme0n1" "$sp/dev/nvme0n2" --name cat

emu_end map-emu

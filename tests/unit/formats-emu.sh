#!/bin/bash
# LBA formats with metadata or protection information, and zone descriptor
# extensions, on emulated namespaces (tests/emu ms=/mset=/pi=/zdes=): check
# refuses metadata-format (exit 16) where no route serves the format, map
# --ublk refuses it with a one-line reason (exit 3) and creates nothing, plain
# map refuses the extended format the kernel gives no capacity, and a
# namespace with descriptor extensions stays mappable through ublk. The
# served formats are tested in QEMU (tests/layers.d/54-vm-ublk-formats.sh).
#
#   formats-emu.sh NVME_ZNS_NPO2 LIBZNPEMU MKFAKE
set -u
# shellcheck source=tests/unit/emu-lib.sh
. "$(dirname "$0")/emu-lib.sh"
emu_begin formats-emu "$@"

cat >"$root/emu.conf" <<'CONF'
path=dev/nvme0 kind=ctrl serial=SN-FMT-0
path=dev/ng0n1 nsid=1 zsze=24576 zones=10
path=dev/ng0n2 nsid=2 zsze=24576 zones=10 ms=8 mset=1
path=dev/ng0n3 nsid=3 zsze=24576 zones=10 ms=8 mset=0
path=dev/ng0n4 nsid=4 zsze=24576 zones=10 ms=8 pi=1
path=dev/ng0n5 nsid=5 zsze=24576 zones=10 zdes=64
path=dev/ng0n6 nsid=6 zsze=24576 zones=10 ms=8 mset=0
path=dev/nvme0n6 kind=nvme twin=ng0n6
path=dev/ng0n7 nsid=7 zsze=24576 zones=10 ms=8 mset=1
path=dev/nvme0n7 kind=nvme twin=ng0n7
path=dev/ng0n8 nsid=8 zsze=24576 zones=10 ms=8 mset=1 pi=1
path=dev/nvme0n8 kind=nvme twin=ng0n8
path=dev/ng0n9 nsid=9 zsze=24576 zones=10 ms=8 mset=0
path=dev/nvme0n9 kind=nvme twin=ng0n9
CONF
python3 "$MKFAKE" "$root" >/dev/null || { echo "mkfake failed" >&2; exit 1; }
# nvme0n9: a kernel without CONFIG_BLK_DEV_INTEGRITY gives separate metadata no capacity
echo 0 >"$root/sys/block/nvme0n9/size" || bad "zero nvme0n9's size"
export LD_PRELOAD=$EMU ZNP_EMU_CONFIG=$root/emu.conf ZNP_SYSFS_ROOT=$root/sys \
	ZNP_DEV_ROOT=$root/dev ZNP_RUN_DIR=$root/run LC_ALL=C
D=$root/dev
mknod "$root/dev/ublk-control" c 1 3 || bad "mknod ublk-control"

# reasons of `check -o json` in $root/out: VERDICT EXIT REASON...
json_is() {
	LD_PRELOAD= python3 - "$root/out" "$@" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
verdict, code, reasons = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
assert j["verdict"] == verdict and j["exit_code"] == code, j
assert all(r in j["reasons"] for r in reasons), (reasons, j["reasons"])
assert "ublk-zoned-available" not in j["reasons"] or verdict == "mappable-ublk", j
PY
}

# ---- check ---------------------------------------------------------------------------
t "plain format, hidden: mappable-ublk (15)" 15 "$BIN" check "$D/ng0n1"
for n in 2 3 4; do
	t "ng0n$n hidden with metadata: metadata-format (16)" 16 "$BIN" check "$D/ng0n$n"
	has "ng0n$n: the verdict line" "$root/out" "^verdict: +metadata-format: .*metadata or protection information"
	t "ng0n$n check json" 16 "$BIN" check "$D/ng0n$n" -o json
done
t "json: extended" 16 "$BIN" check "$D/ng0n2" -o json
json_is metadata-format 16 lba-metadata block-device-hidden && ok || bad "ng0n2 JSON"
t "json: separate" 16 "$BIN" check "$D/ng0n3" -o json
json_is metadata-format 16 lba-metadata && ok || bad "ng0n3 JSON"
t "json: PI" 16 "$BIN" check "$D/ng0n4" -o json
json_is metadata-format 16 lba-metadata protection-info && ok || bad "ng0n4 JSON"
t "descriptor extensions: mappable-ublk (15)" 15 "$BIN" check "$D/ng0n5" -o json
json_is mappable-ublk 15 ublk-zoned-available && ok || bad "ng0n5 JSON"
# the kernel's block device: separate metadata and an exact PI tuple are its own business
t "visible, separate metadata: mappable (0)" 0 "$BIN" check "$D/nvme0n6" -o json
json_is mappable 0 lba-metadata && ok || bad "nvme0n6 JSON"
t "visible, extended PI of 8 bytes: mappable (0)" 0 "$BIN" check "$D/nvme0n8" -o json
json_is mappable 0 lba-metadata protection-info && ok || bad "nvme0n8 JSON"
t "visible, extended metadata without PI: metadata-format (16)" 16 "$BIN" check "$D/nvme0n7"
t "visible, separate metadata, the kernel gave it capacity 0: metadata-format (16)" 16 \
	"$BIN" check "$D/nvme0n9"

# ---- map --ublk: one line naming the device and the format, nothing created --------------
t "map --ublk extended (3)" 3 "$BIN" map --ublk "$D/ng0n2"
lines "... one line" "$root/err" 1
has "... naming device and format" "$root/err" "ng0n2.*8 bytes of metadata per LBA \(extended LBA, interleaved with the data\)"
t "map --ublk separate (3)" 3 "$BIN" map --ublk "$D/ng0n3"
lines "... one line" "$root/err" 1
has "... separate buffer" "$root/err" "ng0n3.*8 bytes of metadata per LBA \(in a separate buffer\)"
t "map --ublk PI (3)" 3 "$BIN" map --ublk "$D/ng0n4"
has "... protection information" "$root/err" "ng0n4.*8 bytes of metadata per LBA \(in a separate buffer, protection information type 1\)"
t "map --ublk --dry-run PI (3)" 3 "$BIN" map --ublk "$D/ng0n4" --dry-run
t "map --ublk --force-ublk of a visible metadata namespace (3)" 3 \
	"$BIN" map --ublk --force-ublk "$D/ng0n6"
has "... the format, not the route" "$root/err" "ng0n6.*8 bytes of metadata per LBA"
[ ! -e "$root/run" ] && ok || bad "a refused map --ublk created the state directory"
t "map --ublk --dry-run with descriptor extensions (0)" 0 "$BIN" map --ublk "$D/ng0n5" \
	--dry-run -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "zdes dry run JSON"
import json, sys
j = json.load(open(sys.argv[1]))
exp = {"kind": "ublk", "zone_sectors": 262144, "zone_cap_sectors": 196608, "nr_zones": 10,
       "zone_size": 24576, "nsid": 5}
bad = {k: (j.get(k), v) for k, v in exp.items() if j.get(k) != v}
assert not bad, bad
PY

# the core report iterator asks for basic reports too: 64-byte descriptors
t "report of the namespace with descriptor extensions" 0 "$BIN" report "$D/ng0n5" -o json
LD_PRELOAD= python3 - "$root/out" <<'PY' && ok || bad "zdes report JSON"
import json, sys
j = json.load(open(sys.argv[1]))
z = j["zone_list"]
assert j["nr_zones"] == 10 and len(z) == 10, j["nr_zones"]
assert [d["slba"] for d in z] == [i * 24576 for i in range(10)], z
assert all(d["cap"] == 24576 and d["wp"] == d["slba"] for d in z), z
PY

# ---- plain map (dm): the extended format without PI has no capacity in the kernel --------
t "map of the visible extended namespace (3)" 3 "$BIN" map "$D/nvme0n7" --dry-run
lines "... one line" "$root/err" 1
has "... why" "$root/err" "nvme0n7: the kernel gives the block device no capacity for this LBA format \(8 bytes of metadata per LBA, extended LBA\)"
t "map of the separate-metadata namespace the kernel gave no capacity (3)" 3 \
	"$BIN" map "$D/nvme0n9" --dry-run
has "... why" "$root/err" "nvme0n9: the kernel gives the block device no capacity for this LBA format \(8 bytes of metadata per LBA, separate\)"
t "map of the visible separate-metadata namespace the kernel serves (dry run, 0)" 0 \
	"$BIN" map "$D/nvme0n6" --dry-run
t "map of the hidden metadata namespace: kernel lacks npo2 (5)" 5 "$BIN" map "$D/ng0n2" --dry-run
[ ! -e "$root/run" ] && ok || bad "a refused map created the state directory"

emu_end formats-emu

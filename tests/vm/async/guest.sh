# Guest side of the async VM tests (busybox sh; lib.sh is sourced by /init).
# Namespaces (tests/vm/async/run.sh): ctrl0 nsid1 zoned 1000 zones of 768 KiB
# (npo2, 4 KiB LBAs, block device hidden on the stock kernel), ctrl0 nsid2
# conventional 64 MiB, ctrl1 nsid1 zoned 48 MiB zones on 512-byte LBAs, ctrl1
# nsid2 zoned po2 64 MiB zones (a visible zoned block device).
# Zone states are checked with nvme-cli's report (not ours), data with
# nvme-pattern / nvme read; expected values come from /vm/ns.conf.

BIN=nvme-zns-npo2
Z=$(vm_ng 0 1)
C=$(vm_ng 0 2)
E=$(vm_ng 1 1)
vm_summary
LBA=$(ns_conf 0 1 lbas)
ZB=$(ns_conf 0 1 zsze)
ZL=$((ZB / LBA))
NZ=$(($(ns_conf 0 1 size) / ZB))
vm_log "zoned ns $Z: $NZ zones of $ZL LBAs ($ZB bytes); conventional $C; 512-byte zoned $E"

# zstate DEV ZONE_LBAS ZONE: "STATE WP" of one zone, from nvme-cli's report
zstate() {
	nvme zns report-zones "$1" -s $(($2 * $3)) -d 1 -o json 2>/dev/null |
		tr -d ' \n' | sed -n 's/.*"wp":\([0-9]*\),.*"state":"\([A-Z_]*\)".*/\2 \1/p'
}
expect_zone() {	# DESC DEV ZONE_LBAS ZONE STATE [WP_OFFSET]: FULL zones have no valid wp
	if [ $# -ge 6 ]; then
		expect_eq "$1" "$(zstate "$2" "$3" "$4")" "$5 $(($4 * $3 + $6))"
	else
		expect_eq "$1" "$(zstate "$2" "$3" "$4" | cut -d' ' -f1)" "$5"
	fi
}
json_has() {	# DESC FILE REGEX
	if grep -Eq -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no /$3/ in $(tr -d '\n' <"$2" | head -c 600)"; fi
}

# --- zoned: whole zones become batched resets --------------------------------
for z in 0 1 2 3 4 5 6 7 8 9; do
	nvme-pattern write "$Z" $((z * ZL)) 64 "$LBA" 1 >/dev/null || not_ok "write zone $z"
done
expect_zone "zone 3 written: implicitly open, wp +64" "$Z" "$ZL" 3 IMP_OPENED 64
expect_rc "discard zones 2..6 (whole zones) on $Z" 0 \
	$BIN discard "$Z" --offset $((2 * ZB)) --length $((5 * ZB)) --force -q 8 -o json
cp /tmp/vm-cmd.out /tmp/d1.json
json_has "JSON: zoned target, io_uring NVMe passthrough" /tmp/d1.json '"engine": "io_uring-nvme-passthru"'
json_has "JSON: 5 zone resets completed" /tmp/d1.json '"completed": 5,'
json_has "JSON: target zoned" /tmp/d1.json '"target": "zoned"'
for z in 2 3 4 5 6; do expect_zone "zone $z reset: EMPTY at its start" "$Z" "$ZL" $z EMPTY 0; done
for z in 0 1 7 8 9; do expect_zone "zone $z untouched: IMP_OPENED wp +64" "$Z" "$ZL" $z IMP_OPENED 64; done
expect_ok "zone 1 data intact" nvme-pattern verify "$Z" $((1 * ZL)) 64 "$LBA" 1
expect_ok "zone 7 data intact" nvme-pattern verify "$Z" $((7 * ZL)) 64 "$LBA" 1

expect_rc "discard --lba of zone 7" 0 $BIN discard "$Z" --lba --offset $((7 * ZL)) --length "$ZL" --force
expect_zone "zone 7 reset" "$Z" "$ZL" 7 EMPTY 0
expect_rc "ZNP_FORCE_SYNC=1 discard of zone 8" 0 \
	env ZNP_FORCE_SYNC=1 $BIN discard "$Z" --offset $((8 * ZB)) --length "$ZB" --force -o json
json_has "forced sync: engine nvme-ioctl" /tmp/vm-cmd.out '"engine": "nvme-ioctl"'
expect_zone "zone 8 reset by the synchronous engine" "$Z" "$ZL" 8 EMPTY 0

expect_rc "part of a zone refused" 2 $BIN discard "$Z" --offset $((9 * ZB)) --length 4096 --force
json_has "partial zone: explanation" /tmp/vm-cmd.out "part of a zone"
expect_rc "zone start but not its end refused" 2 $BIN discard "$Z" --offset $((9 * ZB)) --length $((ZB + 4096)) --force
expect_rc "offset not a multiple of the LBA size refused" 2 $BIN discard "$Z" --offset 512 --length "$ZB" --force
expect_rc "past the end refused" 2 $BIN discard "$Z" --offset $((NZ * ZB)) --length "$ZB" --force
expect_zone "refusals changed nothing (zone 9)" "$Z" "$ZL" 9 IMP_OPENED 64
expect_rc "dry run of zones 0..1" 0 $BIN discard "$Z" --length $((2 * ZB)) --dry-run -o json
json_has "dry run plan lists zone 1 (slba $ZL)" /tmp/vm-cmd.out "\"start\": $ZL,"
expect_zone "dry run changed nothing (zone 0)" "$Z" "$ZL" 0 IMP_OPENED 64
expect_rc "no --force, no terminal: refused" 4 $BIN discard "$Z" --length "$ZB"
expect_zone "refusal changed nothing (zone 0)" "$Z" "$ZL" 0 IMP_OPENED 64

# whole namespace: 1000 resets at queue depth 64
zsend "$Z" 2 100 50 "$ZL" || not_ok "finish zones 100..149 (setup)"
expect_zone "zone 120 finished (setup): FULL" "$Z" "$ZL" 120 FULL
expect_rc "discard the whole zoned namespace ($NZ zone resets)" 0 $BIN discard "$Z" --force -o json
json_has "whole namespace: $NZ commands completed" /tmp/vm-cmd.out "\"completed\": $NZ,"
for z in 0 9 120 149 $((NZ - 1)); do expect_zone "zone $z EMPTY after the whole-namespace reset" "$Z" "$ZL" $z EMPTY 0; done

# 512-byte LBAs, 48 MiB zones
EL=$(ns_conf 1 1 lbas)
EZL=$(($(ns_conf 1 1 zsze) / EL))
nvme-pattern write "$E" $((3 * EZL)) 128 "$EL" 3 >/dev/null || not_ok "write zone 3 of $E"
nvme-pattern write "$E" $((4 * EZL)) 128 "$EL" 3 >/dev/null || not_ok "write zone 4 of $E"
expect_rc "512-byte LBAs: discard --lba zone 3" 0 $BIN discard "$E" --lba --offset $((3 * EZL)) --length "$EZL" --force
expect_zone "512-byte LBAs: zone 3 EMPTY" "$E" "$EZL" 3 EMPTY 0
expect_zone "512-byte LBAs: zone 4 untouched" "$E" "$EZL" 4 IMP_OPENED 128

# --- po2 zoned namespace: a visible zoned block device (range ioctl) ---------
P=$(vm_ng 1 2)
PB=$(vm_blk 1 2) || not_ok "po2 zoned namespace has a block device"
PL=$(ns_conf 1 2 lbas)
PZB=$(ns_conf 1 2 zsze)
PZL=$((PZB / PL))
for z in 1 2 3; do
	nvme-pattern write "$P" $((z * PZL)) 32 "$PL" 4 >/dev/null || not_ok "write zone $z of $P"
done
expect_rc "zoned block device: discard zones 1..2" 0 $BIN discard "$PB" --offset "$PZB" --length $((2 * PZB)) --force -o json
json_has "zoned block device: engine blkzone-ioctl" /tmp/vm-cmd.out '"engine": "blkzone-ioctl"'
json_has "zoned block device: 2 zones" /tmp/vm-cmd.out '"completed": 2,'
expect_zone "zoned block device: zone 1 EMPTY" "$P" "$PZL" 1 EMPTY 0
expect_zone "zoned block device: zone 2 EMPTY" "$P" "$PZL" 2 EMPTY 0
expect_zone "zoned block device: zone 3 untouched" "$P" "$PZL" 3 IMP_OPENED 32
expect_rc "zoned block device: part of a zone refused" 2 $BIN discard "$PB" --offset "$((3 * PZB))" --length 4096 --force

# --- batched zone management through the zone commands -----------------------
if $BIN finish --help 2>&1 | grep -q -- --queue-depth; then
	expect_rc "finish zones 10..29 at queue depth 8" 0 $BIN finish "$Z" -s $((10 * ZL)) -c 20 -q 8 --force
	for z in 10 19 29; do expect_zone "zone $z FULL after the batched finish" "$Z" "$ZL" $z FULL; done
	expect_zone "zone 30 not finished" "$Z" "$ZL" 30 EMPTY 0
	expect_rc "reset zones 10..29 (ng default: batched)" 0 $BIN reset "$Z" -s $((10 * ZL)) -c 20 --force
	for z in 10 29; do expect_zone "zone $z EMPTY after the batched reset" "$Z" "$ZL" $z EMPTY 0; done
	expect_rc "finish --all stays one select-all command" 0 $BIN finish "$Z" --all --force --dry-run -o json
	json_has "select-all dry run: one command" /tmp/vm-cmd.out '"select_all": true'
else
	not_ok "zone commands accept -q/--queue-depth (batched zone management)"
fi

# --- conventional namespace: Dataset Management (deallocate) -----------------
CL=$(ns_conf 0 2 lbas)
nvme-pattern write "$C" 0 4096 "$CL" 2 >/dev/null || not_ok "write LBAs 0..4095 of $C"
printf '16 16\n100 50\n1000 24\n' >/tmp/dsm.ranges
expect_rc "discard 3 LBA ranges on the conventional namespace" 0 \
	$BIN discard "$C" --lba --ranges /tmp/dsm.ranges --force -o json
cp /tmp/vm-cmd.out /tmp/d2.json
json_has "DSM: target nvme-conventional" /tmp/d2.json '"target": "nvme-conventional"'
json_has "DSM: io_uring NVMe passthrough, 3 commands" /tmp/d2.json '"completed": 3,'
json_has "DSM: engine" /tmp/d2.json '"engine": "io_uring-nvme-passthru"'
zero_lbas() {	# DESC DEV SLBA NLB
	dd if=/dev/zero of=/tmp/zeros bs="$CL" count="$4" 2>/dev/null
	rm -f /tmp/rd	# nvme read does not truncate its output file
	if nvme read "$2" -s "$3" -c $(($4 - 1)) -z $(($4 * CL)) -d /tmp/rd >/dev/null 2>&1 &&
		cmp -s /tmp/rd /tmp/zeros; then ok "$1"; else not_ok "$1" "LBAs $3+$4 not zero"; fi
}
zero_lbas "DSM: LBAs 16..31 read zero" "$C" 16 16
zero_lbas "DSM: LBAs 100..149 read zero" "$C" 100 50
zero_lbas "DSM: LBAs 1000..1023 read zero" "$C" 1000 24
expect_ok "DSM: LBAs 0..15 intact" nvme-pattern verify "$C" 0 16 "$CL" 2
expect_ok "DSM: LBAs 32..99 intact" nvme-pattern verify "$C" 32 68 "$CL" 2
expect_ok "DSM: LBAs 150..999 intact" nvme-pattern verify "$C" 150 850 "$CL" 2
expect_ok "DSM: LBAs 1024..4095 intact" nvme-pattern verify "$C" 1024 3072 "$CL" 2
expect_rc "DSM with ZNP_FORCE_SYNC=1" 0 env ZNP_FORCE_SYNC=1 $BIN discard "$C" --lba --offset 2000 --length 8 --force -o json
json_has "DSM forced sync: engine nvme-ioctl" /tmp/vm-cmd.out '"engine": "nvme-ioctl"'
zero_lbas "DSM sync: LBAs 2000..2007 read zero" "$C" 2000 8
expect_ok "DSM sync: LBAs 2008..4095 intact" nvme-pattern verify "$C" 2008 2088 "$CL" 2
CB=$(vm_blk 0 2) || not_ok "conventional namespace has a block device"
expect_rc "conventional block device: io_uring block discard of LBAs 3000..3015" 0 \
	$BIN discard "$CB" --offset $((3000 * CL)) --length $((16 * CL)) --force -o json
json_has "block device: engine io_uring-discard" /tmp/vm-cmd.out '"engine": "io_uring-discard"'
zero_lbas "block discard: LBAs 3000..3015 read zero (through the ng node)" "$C" 3000 16
expect_ok "block discard: LBAs 3016..4095 intact" nvme-pattern verify "$C" 3016 1080 "$CL" 2
expect_rc "DSM: range past the end refused" 2 $BIN discard "$C" --lba --offset $(($(ns_conf 0 2 size) / CL)) --length 1 --force
true

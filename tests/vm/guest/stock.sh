# Stock-kernel end-to-end tests (layer 50-vm-stock), run in the guest by
# tests/vm/vm-run.sh --preset standard.  Expected values come from
# /vm/ns.conf (what QEMU was configured with); zone states are checked with
# Debian's nvme-cli as the independent oracle.  JSON output is printed in
# ### sections and checked on the host by tests/vm/check-stock.py.

ZNP=nvme-zns-npo2

# --- expected geometry, from the QEMU configuration -------------------------
# geo CTRL NSID: sets LBAS ZSZE ZCAP (LBAs) NZONES for the namespace
geo() {
	LBAS=$(ns_conf "$1" "$2" lbas)
	ZSZE=$(($(ns_conf "$1" "$2" zsze) / LBAS))
	ZCAP=$(($(ns_conf "$1" "$2" zcap) / LBAS))
	NZONES=0
	[ "$ZSZE" -gt 0 ] && NZONES=$(($(ns_conf "$1" "$2" size) / LBAS / ZSZE))
}

# zinfo DEV LBA: "STATE WP" of the zone holding LBA, from nvme-cli
zinfo() {
	nvme zns report-zones "$1" -s "$2" -d 1 -o json 2>/dev/null |
		tr -d ' \n' | sed -n 's/.*"wp":\([0-9]*\),.*"state":"\([A-Z_]*\)".*/\2 \1/p'
}

# expect_zone DESC DEV LBA STATE WP
expect_zone() {
	expect_eq "$1" "$(zinfo "$2" "$3")" "$4 $5"
}

# count_state DEV STATE: zones in STATE (nvme-cli full report)
count_state() {
	nvme zns report-zones "$1" -o json | grep -c "\"state\":\"$2\""
}

A=$(vm_ng 0 1) B=$(vm_ng 0 2) C=$(vm_ng 0 3) D=$(vm_ng 0 4) E=$(vm_ng 1 1)
BBLK=$(vm_blk 0 2)

vm_log "layout as the guest sees it"
vm_summary
# name ctrl nsid controller ng-node block-node (- when hidden), from sysfs
layout() {
	local cn
	for cn in "0 1 A" "0 2 B" "0 3 C" "0 4 D" "1 1 E"; do
		set -- $cn
		echo "$3 $1 $2 $(vm_ctrl $1) $(vm_ng $1 $2) $(vm_blk $1 $2 || echo -)"
	done
}
section layout layout
section nsconf cat /vm/ns.conf

# --- what the stock kernel did (independent of our tool) --------------------
expect_eq "A: stock kernel hides the npo2 block device" "$(vm_blk 0 1 || echo hidden)" hidden
expect_eq "C: stock kernel hides the npo2 block device" "$(vm_blk 0 3 || echo hidden)" hidden
expect_eq "E: stock kernel hides the npo2 block device" "$(vm_blk 1 1 || echo hidden)" hidden
expect_match "B: po2 namespace is a block device" '^/dev/nvme[0-9]+n[0-9]+$' "$BBLK"
expect_eq "B: kernel sees a host-managed zoned device" \
	"$(cat /sys/block/"${BBLK#/dev/}"/queue/zoned)" host-managed
expect_match "kernel logged the invalid zone size of A" \
	"invalid zone size: $(($(ns_conf 0 1 zsze) / 4096)) for namespace: 1" "$(dmesg)"

# the oracle's view of each zoned namespace, before anything is written
for n in A B C E; do
	eval dev=\$$n
	section "nvmecli-$n" nvme zns report-zones "$dev" -o json
done
section blkzone-B blkzone report "$BBLK"

[ -x "$(command -v $ZNP)" ] || { not_ok "$ZNP is in the initramfs (run make)"; exit 0; }
$ZNP version

# --- list -------------------------------------------------------------------
vm_log "list"
$ZNP list
expect_rc "list exits 0" 0 $ZNP list
out=$($ZNP list)
for n in A B C E; do
	eval dev=\$$n
	expect_match "list (text) names $n as ${dev#/dev/}" "${dev#/dev/}" "$out"
done
section list-json $ZNP list -o json
expect_rc "list -o json exits 0" 0 $ZNP list -o json

# --- report -----------------------------------------------------------------
for n in "A 0 1" "B 0 2" "C 0 3" "E 1 1"; do
	set -- $n
	eval dev=\$$1
	geo "$2" "$3"
	vm_log "report $1 ($dev): $NZONES zones of $ZSZE LBAs, capacity $ZCAP"
	$ZNP report -c 3 "$dev"
	section "report-$1" $ZNP report -o json "$dev"
	expect_rc "report $1 exits 0" 0 $ZNP report "$dev"
	# text report: one line per zone plus headers; the zone lines name the starts
	out=$($ZNP report "$dev")
	last=$(((NZONES - 1) * ZSZE))
	expect_match "report $1 (text) shows the last zone start $last" \
		"(^|[^0-9x])($last|$(printf '0x%x' $last)|$(printf '0x%09x' $last))([^0-9a-fx]|$)" "$out"
	# filters
	section "report-$1-s3" $ZNP report -o json -s $((3 * ZSZE)) "$dev"
	section "report-$1-s3mid" $ZNP report -o json -s $((3 * ZSZE + 5)) "$dev"
	section "report-$1-c2" $ZNP report -o json -c 2 "$dev"
	section "report-$1-s1c3" $ZNP report -o json -s "$ZSZE" -c 3 "$dev"
done

# --- check ------------------------------------------------------------------
vm_log "check"
for n in "A 11" "B 10" "C 12" "D 14" "E 11"; do
	set -- $n
	eval dev=\$$1
	$ZNP check "$dev"
	expect_rc "check $1 exits $2" "$2" $ZNP check "$dev"
	section "check-$1" $ZNP check -o json "$dev"
done
expect_rc "check of a missing device exits 3" 3 $ZNP check /dev/ng9n9
expect_rc "check of a controller node exits 3" 3 $ZNP check "/dev/$(vm_ctrl 0)"
: >/tmp/regular
expect_rc "check of a regular file exits 3" 3 $ZNP check /tmp/regular
expect_rc "report of a conventional namespace exits 3" 3 $ZNP report "$D"
expect_rc "reset on a conventional namespace exits 3" 3 $ZNP reset -s 0 -f "$D"

# --- zone picture -----------------------------------------------------------
# zonemap_mixed NAME DEV W: the picture of zone_ops' mixed state (zone 1
# closed with W LBAs, 2 full, 3-4 closed empty-handed, the rest empty; checked
# with nvme-cli above), as text and as SVG
zonemap_mixed() {
	local n=$1 dev=$2 w=$3 want out row i
	want=".c#cc" i=5
	while [ $i -lt "$NZONES" ]; do want="$want." i=$((i + 1)); done
	vm_log "zonemap of $n"
	$ZNP zonemap --color=always "$dev"
	out=$($ZNP zonemap -w 200 "$dev")
	row=$(echo "$out" | sed -n 's/^ *0 //p')
	expect_eq "$n: zonemap row: one character per zone's state" "$row" "$want"
	expect_match "$n: zonemap legend counts" \
		"empty $((NZONES - 4)) .*closed 3 .*full 1 " "$(echo "$out" | tr '\n' ' ')"
	expect_match "$n: zonemap written LBAs (zone 1 + the full zone 2)" \
		"\\($((w + ZCAP)) of $((NZONES * ZCAP)) LBAs\\)" "$out"
	expect_ok "$n: zonemap --svg" $ZNP zonemap --svg /tmp/zonemap-$n.svg "$dev"
	expect_eq "$n: SVG has one titled cell per zone" \
		"$(grep -c '<title>zone [0-9]*: start LBA' /tmp/zonemap-$n.svg)" "$NZONES"
	expect_match "$n: SVG title of zone 1: closed, its write pointer" \
		"<title>zone 1: start LBA $(printf '0x%x' "$ZSZE"), closed, write pointer $(printf '0x%x' $((ZSZE + w))) \\($w of $ZCAP LBAs written\\)" \
		"$(cat /tmp/zonemap-$n.svg)"
	expect_match "$n: SVG ends with the document" '</svg>$' "$(tail -1 /tmp/zonemap-$n.svg)"
}

# --- zone management --------------------------------------------------------
# zone_ops NAME CTRL NSID: write, open/close/finish/reset, --all, refusals
zone_ops() {
	local n=$1 dev z1 z2 z3 z4 w
	eval dev=\$$1
	geo "$2" "$3"
	z1=$ZSZE z2=$((2 * ZSZE)) z3=$((3 * ZSZE)) z4=$((4 * ZSZE))
	w=$((64 * 1024 / LBAS + 7))	# more than one command, not a round number
	vm_log "zone management on $n ($dev)"

	expect_zone "$n: zone 1 starts empty" "$dev" $z1 EMPTY $z1
	expect_ok "$n: write $w LBAs at the start of zone 1" nvme-pattern write "$dev" $z1 $w "$LBAS" 11
	expect_zone "$n: write leaves zone 1 implicitly open, wp +$w" "$dev" $z1 IMP_OPENED $((z1 + w))
	expect_ok "$n: data reads back" nvme-pattern verify "$dev" $z1 $w "$LBAS" 11
	section "report-$n-imp" $ZNP report -o json -S implicit-open "$dev"

	expect_ok "$n: close zone 1" $ZNP close -s $z1 "$dev"
	expect_zone "$n: zone 1 closed, wp kept" "$dev" $z1 CLOSED $((z1 + w))
	section "report-$n-closed" $ZNP report -o json --state closed "$dev"

	expect_ok "$n: open zone 2" $ZNP open -s $z2 "$dev"
	expect_zone "$n: zone 2 explicitly open" "$dev" $z2 EXP_OPENED $z2
	expect_ok "$n: open zones 3-4 (--count 2)" $ZNP open -s $z3 -c 2 "$dev"
	expect_zone "$n: zone 3 explicitly open" "$dev" $z3 EXP_OPENED $z3
	expect_zone "$n: zone 4 explicitly open" "$dev" $z4 EXP_OPENED $z4
	expect_zone "$n: zone 5 untouched" "$dev" $((5 * ZSZE)) EMPTY $((5 * ZSZE))

	expect_ok "$n: finish zone 2" $ZNP finish -f -s $z2 "$dev"
	expect_eq "$n: zone 2 full" "$(zinfo "$dev" $z2 | cut -d' ' -f1)" FULL
	expect_ok "$n: close --all" $ZNP close -a "$dev"
	expect_eq "$n: no zone open after close --all" \
		"$(count_state "$dev" EXP_OPENED)/$(count_state "$dev" IMP_OPENED)" 0/0
	expect_zone "$n: zone 3 closed by --all" "$dev" $z3 CLOSED $z3
	expect_zone "$n: zone 1 still closed, wp kept" "$dev" $z1 CLOSED $((z1 + w))
	# zones in several states now: compared zone by zone on the host
	section "report-$n-mixed" $ZNP report -o json "$dev"
	section "nvmecli-$n-mixed" nvme zns report-zones "$dev" -o json
	section "report-$n-mixed-empty" $ZNP report -o json -S empty "$dev"
	section "report-$n-mixed-full" $ZNP report -o json -S full "$dev"
	section "report-$n-mixed-closed-s2" $ZNP report -o json -S closed -s $z2 "$dev"
	zonemap_mixed "$n" "$dev" "$w"

	# refusals: nothing may change
	expect_rc "$n: reset without --force on a non-TTY refuses (4)" 4 $ZNP reset -s $z1 "$dev"
	expect_rc "$n: reset --all without --force refuses (4)" 4 $ZNP reset -a "$dev"
	expect_rc "$n: offline without --force refuses (4)" 4 $ZNP offline -s $z1 "$dev"
	expect_rc "$n: finish without --force refuses (4)" 4 $ZNP finish -s $z1 "$dev"
	expect_rc "$n: reset --dry-run exits 0" 0 $ZNP reset --dry-run -s $z1 "$dev"
	expect_zone "$n: refused commands changed nothing" "$dev" $z1 CLOSED $((z1 + w))
	expect_rc "$n: misaligned --start-lba rejected (2)" 2 $ZNP reset -f -s $((z1 + 1)) "$dev"
	# where zone 1 would start if the zone size were rounded up to a power of 2
	p2=1
	while [ $p2 -lt "$ZSZE" ]; do p2=$((p2 * 2)); done
	[ $p2 = "$ZSZE" ] && p2=$((ZSZE + ZSZE / 2))
	expect_rc "$n: --start-lba $p2 (po2 rounding of the zone size) rejected (2)" 2 \
		$ZNP open -s $p2 "$dev"
	expect_rc "$n: --start-lba past the end rejected (2)" 2 \
		$ZNP open -s $((NZONES * ZSZE)) "$dev"
	expect_rc "$n: --count past the last zone rejected (2)" 2 \
		$ZNP open -s $(((NZONES - 1) * ZSZE)) -c 2 "$dev"
	expect_zone "$n: zone 1 unchanged by rejected commands" "$dev" $z1 CLOSED $((z1 + w))
	expect_zone "$n: zone 0 unchanged by rejected commands" "$dev" 0 EMPTY 0
	expect_zone "$n: last zone unchanged by rejected commands" "$dev" \
		$(((NZONES - 1) * ZSZE)) EMPTY $(((NZONES - 1) * ZSZE))
	expect_eq "$n: no zone opened by rejected commands" "$(count_state "$dev" EXP_OPENED)" 0

	expect_ok "$n: reset zone 1 with --force" $ZNP reset -f -s $z1 "$dev"
	expect_zone "$n: zone 1 empty after reset" "$dev" $z1 EMPTY $z1
	expect_zone "$n: zone 3 untouched by the zone-1 reset" "$dev" $z3 CLOSED $z3
	expect_ok "$n: finish --all" $ZNP finish -f -a "$dev"
	expect_eq "$n: closed zone 3 full after finish --all" "$(zinfo "$dev" $z3 | cut -d' ' -f1)" FULL
	expect_ok "$n: reset --all" $ZNP reset -f -a "$dev"
	expect_eq "$n: every zone empty after reset --all" "$(count_state "$dev" EMPTY)" "$NZONES"
	expect_zone "$n: zone 2 wp back at its start" "$dev" $z2 EMPTY $z2
}
# B (po2, block device visible): data in zones 1 and 2, then our report
# against nvme-cli's and blkzone's on the same device
geo 0 2
expect_ok "B: write into zone 1" nvme-pattern write "$B" "$ZSZE" 40 4096 5
expect_ok "B: write into zone 2" nvme-pattern write "$B" $((2 * ZSZE)) 8 4096 6
expect_ok "B: finish zone 2 (nvme-cli)" nvme zns finish-zone "$B" -s $((2 * ZSZE))
expect_eq "B: zone 2 full" "$(zinfo "$B" $((2 * ZSZE)) | cut -d' ' -f1)" FULL
section report-B-mixed $ZNP report -o json "$B"
section nvmecli-B-mixed nvme zns report-zones "$B" -o json
section blkzone-B-mixed blkzone report "$BBLK"
section report-B-mixed-empty $ZNP report -o json -S empty "$B"
section report-B-mixed-full $ZNP report -o json -S full "$B"
section report-B-mixed-closed-s2 $ZNP report -o json -S closed -s $((2 * ZSZE)) "$B"
expect_ok "B: reset zones 1-2" $ZNP reset -f -s "$ZSZE" -c 2 "$B"
expect_eq "B: every zone empty again" "$(count_state "$B" EMPTY)" "$NZONES"

zone_ops A 0 1
zone_ops E 1 1
zone_ops C 0 3
true

# Patched kernel, NVMe ZNS host (run with vm-run.sh --preset standard):
# npo2 namespaces with zone capacity == zone size become zoned block devices,
# npo2 with capacity < size stays hidden with a kernel message saying why,
# po2 namespaces are unchanged. Expected values come from /vm/ns.conf.
. /vm/guest/zlib.sh
. /vm/guest/kunit.sh

# The KUnit suites of the series (kernel-patches 23 and 25) ran at boot:
# SUITE:TEST CASES:RESULTS (a parameterised case has one result a parameter)
kunit_check blk_zone_helpers:5:81 blk_zone_npo2_div:4:80 nvme_zns:2:32

vm_log "layout as the guest sees it"
vm_summary

# nvme_suite LABEL CTRL NSID FIO_ZONES [zonefs]
nvme_suite() {
	local label=$1 c=$2 n=$3 lbas size zsze zcap zs cap nz dev
	lbas=$(ns_conf "$c" "$n" lbas)
	size=$(ns_conf "$c" "$n" size)
	zsze=$(ns_conf "$c" "$n" zsze)
	zcap=$(ns_conf "$c" "$n" zcap)
	zs=$((zsze / 512)) cap=$((zcap / 512)) nz=$((size / zsze))
	label="$label ($((zsze >> 20))M/$((zcap >> 20))M zones, $lbas B LBAs)"

	dev=$(vm_blk "$c" "$n")
	if [ -z "$dev" ]; then
		not_ok "$label: block device exists" "kernel hides $(vm_ns "$c" "$n")"
		return
	fi
	ok "$label: block device $dev exists"
	expect_eq "$label: logical block size" "$(sysq "${dev#/dev/}" logical_block_size)" "$lbas"
	check_geometry "$label" "$dev" "$zs" "$cap" "$nz" "$zs"
	expect_match "$label: zone append exposed (zone_append_max_bytes > 0)" \
		'^[1-9][0-9]*$' "$(sysq "${dev#/dev/}" zone_append_max_bytes)"
	check_zone_ops "$label" "$dev" "$zs" "$cap" "$nz" "$zs"
	check_fio "$label" "$dev" "$zs" "$4" 2
	check_append "$label" "$dev" "$zs" "$lbas" $((nz - 1))
	[ -n "$5" ] && check_zonefs "$label zonefs" "$dev" "$zs" "$cap" "$nz"
}

# check_append LABEL DEV ZS LBAS ZONE: NVMe Zone Append through the block
# device node; the device returns the LBA it wrote, which must be the zone
# write pointer (the zone start of an npo2 zone is not a power of 2).
check_append() {
	local label=$1 dev=$2 zs=$3 lbas=$4 z=$5 zslba out
	zslba=$((z * zs * 512 / lbas))
	dd if=/dev/urandom of=/tmp/append.dat bs=4096 count=1 2>/dev/null
	zonectl reset "$dev" $((z * zs)) "$zs" >/dev/null
	zonectl write "$dev" $((z * zs)) 8192 31 >/dev/null
	out=$(nvme zns zone-append "$dev" -s "$zslba" -z 4096 -d /tmp/append.dat 2>&1)
	expect_match "$label: zone append to zone $z returns the write pointer LBA" \
		"appended data to LBA $(printf '%x' $((zslba + 8192 / lbas)))\$" "$out"
	expect_zone "$label: zone $z write pointer after append" "$dev" $((z * zs)) \
		$C_IOPEN $((z * zs + (8192 + 4096) / 512))
	expect_eq "$label: appended data reads back" \
		"$(dd if="$dev" bs=4096 skip=$(((z * zs * 512 + 8192) / 4096)) count=1 2>/dev/null | md5sum | cut -c1-32)" \
		"$(md5sum </tmp/append.dat | cut -c1-32)"
	zonectl reset "$dev" $((z * zs)) "$zs" >/dev/null
}

# A: npo2 96M/96M, the namespace the series is for
nvme_suite "A npo2" 0 1 2 zonefs
# E: npo2 48M/48M on 512-byte LBAs, second controller
nvme_suite "E npo2" 1 1 2
# B: po2 128M zones with 96M capacity, must behave exactly as before
nvme_suite "B po2" 0 2 2

# C: npo2 80M zones with 64M capacity: refused, block device hidden
cdisk=$(vm_ns 0 3)
expect_eq "C npo2 cap<size: block device hidden" "$(cat /sys/block/"$cdisk"/hidden 2>/dev/null)" 1
expect_eq "C npo2 cap<size: no /dev node" "$( [ -b /dev/"$cdisk" ] && echo present || echo absent)" absent
# v4: the block layer refuses it for every driver (zone revalidation,
# sizes in sectors), the NVMe host says which namespace
expect_match "C npo2 cap<size: block layer says why" \
	"Invalid zone capacity $(($(ns_conf 0 3 zcap) / 512)) of non power of two zone size $(($(ns_conf 0 3 zsze) / 512))\$" \
	"$(dmesg)"
expect_match "C npo2 cap<size: nvme names the namespace" \
	'nsid 3: zone revalidation refused the zone configuration' "$(dmesg)"
expect_match "C npo2 cap<size: generic char device still present" '^/dev/ng' "$(ls "$(vm_ng 0 3)" 2>/dev/null)"
expect_eq "no namespace logged the stock 'invalid zone size' refusal" \
	"$(dmesg | grep -c 'invalid zone size')" 0

# D: conventional namespace unchanged
ddev=$(vm_blk 0 4)
expect_eq "D conventional: not zoned" "$(sysq "${ddev#/dev/}" zoned)" none

# Helpers shared by the map/unmap/status guest scripts (busybox ash).
# Expected values come from /vm/ns.conf (what QEMU was configured with) or
# the null_blk configfs attributes, never from the tool's earlier output.

ZNP=nvme-zns-npo2
MIB=1048576

# expect_report DESC DEV ZONE_SECTORS NR_ZONES: po2 starts and lengths, the
# real capacity, every zone empty
expect_report() {
	local k=0 p
	p=$(po2_roundup "$3")
	: >/tmp/rep.exp
	while [ "$k" -lt "$4" ]; do
		echo "$((k * p)) $p $3 0 1" >>/tmp/rep.exp
		k=$((k + 1))
	done
	zone_rows "$2" >/tmp/rep.got
	if cmp -s /tmp/rep.got /tmp/rep.exp; then
		ok "$1"
	else
		not_ok "$1" "$(diff /tmp/rep.exp /tmp/rep.got | head -4 | tr '\n' ' ')"
	fi
}

# data_roundtrip NAME MAP DEV ZONE_SECTORS K: a pattern written at mapped zone
# K reads back through the mapping and sits at device zone K's start
data_roundtrip() {
	local p
	p=$(po2_roundup "$4")
	dd if=/dev/urandom of=/tmp/pat bs=$MIB count=1 2>/dev/null
	expect_ok "$1: write 1 MiB at mapped zone $5" wr "$2" $(($5 * p)) /tmp/pat
	rd "$2" $(($5 * p)) $MIB /tmp/rd.m
	expect_same "$1: data reads back through the mapping" /tmp/pat /tmp/rd.m
	rd "$3" $(($5 * $4)) $MIB /tmp/rd.d
	expect_same "$1: data is at device sector $(($5 * $4))" /tmp/pat /tmp/rd.d
	expect_ok "$1: reset the zone" blkzone reset -o $(($5 * p)) -c 1 "$2"
}

# mapping_slave NAME: kernel name of the device under /dev/mapper/NAME
mapping_slave() {
	local b
	b=$(dmsetup info -c --noheadings -o blkdevname "$1" 2>/dev/null) || return 1
	ls "/sys/block/$b/slaves" 2>/dev/null | head -1
}

# no_leftovers DESC: no device named znp-creating-* exists
no_leftovers() {
	local n
	n=$(dmsetup ls 2>/dev/null | grep -c '^znp-creating-')
	expect_eq "$1" "$n" 0
}

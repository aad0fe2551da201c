# Shared helpers and the dm-po2zone test suite for the patched-kernel guest
# scripts (busybox ash). Sourced by qemu.sh and nullb.sh.
#
# Sizes are in 512-byte sectors unless a name says bytes. Expected values
# come from what the device was configured with (QEMU's zsze/size, the
# null_blk configfs attributes), never from the mapping itself.

MIB=1048576
MIB_S=2048

# No udev in the guest: let libdevmapper create the /dev/mapper nodes.
export DM_DISABLE_UDEV=1

# dm_dev NAME: /dev/dm-N of a mapping
dm_dev() {
	local b
	b=$(dmsetup info -c --noheadings -o blkdevname "$1" 2>/dev/null) || return 1
	[ -n "$b" ] && echo "/dev/$b"
}

# sysblk DEV ATTR: /sys/block/<dev>/ATTR
sysblk() {
	cat "/sys/block/$(basename "$1")/$2"
}

# zone_list DEV [OFFSET COUNT]: one line per zone, "start len cap wpoff cond"
# in decimal (wpoff relative to the zone start, as blkzone prints it).
zone_list() {
	local dev=$1
	shift
	if [ $# -eq 2 ]; then
		blkzone report -o "$1" -c "$2" "$dev"
	else
		blkzone report "$dev"
	fi | sed -n 's/.*start: *\(0x[0-9a-f]*\), len *\(0x[0-9a-f]*\), cap *\(0x[0-9a-f]*\), wptr *\(0x[0-9a-f]*\).*zcond: *\([0-9]*\).*/\1 \2 \3 \4 \5/p' |
		while read -r s l c w z; do
			echo "$((s)) $((l)) $((c)) $((w)) $z"
		done
}

# zone_field DEV START FIELD: field (start len cap wpoff cond) of the zone at START
zone_field() {
	local s l c w z
	read -r s l c w z <<EOF
$(zone_list "$1" "$2" 1)
EOF
	case $3 in
	start) echo "$s" ;;
	len) echo "$l" ;;
	cap) echo "$c" ;;
	wpoff) echo "$w" ;;
	cond) echo "$z" ;;
	esac
}

# is_zero DESC FILE
is_zero() {
	local n
	n=$(stat -c %s "$2")
	if [ "$n" -gt 0 ] && cmp -s -n "$n" "$2" /dev/zero; then
		ok "$1"
	else
		not_ok "$1" "$n bytes, not all zero"
	fi
}

# kmsg_count TEXT: how many kernel log lines contain TEXT
kmsg_count() {
	dmesg | grep -cF -- "$1"
}

# bad_table DESC TABLE MESSAGE: loading TABLE must fail, with MESSAGE logged
# by the target, and leave no mapping behind.
bad_table() {
	local before after
	before=$(kmsg_count "po2zone: $3")
	if dmsetup create po2bad --table "$2" >/tmp/dm-bad.out 2>&1; then
		not_ok "$1: table refused" "dmsetup create succeeded: $2"
		dmsetup remove po2bad
		return 0
	fi
	ok "$1: table refused"
	after=$(kmsg_count "po2zone: $3")
	if [ "$after" -gt "$before" ]; then
		ok "$1: error '$3'"
	else
		not_ok "$1: error '$3'" "$(dmesg | grep 'device-mapper' | tail -2)"
	fi
	if dmsetup info po2bad >/dev/null 2>&1; then
		not_ok "$1: no mapping left" "po2bad exists"
		dmsetup remove po2bad
	else
		ok "$1: no mapping left"
	fi
}

# no_kernel_errors DESC: nothing alarming in the kernel log so far
no_kernel_errors() {
	local n
	n=$(dmesg | grep -cE 'BUG:|WARNING:|Oops|general protection|Call Trace')
	expect_eq "$1" "$n" 0
}

# dm_suite NAME DEV ZONE_SECTORS NR_ZONES [FIO_ZONES]
#
# Map DEV (npo2 zoned, configured with ZONE_SECTORS and NR_ZONES zones) with
# po2zone as /dev/mapper/NAME and check geometry, data placement, padding,
# zone operations and (FIO_ZONES > 0) an fio zbd write + verify over the
# first FIO_ZONES zones. Leaves the mapping in place with every zone reset.
dm_suite() {
	local name=$1 dev=$2 z=$3 n=$4 fio_zones=${5:-0}
	local p len map k off wp cond zs exp got

	p=$(po2_roundup "$z")
	len=$((n * p))
	vm_log "dm_suite $name: $dev zone $z sectors -> $p, $n zones, table length $len"

	expect_ok "$name: dmsetup create po2zone over $dev" \
		dmsetup create "$name" --table "0 $len po2zone $dev"
	map=$(dm_dev "$name") || { not_ok "$name: mapping has a block device"; return 0; }

	# --- geometry ---------------------------------------------------------
	expect_eq "$name: zoned model" "$(sysblk "$map" queue/zoned)" host-managed
	expect_eq "$name: chunk_sectors is the po2 zone size" \
		"$(sysblk "$map" queue/chunk_sectors)" "$p"
	expect_eq "$name: nr_zones" "$(sysblk "$map" queue/nr_zones)" "$n"
	expect_eq "$name: size" "$(sysblk "$map" size)" "$len"
	expect_eq "$name: status line shows the geometry" \
		"$(dmsetup status "$name")" "0 $len po2zone $z $p $n"
	expect_eq "$name: table line" "$(dmsetup table "$name" | cut -d' ' -f1-3)" \
		"0 $len po2zone"

	zone_list "$map" >/tmp/dm-rep.txt
	expect_eq "$name: report zone count" "$(wc -l </tmp/dm-rep.txt)" "$n"
	: >/tmp/dm-rep.exp
	k=0
	while [ "$k" -lt "$n" ]; do
		echo "$((k * p)) $p $z 0 1" >>/tmp/dm-rep.exp
		k=$((k + 1))
	done
	expect_same "$name: report: po2 starts and lengths, real capacity, empty" \
		/tmp/dm-rep.txt /tmp/dm-rep.exp
	expect_ok "$name: reload the same table" \
		dmsetup reload "$name" --table "0 $len po2zone $dev"
	expect_ok "$name: resume with the reloaded table" dmsetup resume "$name"
	zone_list "$map" >/tmp/dm-rep.txt
	expect_same "$name: report after the reload" /tmp/dm-rep.txt /tmp/dm-rep.exp

	# --- data placement -----------------------------------------------------
	dd if=/dev/urandom of=/tmp/pat bs=$MIB count=1 2>/dev/null
	dd if=/dev/urandom of=/tmp/pat2 bs=$MIB count=1 2>/dev/null
	for k in 1 $((n - 1)); do
		expect_ok "$name: write pattern at zone $k start" wr "$map" $((k * p)) /tmp/pat
		rd "$map" $((k * p)) $MIB /tmp/rd.m
		expect_same "$name: zone $k start reads back through the mapping" /tmp/pat /tmp/rd.m
		rd "$dev" $((k * z)) $MIB /tmp/rd.d
		expect_same "$name: zone $k start is at device sector $((k * z))" /tmp/pat /tmp/rd.d
	done

	# zone 0: pattern at the start, zeros, then pat2 ending at the capacity
	wr "$map" 0 /tmp/pat
	expect_ok "$name: fill zone 0 up to 1 MiB below capacity" \
		dd if=/dev/zero of="$map" bs=$MIB count=$((z / MIB_S - 2)) \
		seek=$MIB oflag=direct,seek_bytes
	expect_ok "$name: write pat2 up to 4 KiB below capacity" \
		wr "$map" $((z - MIB_S)) /tmp/pat2 4096 255 0
	expect_eq "$name: zone 0 write pointer before the crossing write" \
		"$(zone_field "$map" 0 wpoff)" $((z - 8))
	dd if=/dev/urandom of=/tmp/x8k bs=8192 count=1 2>/dev/null
	expect_rc "$name: write crossing the zone capacity fails" 1 \
		wr "$map" $((z - 8)) /tmp/x8k
	expect_eq "$name: failed write left the mapping write pointer" \
		"$(zone_field "$map" 0 wpoff)" $((z - 8))
	expect_eq "$name: failed write left the device write pointer" \
		"$(zone_field "$dev" 0 wpoff)" $((z - 8))
	expect_ok "$name: write the last 4 KiB below capacity" \
		wr "$map" $((z - 8)) /tmp/pat2 4096 1 255
	expect_eq "$name: zone 0 full on the mapping" "$(zone_field "$map" 0 cond)" 14
	expect_eq "$name: zone 0 full on the device" "$(zone_field "$dev" 0 cond)" 14
	rd "$map" $((z - MIB_S)) $MIB /tmp/rd.m
	expect_same "$name: data below capacity reads back through the mapping" /tmp/pat2 /tmp/rd.m
	rd "$dev" $((z - MIB_S)) $MIB /tmp/rd.d
	expect_same "$name: data below capacity is at the device zone end" /tmp/pat2 /tmp/rd.d
	rd "$dev" "$z" $MIB /tmp/rd.d
	expect_same "$name: device zone 1 starts right after zone 0" /tmp/pat /tmp/rd.d

	# --- padding -------------------------------------------------------------
	rd "$map" "$z" $MIB /tmp/rd.m
	is_zero "$name: padding start reads zeros" /tmp/rd.m
	rd "$map" $((p - MIB_S)) $MIB /tmp/rd.m
	is_zero "$name: padding end reads zeros" /tmp/rd.m
	rd "$map" $((z - MIB_S)) $((2 * MIB)) /tmp/rd.m
	dd if=/tmp/rd.m of=/tmp/rd.a bs=$MIB count=1 2>/dev/null
	dd if=/tmp/rd.m of=/tmp/rd.b bs=$MIB count=1 skip=1 2>/dev/null
	expect_same "$name: read across the capacity: data part" /tmp/pat2 /tmp/rd.a
	is_zero "$name: read across the capacity: padding part" /tmp/rd.b
	rd "$map" $((p - MIB_S)) $((2 * MIB)) /tmp/rd.m
	dd if=/tmp/rd.m of=/tmp/rd.a bs=$MIB count=1 2>/dev/null
	dd if=/tmp/rd.m of=/tmp/rd.b bs=$MIB count=1 skip=1 2>/dev/null
	is_zero "$name: read across the zone end: padding of zone 0" /tmp/rd.a
	expect_same "$name: read across the zone end: start of zone 1" /tmp/pat /tmp/rd.b
	dd if=/dev/urandom of=/tmp/x4k bs=4096 count=1 2>/dev/null
	expect_rc "$name: write into the padding of a full zone fails" 1 \
		wr "$map" "$z" /tmp/x4k
	expect_rc "$name: write into the padding of an open zone fails" 1 \
		wr "$map" $((p + z)) /tmp/x4k
	expect_rc "$name: write at the last padding sector fails" 1 \
		wr "$map" $((2 * p - 8)) /tmp/x4k
	expect_eq "$name: zone 1 write pointer unchanged" \
		"$(zone_field "$map" "$p" wpoff)" $MIB_S
	expect_eq "$name: device zone 1 write pointer unchanged" \
		"$(zone_field "$dev" "$z" wpoff)" $MIB_S
	expect_eq "$name: device zone 2 still empty" "$(zone_field "$dev" $((2 * z)) cond)" 1
	expect_rc "$name: zone reset in the padding is refused" 1 \
		blkzone reset -o "$z" -c 1 "$map"

	# --- zone management ----------------------------------------------------
	k=2
	zs=$((k * p))
	expect_ok "$name: open zone $k" blkzone open -o "$zs" -c 1 "$map"
	expect_eq "$name: zone $k explicitly open on the mapping" "$(zone_field "$map" "$zs" cond)" 3
	expect_eq "$name: zone $k explicitly open on the device" "$(zone_field "$dev" $((k * z)) cond)" 3
	wr "$map" "$zs" /tmp/pat 65536 1 0
	expect_ok "$name: close zone $k" blkzone close -o "$zs" -c 1 "$map"
	expect_eq "$name: zone $k closed on the mapping" "$(zone_field "$map" "$zs" cond)" 4
	expect_eq "$name: zone $k closed on the device" "$(zone_field "$dev" $((k * z)) cond)" 4
	expect_eq "$name: zone $k write pointer on the mapping" "$(zone_field "$map" "$zs" wpoff)" 128
	expect_eq "$name: zone $k write pointer on the device" "$(zone_field "$dev" $((k * z)) wpoff)" 128
	expect_ok "$name: finish zone $k" blkzone finish -o "$zs" -c 1 "$map"
	expect_eq "$name: zone $k full on the mapping" "$(zone_field "$map" "$zs" cond)" 14
	expect_eq "$name: zone $k full on the device" "$(zone_field "$dev" $((k * z)) cond)" 14
	expect_eq "$name: zone $k neighbours untouched" \
		"$(zone_field "$dev" $(((k + 1) * z)) cond)" 1
	expect_ok "$name: reset zone $k" blkzone reset -o "$zs" -c 1 "$map"
	expect_eq "$name: zone $k empty on the mapping" "$(zone_field "$map" "$zs" cond)" 1
	expect_eq "$name: zone $k empty on the device" "$(zone_field "$dev" $((k * z)) cond)" 1
	expect_eq "$name: zone 0 still full" "$(zone_field "$dev" 0 cond)" 14
	expect_ok "$name: reset all zones through the mapping" blkzone reset "$map"
	expect_eq "$name: every mapped zone empty" \
		"$(zone_list "$map" | grep -vc ' 0 1$')" 0
	expect_eq "$name: every device zone empty" \
		"$(zone_list "$dev" | grep -vc ' 0 1$')" 0

	# --- fio -----------------------------------------------------------------
	if [ "$fio_zones" -gt 0 ]; then
		expect_ok "$name: fio zbd write + verify over $fio_zones zones" \
			run_to 240 fio --name=po2zone --filename="$map" --direct=1 \
			--zonemode=zbd --rw=write --bs=128k --ioengine=psync \
			--size=$((fio_zones * p * 512)) --verify=crc32c \
			--do_verify=1 --verify_fatal=1
		grep -E 'err=|WRITE:|READ:' /tmp/vm-cmd.out | sed 's/^/#   fio: /' | head -4
		expect_eq "$name: fio filled device zone 0 to its capacity" \
			"$(zone_field "$dev" 0 cond)" 14
		expect_eq "$name: fio wrote into device zone $((fio_zones - 1))" \
			"$(zone_field "$dev" $(((fio_zones - 1) * z)) cond)" 14
		blkzone reset "$map"
	fi

	# --- removal -----------------------------------------------------------
	exec 3<"$map"
	expect_rc "$name: removing a busy mapping is refused" 1 dmsetup remove "$name"
	expect_ok "$name: busy mapping still there" dmsetup info "$name"
	exec 3<&-
	return 0
}

# dm_generic_bad_tables NAME DEV ZONE_SECTORS NR_ZONES: table errors that do
# not depend on the device type
dm_generic_bad_tables() {
	local dev=$2 z=$3 n=$4 p
	p=$(po2_roundup "$z")
	bad_table "$1 partial length" "0 $(((n - 1) * p)) po2zone $dev" \
		"Partial mapping is not supported"
	bad_table "$1 device size as length" "0 $((n * z)) po2zone $dev" \
		"Partial mapping is not supported"
	bad_table "$1 extra argument" "0 $((n * p)) po2zone $dev 0" \
		"Invalid argument count"
	bad_table "$1 missing device" "0 $((n * p)) po2zone" \
		"Invalid argument count"
	bad_table "$1 no such device" "0 $((n * p)) po2zone /dev/nonexistent" \
		"Device lookup failed"
}

# append_suite NAME MAPPING DEV ZONE_SECTORS [MAP_ZONE_SECTORS FIRST_ZONE]:
# export the mapping (of DEV, whose zone FIRST_ZONE (0) is its zone 0, with
# zones of MAP_ZONE_SECTORS (ZONE_SECTORS rounded up to a power of 2); zones
# 3 and 5 empty) through the NVMe loop target and send NVMe Zone Append
# commands to it: nvmet turns them into REQ_OP_ZONE_APPEND BIOs on the
# mapping, so the LBA each command reports is the device sector translated
# back by the target and dm core.
append_suite() {
	local name=$1 map=$2 dev=$3 z=$4 p=${5:-} f=${6:-0} cfs=/sys/kernel/config/nvmet
	local nqn=po2zone-append ns lbs zslba k want got c
	[ -n "$p" ] || p=$(po2_roundup "$z")
	if ! mkdir "$cfs/subsystems/$nqn" 2>/dev/null; then
		not_ok "$name: create an nvmet subsystem"
		return 0
	fi
	echo 1 >"$cfs/subsystems/$nqn/attr_allow_any_host"
	mkdir "$cfs/subsystems/$nqn/namespaces/1"
	printf %s "$map" >"$cfs/subsystems/$nqn/namespaces/1/device_path"
	expect_ok "$name: nvmet exports the mapping as a ZNS namespace" \
		sh -c "echo 1 >$cfs/subsystems/$nqn/namespaces/1/enable"
	mkdir "$cfs/ports/1"
	echo loop >"$cfs/ports/1/addr_trtype"
	ln -s "$cfs/subsystems/$nqn" "$cfs/ports/1/subsystems/$nqn"
	expect_ok "$name: connect over the NVMe loop transport" \
		sh -c "echo transport=loop,nqn=$nqn >/dev/nvme-fabrics"
	ns=$(nvmet_disk $nqn)
	if [ -z "$ns" ]; then
		not_ok "$name: loop namespace appeared"
	else
		ok "$name: loop namespace /dev/$ns appeared"
		lbs=$(sysblk "$ns" queue/logical_block_size)
		expect_eq "$name: loop namespace zone size is the mapping zone size" \
			"$(sysblk "$ns" queue/chunk_sectors)" "$p"
		dd if=/dev/urandom of=/tmp/ap bs=65536 count=1 2>/dev/null
		# zone 3: two appends to an empty zone
		zslba=$((3 * p * 512 / lbs))
		want=$zslba
		for k in 1 2; do
			dd if=/tmp/ap of=/tmp/ap$k bs=4096 count=1 skip=$k 2>/dev/null
			got=$(nvme zns zone-append "/dev/$ns" -s "$zslba" -z 4096 -d /tmp/ap$k 2>&1 |
				sed -n 's/.*appended data to LBA \([0-9a-fA-F]*\).*/\1/p')
			expect_eq "$name: zone append $k to zone 3 returns LBA $want" \
				"$((0x${got:-0}))" "$want"
			want=$((want + 4096 / lbs))
		done
		cat /tmp/ap1 /tmp/ap2 >/tmp/ap12
		rd "$dev" $(((f + 3) * z)) 8192 /tmp/rd.d
		expect_same "$name: appended data at device zone $((f + 3)) start" /tmp/ap12 /tmp/rd.d
		rd "$map" $((3 * p)) 8192 /tmp/rd.m
		expect_same "$name: appended data at mapping zone 3 start" /tmp/ap12 /tmp/rd.m
		# zone 5: append after 64 KiB written through the mapping
		wr "$map" $((5 * p)) /tmp/ap
		zslba=$((5 * p * 512 / lbs))
		got=$(nvme zns zone-append "/dev/$ns" -s "$zslba" -z 4096 -d /tmp/ap1 2>&1 |
			sed -n 's/.*appended data to LBA \([0-9a-fA-F]*\).*/\1/p')
		want=$((zslba + 65536 / lbs))
		expect_eq "$name: zone append after 64 KiB in zone 5 returns LBA $want" \
			"$((0x${got:-0}))" "$want"
		rd "$dev" $(((f + 5) * z + 128)) 4096 /tmp/rd.d
		expect_same "$name: appended data follows the 64 KiB in device zone $((f + 5))" /tmp/ap1 /tmp/rd.d
		expect_eq "$name: device zone $((f + 5)) write pointer" \
			"$(zone_field "$dev" $(((f + 5) * z)) wpoff)" 136
		for c in /sys/class/nvme/nvme*; do
			[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$nqn" ] &&
				echo 1 >"$c/delete_controller"
		done
	fi
	rm -f "$cfs/ports/1/subsystems/$nqn"
	rmdir "$cfs/ports/1"
	echo 0 >"$cfs/subsystems/$nqn/namespaces/1/enable"
	rmdir "$cfs/subsystems/$nqn/namespaces/1"
	rmdir "$cfs/subsystems/$nqn"
	blkzone reset "$map"
	return 0
}

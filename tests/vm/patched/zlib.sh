# Zoned block device checks shared by the patched-kernel guest scripts
# (busybox ash; sourced after tests/vm/guest/lib.sh). Expected values are
# always passed in by the caller from what QEMU or null_blk was configured
# with; zonectl (tests/vm/patched/helpers/zonectl.c) issues the zone ioctls
# without the power-of-2 alignment checks blkzone does in user space.

[ -n "${ZLIB_LOADED:-}" ] && return 0
ZLIB_LOADED=1

# zone conditions (include/uapi/linux/blkzoned.h)
C_EMPTY=1 C_IOPEN=2 C_EOPEN=3 C_CLOSED=4 C_FULL=14

sysq() { cat "/sys/block/$1/queue/$2" 2>/dev/null; }

# zstate DEV SECTOR: "cond wp" of the zone starting at SECTOR
zstate() {
	zonectl report "$1" "$2" 1 | awk '{ print $5, $4 }'
}

# expect_zone DESC DEV SECTOR COND WP
expect_zone() {
	expect_eq "$1" "$(zstate "$2" "$3")" "$4 $5"
}

# expect_err DESC ERRNO CMD...: CMD must fail with the errno name
expect_err() {
	local desc=$1 want=$2 out
	shift 2
	out=$("$@" 2>/dev/null)
	expect_eq "$desc" "$out" "error $want"
}

# check_geometry NAME DEV ZS CAP NZ LAST
#   ZS zone size, CAP zone capacity, LAST length of the last zone, all in
#   512-byte sectors; NZ number of zones. Checks sysfs and blkzone report.
check_geometry() {
	local name=$1 dev=$2 zs=$3 cap=$4 nz=$5 last=$6 d=${2#/dev/}
	local total=$(( (nz - 1) * zs + last )) rep bad i lcap

	expect_eq "$name: queue/zoned" "$(sysq "$d" zoned)" host-managed
	expect_eq "$name: queue/chunk_sectors is the zone size" "$(sysq "$d" chunk_sectors)" "$zs"
	expect_eq "$name: queue/nr_zones" "$(sysq "$d" nr_zones)" "$nz"
	expect_eq "$name: size in sectors" "$(cat /sys/block/"$d"/size)" "$total"

	# blkzone report: "start: 0x..., len 0x..., cap 0x..., wptr 0x... zcond:N(..)"
	rep=$(blkzone report "$dev" | sed -n \
		's/.*start: *\(0x[0-9a-f]*\), len \(0x[0-9a-f]*\), cap \(0x[0-9a-f]*\), wptr \(0x[0-9a-f]*\).*zcond: *\([0-9]*\).*/\1 \2 \3 \4 \5/p')
	expect_eq "$name: blkzone report lists every zone" "$(echo "$rep" | grep -c .)" "$nz"
	bad='' i=0
	echo "$rep" >/tmp/rep.txt
	while read -r s l c w cond; do
		zl=$zs lcap=$cap
		if [ $i -eq $((nz - 1)) ]; then
			zl=$last
			[ "$lcap" -gt "$last" ] && lcap=$last
		fi
		want="$((i * zs)) $zl $lcap 0 1"
		got="$((s)) $((l)) $((c)) $((w)) $cond"
		[ "$got" = "$want" ] || bad="$bad zone $i: got '$got' want '$want';"
		i=$((i + 1))
	done </tmp/rep.txt
	expect_eq "$name: blkzone report start/len/cap/wp/cond of every zone" "${bad:-none}" none
}

# check_zone_ops NAME DEV ZS CAP NZ LAST
#   Zone state machine through the zone ioctls on zone 1, misaligned
#   requests refused, write away from the write pointer refused, reset all.
check_zone_ops() {
	local name=$1 dev=$2 zs=$3 cap=$4 nz=$5 last=$6 z1=$3 z2=$(($3 * 2)) p=1

	expect_ok "$name: write 64 KiB at the start of zone 1" zonectl write "$dev" "$z1" 65536 1
	expect_zone "$name: zone 1 implicitly open, wp advanced" "$dev" "$z1" $C_IOPEN $((z1 + 128))
	expect_ok "$name: close zone 1" zonectl close "$dev" "$z1" "$zs"
	expect_zone "$name: zone 1 closed" "$dev" "$z1" $C_CLOSED $((z1 + 128))
	expect_ok "$name: open zone 1" zonectl open "$dev" "$z1" "$zs"
	expect_zone "$name: zone 1 explicitly open" "$dev" "$z1" $C_EOPEN $((z1 + 128))
	expect_ok "$name: write 64 KiB at the write pointer" zonectl write "$dev" $((z1 + 128)) 65536 2
	expect_ok "$name: read back both writes" sh -c \
		"zonectl verify $dev $z1 65536 1 && zonectl verify $dev $((z1 + 128)) 65536 2"
	expect_ok "$name: finish zone 1" zonectl finish "$dev" "$z1" "$zs"
	expect_zone "$name: zone 1 full" "$dev" "$z1" $C_FULL $((z1 + zs))
	expect_ok "$name: reset zone 1" zonectl reset "$dev" "$z1" "$zs"
	expect_zone "$name: zone 1 empty after reset" "$dev" "$z1" $C_EMPTY "$z1"

	# misaligned zone management is refused by the kernel
	expect_err "$name: reset inside zone 1 refused" EINVAL zonectl reset "$dev" $((z1 + 8)) "$zs"
	expect_err "$name: reset of half a zone refused" EINVAL zonectl reset "$dev" "$z1" $((zs / 2))
	while [ $p -le "$zs" ]; do p=$((p * 2)); done
	if [ $((p % zs)) -ne 0 ] && [ "$p" -lt $((nz * zs)) ]; then
		expect_err "$name: reset at the power-of-2 sector $p (not a zone start) refused" \
			EINVAL zonectl reset "$dev" "$p" "$zs"
	fi
	expect_err "$name: write away from the write pointer of zone 2 refused" EIO \
		zonectl write "$dev" $((z2 + 8)) 4096 3
	expect_zone "$name: zone 2 still empty" "$dev" "$z2" $C_EMPTY "$z2"

	# the last zone (possibly smaller): finish and reset with its own length
	lz=$(( (nz - 1) * zs ))
	expect_ok "$name: finish the last zone" zonectl finish "$dev" "$lz" "$last"
	expect_zone "$name: last zone full" "$dev" "$lz" $C_FULL $((lz + last))
	expect_ok "$name: reset all zones" zonectl reset "$dev" 0 $(( (nz - 1) * zs + last ))
	expect_eq "$name: every zone empty after reset all" \
		"$(zonectl report "$dev" | awk '$5 != 1' | wc -l)" 0
}

# check_fio NAME DEV ZS NZONES_TO_WRITE FIRST_ZONE
#   fio --zonemode=zbd sequential write + verify across zone boundaries of
#   full-size zones (fio rounds its range down to whole zones, so a smaller
#   last zone is tested with zonectl instead).
check_fio() {
	local name=$1 dev=$2 zs=$3 n=$4 first=$5 out rc len
	len=$((n * zs))
	out=$(run_to 240 fio --name=zbd --filename="$dev" --direct=1 --zonemode=zbd \
		--ioengine=psync --rw=write --bs=256k \
		--offset=$((first * zs * 512)) --size=$((len * 512)) \
		--verify=crc32c --do_verify=1 --verify_fatal=1 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$name: fio zbd write + verify over $n zones from zone $first"
	else
		not_ok "$name: fio zbd write + verify over $n zones from zone $first" "fio exit $rc"
		echo "$out" | tail -15 | sed 's/^/#   | /'
	fi
	# the zones fio filled are full, or at least written
	expect_eq "$name: zones written by fio are no longer empty" \
		"$(zonectl report "$dev" $((first * zs)) "$n" | awk '$5 == 1' | wc -l)" 0
}

# check_zonefs NAME DEV ZS CAP NZ: zonefs on an all-sequential zoned device.
#   Zone 0 holds the super block (/vm/zonefs-sb.img, made on the host), zone
#   K+1 backs seq/K whose inode number is its zone number (bdev_zone_no()).
check_zonefs() {
	local name=$1 dev=$2 zs=$3 cap=$4 nz=$5 mnt=/mnt/zonefs last=$(($5 - 2))
	mkdir -p "$mnt"
	expect_ok "$name: reset all zones" zonectl reset "$dev" 0 $((nz * zs))
	expect_ok "$name: write the zonefs super block to zone 0" \
		zonectl put "$dev" 0 /vm/zonefs-sb.img
	if ! mount -t zonefs "$dev" "$mnt" 2>/tmp/mount.err; then
		not_ok "$name: mount zonefs" "$(cat /tmp/mount.err; dmesg | tail -3)"
		return
	fi
	ok "$name: mount zonefs"
	expect_eq "$name: one seq file per zone after the super block zone" \
		"$(ls "$mnt/seq" | wc -l)" $((nz - 1))
	expect_eq "$name: seq/0 inode is zone number 1" "$(stat -c %i "$mnt/seq/0")" 1
	expect_eq "$name: seq/$last inode is zone number $((nz - 1))" \
		"$(stat -c %i "$mnt/seq/$last")" $((nz - 1))
	expect_eq "$name: seq/0 is empty" "$(stat -c %s "$mnt/seq/0")" 0
	expect_ok "$name: direct write 1 MiB to seq/0" zonectl write "$mnt/seq/0" 0 1048576 21
	expect_eq "$name: seq/0 size" "$(stat -c %s "$mnt/seq/0")" 1048576
	expect_zone "$name: zone 1 write pointer follows seq/0" "$dev" "$zs" $C_IOPEN $((zs + 2048))
	expect_ok "$name: seq/0 reads back" zonectl verify "$mnt/seq/0" 0 1048576 21
	expect_err "$name: write into seq/0 below its end refused" EINVAL \
		zonectl write "$mnt/seq/0" 8 4096 22
	expect_ok "$name: direct write 256 KiB to seq/$last (last zone)" \
		zonectl write "$mnt/seq/$last" 0 262144 23
	expect_zone "$name: last zone write pointer follows seq/$last" "$dev" \
		$(((nz - 1) * zs)) $C_IOPEN $(((nz - 1) * zs + 512))
	expect_ok "$name: truncate seq/0 to 0 resets zone 1" truncate -s 0 "$mnt/seq/0"
	expect_zone "$name: zone 1 empty again" "$dev" "$zs" $C_EMPTY "$zs"
	expect_eq "$name: max file size is the zone capacity" \
		"$(truncate -s $((cap * 512)) "$mnt/seq/1" && stat -c %s "$mnt/seq/1")" $((cap * 512))
	expect_zone "$name: truncate to capacity finishes zone 2" "$dev" $((2 * zs)) $C_FULL $((3 * zs))
	expect_ok "$name: umount" umount "$mnt"
}

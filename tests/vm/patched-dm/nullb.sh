# dm-po2zone on npo2 null_blk devices (patched kernel, null_blk built in and
# booted with null_blk.nr_devices=0). Run by tests/layers.d/75-vm-dm.sh.
. /vm/guest/common.sh

NB=/sys/kernel/config/nullb

# nullb_make NAME SIZE_MB ZONE_MB [ZONE_CAP_MB]: memory-backed null_blk with
# 4 KiB blocks, zoned unless ZONE_MB is 0; prints /dev/nullbN
nullb_make() {
	local d=$NB/$1
	mkdir "$d" || return 1
	echo 4096 >"$d/blocksize"
	echo "$2" >"$d/size"
	echo 1 >"$d/memory_backed"
	if [ "$3" != 0 ]; then
		echo 1 >"$d/zoned"
		echo "$3" >"$d/zone_size"
		echo 0 >"$d/zone_nr_conv"
		[ -n "${4:-}" ] && echo "$4" >"$d/zone_capacity"
	fi
	echo 1 >"$d/power" || return 1
	# the disk takes the configfs name (older kernels: nullb<index>)
	if [ -b "/dev/$1" ]; then
		echo "/dev/$1"
	else
		echo "/dev/nullb$(cat "$d/index")"
	fi
}

# linear_suite DEV ZONE_SECTORS: dm-linear on the npo2 device itself (dm
# table checks, zone report, data, emulated reset-all, zone append remap):
# zones 8-23 of DEV as /dev/mapper/lin
linear_suite() {
	local dev=$1 z=$2 lin k before
	before=$(kmsg_count "not aligned to h/w zone size")
	if dmsetup create lin --table "0 $((16 * z)) linear $dev $((8 * z + 8))" 2>/dev/null; then
		not_ok "dm-linear: misaligned start on an npo2 device refused"
		dmsetup remove lin
	else
		ok "dm-linear: misaligned start on an npo2 device refused"
	fi
	expect_eq "dm-linear: refusal names the zone size" \
		"$(($(kmsg_count "not aligned to h/w zone size") - before))" 1
	expect_ok "dm-linear: zones 8-23 of the npo2 device" \
		dmsetup create lin --table "0 $((16 * z)) linear $dev $((8 * z))"
	lin=$(dm_dev lin) || { not_ok "dm-linear: mapping has a block device"; return 0; }
	expect_eq "dm-linear: npo2 chunk_sectors" "$(sysblk "$lin" queue/chunk_sectors)" "$z"
	expect_eq "dm-linear: nr_zones" "$(sysblk "$lin" queue/nr_zones)" 16
	zone_list "$lin" >/tmp/lin-rep.txt
	: >/tmp/lin-rep.exp
	k=0
	while [ "$k" -lt 16 ]; do
		echo "$((k * z)) $z $z 0 1" >>/tmp/lin-rep.exp
		k=$((k + 1))
	done
	expect_same "dm-linear: report of 16 npo2 zones" /tmp/lin-rep.txt /tmp/lin-rep.exp
	expect_ok "dm-linear: pattern at mapped zone 1" wr "$lin" "$z" /tmp/pat
	rd "$dev" $((9 * z)) $MIB /tmp/rd.d
	expect_same "dm-linear: pattern at device zone 9" /tmp/pat /tmp/rd.d
	wr "$dev" 0 /tmp/pat 65536 1 0
	wr "$lin" $((4 * z)) /tmp/pat 65536 1 0
	# the mapping covers only some zones: dm core emulates reset-all with
	# one reset per non-empty zone, counting zones by division
	expect_ok "dm-linear: reset all mapped zones" blkzone reset "$lin"
	expect_eq "dm-linear: every mapped zone empty" \
		"$(zone_list "$lin" | grep -vc ' 0 1$')" 0
	expect_eq "dm-linear: device zone 12 reset" "$(zone_field "$dev" $((12 * z)) cond)" 1
	expect_eq "dm-linear: unmapped device zone 0 untouched" \
		"$(zone_field "$dev" 0 wpoff)" 128
	blkzone reset -o 0 -c 1 "$dev" 2>/dev/null
	append_suite lin "$lin" "$dev" "$z" "$z" 8
	expect_ok "dm-linear: remove" dmsetup remove lin
	return 0
}

# 32 zones of 3 MiB (6144 sectors, padded to 8192)
ZMB=3
NZ=32
nb=$(nullb_make nbnpo2 $((ZMB * NZ)) $ZMB)
if [ -b "$nb" ]; then
	ok "npo2 null_blk $nb created (zone $ZMB MiB)"
	expect_eq "null_blk zone size" "$(sysblk "$nb" queue/chunk_sectors)" $((ZMB * MIB_S))
	dm_suite dmnb "$nb" $((ZMB * MIB_S)) $NZ 8
	append_suite dmnb "$(dm_dev dmnb)" "$nb" $((ZMB * MIB_S))
	expect_ok "remove the null_blk mapping" dmsetup remove dmnb
	dm_generic_bad_tables "null_blk" "$nb" $((ZMB * MIB_S)) $NZ
	linear_suite "$nb" $((ZMB * MIB_S))
else
	not_ok "npo2 null_blk created" "$(dmesg | tail -3)"
fi

po2nb=$(nullb_make nbpo2 64 4)
len=$((16 * 8192))
bad_table "po2 null_blk" "0 $len po2zone $po2nb" \
	"Device zone size is already a power of 2"
plain=$(nullb_make nbplain 64 0)
bad_table "regular null_blk" "0 131072 po2zone $plain" \
	"Device is not a zoned block device"
# v4 refuses an npo2 zone size with a smaller capacity in null_blk and in
# the block layer: no device reaches the target's own check
expect_rc "null_blk with capacity < npo2 zone size: power on refused" 1 \
	nullb_make nbcap 48 3 2
lastnb=$(nullb_make nblast 50 3)
bad_table "null_blk with a smaller last zone" "0 $((17 * 8192)) po2zone $lastnb" \
	"Device capacity is not a multiple of the zone size"

# Two npo2 devices whose zone sizes differ (6 MiB and 5 MiB) but pad to the
# same po2 zone size (8 MiB = 16384 sectors): the mapped zones would have two
# capacities. Device mapper refuses the table when it is loaded (dmsetup load
# into an empty device), not only later at resume.
nb6=$(nullb_make nbz6 24 6)
nb5=$(nullb_make nbz5 20 5)
before=$(kmsg_count "zone emulation needs one device zone size")
dmsetup create po2mix --notable
printf '0 65536 po2zone %s\n65536 65536 po2zone %s\n' "$nb6" "$nb5" >/tmp/mix.table
expect_rc "6M + 5M zones (both padded to 8M): table load refused" 1 \
	dmsetup load po2mix /tmp/mix.table
expect_eq "6M + 5M zones: refusal message at table load" \
	"$(($(kmsg_count "zone emulation needs one device zone size") - before))" 1
expect_eq "6M + 5M zones: no inactive table left" \
	"$(dmsetup info po2mix | grep -cE 'Tables present: *None')" 1
dmsetup remove po2mix
# the same two devices, each in its own table, load and resume
expect_ok "6M zones alone: table loads" dmsetup create po2mix6 --table "0 65536 po2zone $nb6"
expect_ok "5M zones alone: table loads" dmsetup create po2mix5 --table "0 65536 po2zone $nb5"
dmsetup remove po2mix6
dmsetup remove po2mix5

no_kernel_errors "null_blk: kernel log clean"
true

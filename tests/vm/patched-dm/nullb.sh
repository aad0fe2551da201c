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
capnb=$(nullb_make nbcap 48 3 2)
bad_table "null_blk with capacity < zone size" "0 $((16 * 8192)) po2zone $capnb" \
	"Zone capacity differs from zone size"
lastnb=$(nullb_make nblast 50 3)
bad_table "null_blk with a smaller last zone" "0 $((17 * 8192)) po2zone $lastnb" \
	"Device capacity is not a multiple of the zone size"

no_kernel_errors "null_blk: kernel log clean"
true

# Patched kernel, null_blk with npo2 zone sizes (run by 70-vm-patched.sh with
#   --append "null_blk.nr_devices=1 null_blk.zoned=1 null_blk.zone_size=96
#             null_blk.gb=1 null_blk.memory_backed=1 null_blk.bs=4096"):
# module parameters and configfs, smaller last zones, the po2 path for
# comparison, and dm-zoned refusing npo2 devices explicitly.
. /vm/guest/zlib.sh
export DM_DISABLE_UDEV=1
MB=2048 # sectors per MiB

# nullb_suite LABEL DEV ZONE_MB CAP_MB SIZE_MB FIO_ZONES FIO_FIRST
nullb_suite() {
	local label=$1 dev=$2 zs=$(($3 * MB)) cap=$(($4 * MB)) size=$(($5 * MB))
	local nz last
	nz=$(( (size + zs - 1) / zs ))
	last=$((size - (nz - 1) * zs))
	label="$label (${3}M zones, ${4}M capacity, ${5}M)"
	[ -b "$dev" ] || { not_ok "$label: $dev exists"; return; }
	ok "$label: $dev exists"
	check_geometry "$label" "$dev" "$zs" "$cap" "$nz" "$last"
	check_zone_ops "$label" "$dev" "$zs" "$cap" "$nz" "$last"
	check_fio "$label" "$dev" "$zs" "$6" "$7"
}

# --- module parameters: 1 GiB with 96 MiB zones: 10 zones + a 64 MiB one ----
expect_match "module parameters: null_blk took zone_size=96" '^96$' \
	"$(cat /sys/module/null_blk/parameters/zone_size 2>/dev/null)"
nullb_suite "modparam npo2" /dev/nullb0 96 96 1024 2 8

# --- configfs ------------------------------------------------------------------
cfs="zoned=1 memory_backed=1 blocksize=4096"
d=$(mk_nullb c100 $cfs zone_size=100 size=1000) ||
	not_ok "configfs: npo2 100M zones power on" "$(dmesg | tail -3)"
if [ -n "$d" ]; then
	nullb_suite "configfs npo2" "/dev/$d" 100 100 1000 2 0
	check_zonefs "configfs npo2 zonefs" "/dev/$d" $((100 * MB)) $((100 * MB)) 10
fi

# odd zone size with a smaller last zone: 100 MiB / 7 MiB = 14 zones + 2 MiB
d=$(mk_nullb c7 $cfs zone_size=7 size=100) ||
	not_ok "configfs: npo2 7M zones power on" "$(dmesg | tail -3)"
if [ -n "$d" ]; then
	nullb_suite "configfs odd npo2" "/dev/$d" 7 7 100 3 11
	# fill the 2 MiB last zone completely with data, read it back
	expect_ok "configfs odd npo2: write the whole 2 MiB last zone" \
		zonectl write "/dev/$d" $((98 * MB)) $((2 << 20)) 7
	expect_zone "configfs odd npo2: last zone full at the device end" "/dev/$d" \
		$((98 * MB)) $C_FULL $((100 * MB))
	expect_ok "configfs odd npo2: last zone reads back" \
		zonectl verify "/dev/$d" $((98 * MB)) $((2 << 20)) 7
	expect_err "configfs odd npo2: write past the device end refused" ENOSPC \
		zonectl write "/dev/$d" $((100 * MB)) 4096 7
fi

# npo2 zone size with a smaller capacity: v3 allows it; v4 refuses it
# (a zone size that is not a power of 2 must equal the zone capacity, in the
# block layer for every driver and in null_blk's own configuration check)
expect_rc "configfs: npo2 100M zones with 80M capacity refused" 1 \
	mk_nullb c100c80 $cfs zone_size=100 zone_capacity=80 size=1000
expect_match "configfs: npo2 zones with a smaller capacity: null_blk says why" \
	'zone_capacity must equal a zone_size that is not a power of 2' "$(dmesg)"
# the same capacity below a po2 zone size is still accepted
d=$(mk_nullb c128c80 $cfs zone_size=128 zone_capacity=80 size=1024) ||
	not_ok "configfs: po2 128M zones with 80M capacity power on" "$(dmesg | tail -3)"
[ -n "$d" ] && nullb_suite "configfs po2 cap<size" "/dev/$d" 128 80 1024 2 3

# po2 zone size: the unchanged path, same tests
d=$(mk_nullb c128 $cfs zone_size=128 size=1024) ||
	not_ok "configfs: po2 128M zones power on" "$(dmesg | tail -3)"
[ -n "$d" ] && nullb_suite "configfs po2" "/dev/$d" 128 128 1024 2 0
po2dev=$d

# zero zone size is still refused
expect_rc "configfs: zone_size=0 refused" 1 mk_nullb c0 $cfs zone_size=0 size=100
expect_match "configfs: zone_size=0 logged" 'zone_size must be non-zero' "$(dmesg)"
expect_eq "no 'must be power-of-two' refusal logged" "$(dmesg | grep -c 'power-of-two')" 0

# --- dm-zoned refuses npo2 devices instead of corrupting them ----------------
sz=$(cat /sys/block/nullb0/size)
expect_rc "dm-zoned: table on the npo2 null_blk refused" 1 \
	dmsetup create dmz-npo2 --table "0 $sz zoned /dev/nullb0"
expect_match "dm-zoned: kernel says the zone size is not a power of 2" \
	'Zone size is not a power of 2' "$(dmesg)"
if [ -n "$po2dev" ]; then
	before=$(dmesg | grep -c 'Zone size is not a power of 2')
	dmsetup create dmz-po2 --table "0 $(cat /sys/block/$po2dev/size) zoned /dev/$po2dev" \
		>/dev/null 2>&1 && dmsetup remove dmz-po2
	expect_eq "dm-zoned: po2 device not refused for its zone size" \
		"$(dmesg | grep -c 'Zone size is not a power of 2')" "$before"
fi

# Smoke test of a patched kernel on one npo2 ZNS namespace (run with
# vm-run.sh --ns ctrl=0,nsid=1,size=1G,lbas=4096,zoned=1,zsze=96M,zcap=96M,
# see tests/vm/README.md): the block device exists with QEMU's geometry,
# `nvme-zns-npo2 map` (dm-po2zone) makes the po2 device, a pattern written
# through it reads back through the raw namespace (ng node, NVMe Read at
# the translated LBA), fio zbd write + verify through the mapping. The
# first check of a new kernel build before the layers; vm-run.sh fails the
# boot on BUG:/WARNING:/Oops/panic in the console log.
. /vm/guest/zlib.sh

ZNP=nvme-zns-npo2
MIB=1048576
vm_summary

lbas=$(ns_conf 0 1 lbas)
zs=$(($(ns_conf 0 1 zsze) / 512))
cap=$(($(ns_conf 0 1 zcap) / 512))
nz=$(($(ns_conf 0 1 size) / $(ns_conf 0 1 zsze)))
p=1
while [ "$p" -lt "$zs" ]; do p=$((p * 2)); done
label="npo2 $((zs / 2048))M/$((cap / 2048))M"

if ! dev=$(vm_blk 0 1); then
	not_ok "$label: block device exists" "$(vm_ns 0 1) hidden: $(dmesg | grep -i zone | tail -3)"
	exit 0
fi
ok "$label: block device $dev exists"
ng=$(vm_ng 0 1)
expect_eq "$label: hidden is 0" "$(cat /sys/block/"${dev#/dev/}"/hidden)" 0
expect_eq "$label: logical block size" "$(sysq "${dev#/dev/}" logical_block_size)" "$lbas"
check_geometry "$label" "$dev" "$zs" "$cap" "$nz" "$zs"

# ---- dm-po2zone through the tool -------------------------------------------
expect_ok "$label: map (dm route)" $ZNP map "$dev" -o json
cp /tmp/vm-cmd.out /tmp/map.json
name=$(jget name /tmp/map.json)
m=/dev/mapper/$name
expect_ok "$label: $m is a block device" test -b "$m"
expect_match "$label: the table is po2zone on the namespace" \
	"^0 $((nz * p)) po2zone [0-9]+:[0-9]+" "$(dmsetup table "$name" 2>&1)"
dmk=$(jget dm /tmp/map.json)
expect_eq "$label: mapping chunk_sectors is the po2 zone size" "$(sysq "$dmk" chunk_sectors)" "$p"
expect_eq "$label: mapping nr_zones" "$(sysq "$dmk" nr_zones)" "$nz"
zone_rows "$m" >/tmp/rep.got
: >/tmp/rep.exp
k=0
while [ "$k" -lt "$nz" ]; do
	echo "$((k * p)) $p $cap 0 1" >>/tmp/rep.exp
	k=$((k + 1))
done
expect_same "$label: mapping reports po2 starts and lengths with the real capacity" \
	/tmp/rep.exp /tmp/rep.got

# ---- a pattern through the mapping, read back raw --------------------------
# mapped zone 3 at offset 1 MiB sits at namespace LBA (3 * zs + 2048) / (lbas / 512)
z=3
dd if=/dev/urandom of=/tmp/pat bs=$MIB count=1 2>/dev/null
expect_ok "$label: 1 MiB of filler at mapped zone $z" wr "$m" $((z * p)) /tmp/pat
dd if=/dev/urandom of=/tmp/pat bs=$MIB count=1 2>/dev/null
expect_ok "$label: 1 MiB pattern at mapped zone $z + 1 MiB" wr "$m" $((z * p + 2048)) /tmp/pat
slba=$(((z * zs + 2048) * 512 / lbas))
nlb=$((MIB / lbas))
# NVMe Read through the generic char device, in 64 KiB commands
: >/tmp/raw
k=0
step=$((65536 / lbas))
while [ "$k" -lt "$nlb" ]; do
	nvme read "$ng" -s $((slba + k)) -c $((step - 1)) -z 65536 -d /tmp/raw.part >/dev/null 2>&1 ||
		break
	cat /tmp/raw.part >>/tmp/raw
	k=$((k + step))
done
expect_same "$label: the pattern is at namespace LBA $slba (NVMe Read on $ng)" /tmp/pat /tmp/raw
rd "$dev" $((z * zs + 2048)) $MIB /tmp/rd.dev
expect_same "$label: the pattern is at sector $((z * zs + 2048)) of $dev" /tmp/pat /tmp/rd.dev
expect_zone "$label: namespace zone $z write pointer at 2 MiB" "$dev" $((z * zs)) $C_IOPEN \
	$((z * zs + 4096))
expect_ok "$label: reset mapped zone $z" blkzone reset -o $((z * p)) -c 1 "$m"
expect_zone "$label: namespace zone $z empty again" "$dev" $((z * zs)) $C_EMPTY $((z * zs))

# ---- fio zbd write + verify through the mapping ----------------------------
check_fio "$label" "$m" "$p" 3 4
expect_zone "$label: fio filled namespace zone 4 to its capacity" "$dev" $((4 * zs)) $C_FULL \
	$((4 * zs + zs))
expect_ok "$label: unmap" $ZNP unmap "$name"
expect_ok "$label: mapping gone" test ! -e "$m"

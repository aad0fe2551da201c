# Patched kernel: f2fs directly on npo2 zoned devices, without device mapper.
# - QEMU ZNS namespace Z (ctrl 0 nsid 1, npo2 24M/24M, 2040M) for the data,
#   the conventional namespace D (ctrl 0 nsid 2) for the metadata
#   (mkfs.f2fs -m -c Z D);
# - an npo2 null_blk (configfs): 24 MiB zones, 2 GiB, so an 8 MiB last zone
#   (a case where the mask f2fs used to count zones with,
#   nr_sectors & (zone_sectors - 1), is 0 and counted one zone too few), the
#   first four zones conventional for the metadata.
# (f2fs needs several free sections besides the data: 96 MiB zones would
# need a much larger device.)
# Debian's mkfs.f2fs (f2fs-tools 1.15) refuses npo2 zone sizes; the one built
# with kernel-patches/f2fs-tools/ (scripts/f2fs-tools-build.sh) is installed
# in /opt/f2fs-npo2/ (fsck.f2fs picks its mode from its program name). Run by tests/layers.d/76-vm-series.sh.
. /vm/guest/zlib.sh
MB=2048

vm_summary

# f2fs_suite NAME TAG ZONED DEV ZS NZ KIND MKFS_ARGS...: ZONED is the zoned
# device (ZS sectors per zone, NZ zones), DEV the device to mount; KIND npo2
# (Debian's mkfs.f2fs must refuse it) or po2 (a control). Format with
# MKFS_ARGS, write files over several zones, remount, verify, fsck -f; the
# fsck verdict of every [FSCK] check goes to /tmp/fsck-TAG.txt, its exit
# status to /tmp/fsck-TAG.rc.
f2fs_suite() {
	local name=$1 tag=$2 zdev=$3 dev=$4 zs=$5 nz=$6 kind=$7 out i used rc
	shift 7

	if [ "$kind" = npo2 ]; then
		out=$(mkfs.f2fs "$@" 2>&1) && rc=0 || rc=$?
		expect_eq "$name: Debian's mkfs.f2fs 1.15 refuses the npo2 zone size" \
			"$([ "$rc" -ne 0 ] && echo refused || echo formatted)" refused
		expect_match "$name: ... saying why" "illegal zone size $((zs * 512)) .not a power of 2." "$out"
	fi

	expect_ok "$name: patched mkfs.f2fs formats it" run_to 120 /opt/f2fs-npo2/mkfs.f2fs "$@"
	mkdir -p /mnt/f2
	if ! mount -t f2fs "$dev" /mnt/f2 2>/tmp/mount.err; then
		not_ok "$name: mount f2fs" "$(cat /tmp/mount.err; dmesg | tail -3)"
		return 0
	fi
	ok "$name: mount f2fs"
	# 8 files of 16 MiB and 40 small ones: more than one 96 MiB zone
	dd if=/dev/urandom of=/tmp/f16 bs=$((1 << 20)) count=16 2>/dev/null
	i=0
	while [ $i -lt 8 ]; do
		cp /tmp/f16 "/mnt/f2/big$i" || break
		i=$((i + 1))
	done
	expect_eq "$name: wrote 8 files of 16 MiB" "$i" 8
	i=0
	while [ $i -lt 40 ]; do
		echo "small file $i of $name" >"/mnt/f2/small$i" || break
		i=$((i + 1))
	done
	expect_eq "$name: wrote 40 small files" "$i" 40
	expect_ok "$name: sync" sync
	used=$(zonectl report "$zdev" 0 "$nz" | awk '$6 == 2 && $5 != 1' | wc -l)
	if [ "$used" -ge 2 ]; then
		ok "$name: f2fs wrote $used sequential zones of $zdev"
	else
		not_ok "$name: f2fs wrote at least 2 sequential zones of $zdev" "$used"
	fi
	expect_ok "$name: umount" umount /mnt/f2
	if ! mount -t f2fs "$dev" /mnt/f2 2>/tmp/mount.err; then
		not_ok "$name: mount again" "$(cat /tmp/mount.err; dmesg | tail -3)"
		return 0
	fi
	ok "$name: mount again"
	i=0
	while [ $i -lt 8 ]; do
		cmp -s /tmp/f16 "/mnt/f2/big$i" || break
		i=$((i + 1))
	done
	expect_eq "$name: the 8 big files read back after the remount" "$i" 8
	expect_eq "$name: a small file reads back" "$(cat /mnt/f2/small39)" "small file 39 of $name"
	expect_eq "$name: 48 files listed" "$(ls /mnt/f2 | wc -l)" 48
	expect_ok "$name: umount again" umount /mnt/f2
	run_to 120 /opt/f2fs-npo2/fsck.f2fs -f --dry-run "$dev" >/tmp/fsck.out 2>&1
	echo $? >"/tmp/fsck-$tag.rc"
	grep -F '[FSCK]' /tmp/fsck.out | sed 's/^/#   /'
	sed -n 's/^\[FSCK\] \(.*[a-zA-Z)]\) *\[\(Ok\.\.\|Fail\)\].*/\1: \2/p' /tmp/fsck.out \
		>"/tmp/fsck-$tag.txt"
	expect_match "$name: fsck.f2fs ran its checks" 'valid_block_count matching with CP: Ok' \
		"$(cat "/tmp/fsck-$tag.txt")"
	expect_eq "$name: no f2fs error in the kernel log" \
		"$(dmesg | grep -c 'F2FS-fs.*\(error\|Error\|fail\)')" 0
}

# --- QEMU ZNS namespace Z (npo2 24M/24M), metadata on D ----------------------
if Z=$(vm_blk 0 1) && D=$(vm_blk 0 2); then
	zz=$(($(ns_conf 0 1 zsze) / 512))
	nz=$(($(ns_conf 0 1 size) / $(ns_conf 0 1 zsze)))
	expect_eq "namespace Z is an npo2 zoned block device" \
		"$(sysq "${Z#/dev/}" zoned) $(sysq "${Z#/dev/}" chunk_sectors)" "host-managed $zz"
	f2fs_suite "f2fs on raw npo2 NVMe Z" nvme "$Z" "$D" "$zz" "$nz" npo2 -f -m -c "$Z" "$D"
else
	not_ok "namespaces Z and D have block devices" "$(dmesg | tail -5)"
fi
# Control: the same layout with a po2 namespace P (32M/32M) and E. fsck.f2fs
# 1.15 reports "free segment_count matched with CP [Fail]" for a zoned
# device added with -c whatever its zone size: Z must give exactly the
# control's verdicts, and fail no other check.
if P=$(vm_blk 0 3) && E=$(vm_blk 0 4); then
	zp=$(($(ns_conf 0 3 zsze) / 512))
	np=$(($(ns_conf 0 3 size) / $(ns_conf 0 3 zsze)))
	f2fs_suite "control: f2fs on po2 NVMe P" control "$P" "$E" "$zp" "$np" po2 -f -m -c "$P" "$E"
	sed 's/^/#   control: /' /tmp/fsck-control.txt
	expect_same "fsck.f2fs -f verdicts on npo2 Z equal those on the po2 control" \
		/tmp/fsck-control.txt /tmp/fsck-nvme.txt
	expect_eq "fsck.f2fs -f on Z: no failed check besides the free segment count" \
		"$(grep -F ': Fail' /tmp/fsck-nvme.txt | grep -vc 'free segment_count matched with CP')" 0
else
	not_ok "namespaces P and E have block devices" "$(dmesg | tail -5)"
fi

# --- npo2 null_blk with a smaller last zone -----------------------------------
nb=$(mk_nullb f2nb zoned=1 memory_backed=1 blocksize=4096 zone_size=24 size=2048 \
	zone_nr_conv=4)
if [ -n "$nb" ]; then
	# 2048 MiB & (24 MiB - 1) is 0, but 2048 MiB / 24 MiB = 85 zones + 8 MiB
	expect_eq "null_blk f2nb: 86 zones, the last one 8 MiB" \
		"$(sysq "$nb" nr_zones) $(zonectl report "/dev/$nb" $((85 * 24 * MB)) 1 | awk '{ print $2 }')" \
		"86 $((8 * MB))"
	f2fs_suite "f2fs on npo2 null_blk with an 8M last zone" nullb "/dev/$nb" "/dev/$nb" \
		$((24 * MB)) 86 npo2 -f -m "/dev/$nb"
	expect_eq "null_blk: fsck.f2fs -f exit status" "$(cat /tmp/fsck-nullb.rc)" 0
	expect_eq "null_blk: fsck.f2fs -f: no failed check" \
		"$(grep -c ': Fail' /tmp/fsck-nullb.txt)" 0
else
	not_ok "null_blk f2nb (24 MiB zones, 2 GiB, 4 conventional) created"
fi
no_errors=$(dmesg | grep -cE 'BUG:|WARNING:|Oops|general protection|Call Trace')
expect_eq "kernel log has no bug, warning or oops report" "$no_errors" 0

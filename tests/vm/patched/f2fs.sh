# Patched kernel: f2fs directly on npo2 zoned devices, without device mapper.
# - QEMU ZNS namespace A (npo2 96M/96M) for the data, the conventional
#   namespace D for the metadata (mkfs.f2fs -m -c A D);
# - an npo2 null_blk (configfs): 96 MiB zones, 1 GiB, so a 64 MiB last zone
#   (the case where the mask f2fs used to count zones with gives one zone too
#   few), the first two zones conventional for the metadata.
# Debian's mkfs.f2fs (f2fs-tools 1.15) refuses npo2 zone sizes; the one built
# with kernel-patches/f2fs-tools/ (scripts/f2fs-tools-build.sh) is installed
# as mkfs.f2fs-npo2 / fsck.f2fs-npo2. Run by tests/layers.d/76-vm-series.sh.
. /vm/guest/zlib.sh
MB=2048

vm_summary

# f2fs_suite NAME ZONED DEV ZS NZ MKFS_ARGS...: ZONED is the zoned device (ZS
# sectors per zone, NZ zones), DEV the device to mount; format with
# MKFS_ARGS, write files over several zones, remount, verify, fsck.
f2fs_suite() {
	local name=$1 zdev=$2 dev=$3 zs=$4 nz=$5 out i used rc
	shift 5

	out=$(mkfs.f2fs "$@" 2>&1) && rc=0 || rc=$?
	expect_eq "$name: Debian's mkfs.f2fs 1.15 refuses the npo2 zone size" \
		"$([ "$rc" -ne 0 ] && echo refused || echo formatted)" refused
	expect_match "$name: ... saying why" "illegal zone size $((zs * 512)) (not a power of 2)" "$out"

	expect_ok "$name: patched mkfs.f2fs formats it" run_to 120 mkfs.f2fs-npo2 "$@"
	mkdir -p /mnt/f2
	expect_ok "$name: mount f2fs" mount -t f2fs "$dev" /mnt/f2 || return 0
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
	expect_ok "$name: mount again" mount -t f2fs "$dev" /mnt/f2 || return 0
	i=0
	while [ $i -lt 8 ]; do
		cmp -s /tmp/f16 "/mnt/f2/big$i" || break
		i=$((i + 1))
	done
	expect_eq "$name: the 8 big files read back after the remount" "$i" 8
	expect_eq "$name: a small file reads back" "$(cat /mnt/f2/small39)" "small file 39 of $name"
	expect_eq "$name: 48 files listed" "$(ls /mnt/f2 | wc -l)" 48
	expect_ok "$name: umount again" umount /mnt/f2
	run_to 120 fsck.f2fs-npo2 -f --dry-run "$dev" >/tmp/fsck.out 2>&1
	expect_eq "$name: fsck.f2fs (patched) finds no error" "$?" 0
	expect_eq "$name: fsck.f2fs: no failed check" "$(grep -c '\[Fail\]' /tmp/fsck.out)" 0
	grep -E 'Fail|Error' /tmp/fsck.out | head -5 | sed 's/^/#   | /'
	expect_eq "$name: no f2fs error in the kernel log" \
		"$(dmesg | grep -c 'F2FS-fs.*\(error\|Error\|fail\)')" 0
}

# --- QEMU ZNS namespace A (npo2 96M/96M), metadata on D ----------------------
if A=$(vm_blk 0 1) && D=$(vm_blk 0 4); then
	za=$(($(ns_conf 0 1 zsze) / 512))
	na=$(($(ns_conf 0 1 size) / $(ns_conf 0 1 zsze)))
	f2fs_suite "f2fs on raw npo2 NVMe A" "$A" "$D" "$za" "$na" -f -m -c "$A" "$D"
else
	not_ok "namespaces A and D have block devices" "$(dmesg | tail -5)"
fi

# --- npo2 null_blk with a smaller last zone -----------------------------------
nb=$(mk_nullb f2nb zoned=1 memory_backed=1 blocksize=4096 zone_size=96 size=1024 \
	zone_nr_conv=2)
if [ -n "$nb" ]; then
	expect_eq "null_blk f2nb: 11 zones, the last one 64 MiB" \
		"$(sysq "$nb" nr_zones) $(zonectl report "/dev/$nb" $((10 * 96 * MB)) 1 | awk '{ print $2 }')" \
		"11 $((64 * MB))"
	f2fs_suite "f2fs on npo2 null_blk with a 64M last zone" "/dev/$nb" "/dev/$nb" \
		$((96 * MB)) 11 -f -m "/dev/$nb"
else
	not_ok "null_blk f2nb (96 MiB zones, 1 GiB, 2 conventional) created"
fi
no_errors=$(dmesg | grep -cE 'BUG:|WARNING:|Oops|general protection|Call Trace')
expect_eq "kernel log free of BUG/WARNING/Oops" "$no_errors" 0

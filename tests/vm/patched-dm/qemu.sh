# dm-po2zone on QEMU NVMe ZNS namespaces (patched kernel, --preset standard):
# A (ctrl 0 nsid 1) npo2 96M/96M, B po2 128M/96M, C npo2 80M/64M,
# D conventional, E (ctrl 1 nsid 1) npo2 48M/48M on 512-byte LBAs.
# Run by tests/layers.d/75-vm-dm.sh.
. /vm/guest/common.sh

vm_summary

# nsdev NAME CTRL NSID: block device of a namespace, recorded as a test
nsdev() {
	local d
	if d=$(vm_blk "$2" "$3"); then
		ok "namespace $1 has block device $d" >&2
		echo "$d"
	else
		not_ok "namespace $1 has a block device" >&2
		echo /dev/missing-$1
	fi
}

A=$(nsdev A 0 1)
B=$(nsdev B 0 2)
C=$(nsdev C 0 3)
D=$(nsdev D 0 4)
E=$(nsdev E 1 1)

# geometry from what QEMU was configured with
za=$(($(ns_conf 0 1 zsze) / 512))
na=$(($(ns_conf 0 1 size) / $(ns_conf 0 1 zsze)))
ze=$(($(ns_conf 1 1 zsze) / 512))
ne=$(($(ns_conf 1 1 size) / $(ns_conf 1 1 zsze)))
pa=$(po2_roundup "$za")

dm_suite nvA "$A" "$za" "$na" 2
expect_ok "remove the mapping of A" dmsetup remove nvA
dm_suite nvE "$E" "$ze" "$ne" 0
expect_ok "remove the mapping of E" dmsetup remove nvE

# --- bad tables ---------------------------------------------------------------
zb=$(($(ns_conf 0 2 zsze) / 512))
nb=$(($(ns_conf 0 2 size) / $(ns_conf 0 2 zsze)))
bad_table "po2 namespace B" "0 $((nb * zb)) po2zone $B" \
	"Device zone size is already a power of 2"
zc=$(($(ns_conf 0 3 zsze) / 512))
nc=$(($(ns_conf 0 3 size) / $(ns_conf 0 3 zsze)))
bad_table "namespace C, capacity < zone size" \
	"0 $((nc * $(po2_roundup "$zc"))) po2zone $C" \
	"Zone capacity differs from zone size"
bad_table "conventional namespace D" "0 $(($(ns_conf 0 4 size) / 512)) po2zone $D" \
	"Device is not a zoned block device"
dm_generic_bad_tables "namespace A" "$A" "$za" "$na"

# --- f2fs on the mapping, metadata on the conventional namespace --------------
expect_ok "create the f2fs mapping of A" \
	dmsetup create f2po2 --table "0 $((na * pa)) po2zone $A"
M=/dev/mapper/f2po2
expect_ok "mkfs.f2fs -m -c mapping + conventional namespace" \
	run_to 120 mkfs.f2fs -f -m -c "$M" "$D"
mkdir -p /mnt/f2
expect_ok "mount f2fs" mount -t f2fs "$D" /mnt/f2
# 4 random seeds, each copied 20 times: 320 MiB, more than D can hold
i=0
while [ $i -lt 4 ]; do
	dd if=/dev/urandom of=/tmp/seed$i bs=$MIB count=4 2>/dev/null
	i=$((i + 1))
done
wrote=0
i=0
while [ $i -lt 80 ]; do
	cp /tmp/seed$((i % 4)) /mnt/f2/file$i || break
	i=$((i + 1))
done
expect_eq "wrote 80 files of 4 MiB" "$i" 80
(cd /mnt/f2 && md5sum file*) >/tmp/f2.md5
expect_ok "sync f2fs" sync
expect_rc "removing the mapping while mounted is refused" 1 dmsetup remove f2po2
expect_ok "unmount f2fs" umount /mnt/f2
used=$(zone_list "$A" | grep -vc ' 0 1$')
if [ "$used" -gt 0 ]; then
	ok "f2fs wrote $used zones of the npo2 namespace through the mapping"
else
	not_ok "f2fs wrote zones of the npo2 namespace through the mapping"
fi
used_m=$(zone_list "$M" | grep -vc ' 0 1$')
expect_eq "mapping and namespace agree on used zones" "$used_m" "$used"
expect_ok "mount f2fs again" mount -t f2fs "$D" /mnt/f2
expect_ok "files verified after remount" sh -c 'cd /mnt/f2 && md5sum -c /tmp/f2.md5'
for i in 0 1 2 3; do
	same "file$((i + 76)) matches its seed" /tmp/seed$i /mnt/f2/file$((i + 76))
done
expect_ok "unmount f2fs again" umount /mnt/f2
expect_ok "fsck.f2fs clean" run_to 120 fsck.f2fs -f "$D"
grep -E 'Fsck|\[FSCK\]|\[FAIL\]' /tmp/vm-cmd.out | sed 's/^/#   /' | head -5
expect_eq "fsck.f2fs found no inconsistency" \
	"$(grep -c '\[Fail\]\|\[FAIL\]' /tmp/vm-cmd.out)" 0
expect_ok "remove the f2fs mapping" dmsetup remove f2po2

no_kernel_errors "qemu: kernel log clean"
true

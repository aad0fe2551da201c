# Reproduction (not a layer): zoned btrfs on a small zoned block device that
# reports no open or active zone limit hangs at the first data writeback on
# Linux 7.3 (Debian's 7.3.4 backport) and works on 6.12. No NVMe and none
# of this project's code is involved: the device is a memory-backed zoned
# null_blk, 36 zones of 16 MiB, 4 KiB blocks, zone_max_open=0,
# zone_max_active=0 (a QEMU ZNS namespace of 36 x 64 MiB zones without
# zoned.max_active hangs the same way).
#
# 7.3's btrfs_get_max_active_zones() (fs/btrfs/zoned.c) gives a device
# without limits max(min(nr_zones / 4, 128), BTRFS_MIN_ACTIVE_ZONES) = 9
# active zones here (6.12 kept 0: no accounting). The superblock log zone,
# the DUP system and metadata block groups, the zones reserved for the
# metadata/tree-log/system block groups (btrfs_check_active_zone_reservation)
# and the data relocation block group activated at mount
# (btrfs_zoned_reserve_data_reloc_bg, new since 6.12) leave no zone for a
# data block group: btrfs_reserve_extent() returns -EAGAIN,
# btrfs_zone_finish_one_bg() finds no data block group with data to finish
# (all are empty), and cow_file_range() waits for ever on
# BTRFS_FS_NEED_ZONE_FINISH, which only a zone finish clears.
#
# Run on each kernel (stock 6.12: passes; STOCK_KDIR=<7.x tree from
# scripts/stock-kernel.sh>: fails, the log shows the blocked tasks):
#   tests/vm/vm-run.sh --kernel stock --guest tests/vm/repro/btrfs-active-zones.sh \
#     --ns ctrl=0,nsid=1,size=64M,lbas=4096 \
#     --modules "crc32c_generic? crc32_generic? btrfs" \
#     --add "$(command -v mkfs.btrfs):/usr/bin/mkfs.btrfs" --timeout 300
# (the namespace is only there because vm-run.sh wants one).

NZ=36
ZMB=16
MB=64
dev=$(mk_nullb r35repro blocksize=4096 zoned=1 zone_size=$ZMB size=$((NZ * ZMB)) \
	memory_backed=1 zone_max_open=0 zone_max_active=0) || { not_ok "zoned null_blk"; exit 1; }
blk=/dev/$dev
q=/sys/block/$dev/queue
vm_log "$blk: $(cat "$q/nr_zones") zones of $ZMB MiB, max_open_zones $(cat "$q/max_open_zones")," \
	"max_active_zones $(cat "$q/max_active_zones"), kernel $(uname -r)"
expect_eq "the device reports no active zone limit" "$(cat "$q/max_active_zones")" 0

# zone_conds: count of each zone condition (blkzone's zcond field)
zone_conds() {
	blkzone report "$blk" | awk '{ for (i = 1; i < NF; i++) if ($i == "zcond:") c[$(i + 1)]++ }
		END { for (k in c) printf "%s=%d ", k, c[k]; print "" }'
}

run_to 60 mkfs.btrfs -f "$blk" >/tmp/mkfs.out 2>&1 || { not_ok "mkfs.btrfs" "$(tail -3 /tmp/mkfs.out)"; exit 1; }
mkdir -p /mnt/repro
mount -t btrfs "$blk" /mnt/repro || { not_ok "mount" "$(dmesg | tail -3)"; exit 1; }
vm_log "after mount: $(zone_conds)"

# the write in the background: a hung writer cannot be killed (state D)
dd if=/dev/zero of=/mnt/repro/f bs=1M count=$MB conv=fsync 2>/tmp/dd.err &
t=0
# running: not gone and not a zombie left unreaped
running() { [ -e "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
while running $! && [ $t -lt 90 ]; do
	sleep 1
	t=$((t + 1))
done
if running $!; then
	not_ok "btrfs wrote $MB MiB with fsync within 90 s" "still writing; zones: $(zone_conds)"
	btrfs_sysfs=$(ls -d /sys/fs/btrfs/*-* | head -1)
	vm_log "data bytes_used $(cat "$btrfs_sysfs/allocation/data/bytes_used")," \
		"bytes_may_use $(cat "$btrfs_sysfs/allocation/data/bytes_may_use")"
	# the blocked tasks (cow_file_range in out_of_line_wait_on_bit) go to the log
	echo w >/proc/sysrq-trigger
	sleep 2
	exit 1
fi
wait $!
expect_eq "btrfs wrote $MB MiB with fsync" "$?" 0
vm_log "after the write ($t s): $(zone_conds)"
expect_ok "umount" run_to 60 umount /mnt/repro

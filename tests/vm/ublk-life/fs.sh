# btrfs (zoned: it writes data with Zone Append) on A's ublk device and f2fs
# (metadata on the conventional D, zones on F's ublk device). Sourced by guest.sh.

# seeds: 4 MiB of random data each
for i in 0 1 2 3; do
	dd if=/dev/urandom of=/tmp/seed$i bs=1M count=4 2>/dev/null
done

# used_zones ROWS: zones whose write pointer moved (blkzone rows)
used_zones() { zone_rows "$1" | awk '$4 > 0 || $5 == 14' | wc -l; }

# ns_vs_ublk NG UBLKB LBAS: the namespace's own report (nvme-cli through the
# ng node) translated to the ublk device: every zone's write pointer offset
# and capacity must match blkzone's report of the ublk device.
ns_vs_ublk() {
	ns_wps "$1" "$3" >/tmp/ns.wp
	zone_rows "$2" | awk '{ if ($5 == 14) print $3; else print $4 }' >/tmp/ublk.wp
	# a full zone: the namespace's wp is its capacity, the ublk one reports len
	expect_same "$4: every zone's write pointer matches the namespace's own report" \
		/tmp/ns.wp /tmp/ublk.wp
	cmp -s /tmp/ns.wp /tmp/ublk.wp ||
		paste /tmp/ns.wp /tmp/ublk.wp | sed 's/^/#   ns ublk: /' 
}

# ---- btrfs zoned on A ------------------------------------------------------------
mkdir -p /mnt/b
expect_ok "mkfs.btrfs on $UA (zoned detected)" run_to 120 mkfs.btrfs -f -d single -m single "$UA"
expect_match "mkfs.btrfs saw a zoned device" '[Zz]oned' "$(cat /tmp/vm-cmd.out)"
expect_ok "mount btrfs" mount -t btrfs "$UA" /mnt/b
expect_eq "btrfs: wrote 24 files of 4 MiB" "$(copy_seeds /mnt/b 24)" 24
(cd /mnt/b && sha256sum file*) >/tmp/b.sum
expect_ok "btrfs: sync" sync
expect_match "btrfs uses zoned mode" 'zoned' "$(dmesg | grep -i btrfs | tr '\n' ' ')"
expect_ok "btrfs: umount" umount /mnt/b
nb=$(used_zones "$UA")
expect_match "btrfs wrote into several zones ($nb)" '^([3-9]|[1-9][0-9])$' "$nb"
ns_vs_ublk "$A" "$UA" 4096 "btrfs"
expect_ok "btrfs: mount again" mount -t btrfs "$UA" /mnt/b
expect_ok "btrfs: checksums after remount" sh -c 'cd /mnt/b && sha256sum -c /tmp/b.sum'
expect_ok "btrfs: scrub" run_to 120 btrfs scrub start -B /mnt/b
expect_match "btrfs: scrub found no errors" 'no errors found|Error summary: *no errors' "$(cat /tmp/vm-cmd.out)"
# A has two queues: appends of one zone handed from queue to queue, none failed
btrfs device stats /mnt/b >/tmp/b.stats 2>&1
expect_eq "btrfs (2 queues): device stats all zero" \
	"$(awk '$2 != 0' /tmp/b.stats | wc -l) $(wc -l </tmp/b.stats)" "0 5"
expect_eq "btrfs (2 queues): no I/O error on ${UA#/dev/} in dmesg" \
	"$(dmesg | grep -cE "I/O error, dev ${UA#/dev/}|${UA#/dev/}: rw=")" 0
expect_ok "btrfs: umount again" umount /mnt/b

# ---- f2fs: metadata on D, zones on F's ublk device -------------------------------
mkdir -p /mnt/f2
expect_ok "mkfs.f2fs -m -c $UF $D" run_to 120 mkfs.f2fs -f -m -c "$UF" "$D"
expect_ok "mount f2fs" mount -t f2fs "$D" /mnt/f2
expect_eq "f2fs: wrote 60 files of 4 MiB (more than D holds)" "$(copy_seeds /mnt/f2 60)" 60
(cd /mnt/f2 && sha256sum file*) >/tmp/f2.sum
expect_ok "f2fs: sync" sync
expect_rc "f2fs: unmap of the zoned device while f2fs is mounted is refused (4)" 4 $Z unmap "$UF"
expect_ok "f2fs: umount" umount /mnt/f2
nf=$(used_zones "$UF")
expect_match "f2fs wrote into zones of $UF ($nf)" '^[1-9][0-9]*$' "$nf"
ns_vs_ublk "$F" "$UF" 4096 "f2fs"
expect_ok "f2fs: mount again" mount -t f2fs "$D" /mnt/f2
expect_ok "f2fs: checksums after remount" sh -c 'cd /mnt/f2 && sha256sum -c /tmp/f2.sum'
expect_ok "f2fs: umount again" umount /mnt/f2
run_to 120 fsck.f2fs -f --dry-run "$D" >/tmp/fsck.out 2>&1
expect_match "fsck.f2fs: valid block count matches the checkpoint" \
	'valid_block_count matching with CP.*Ok' "$(grep -F '[FSCK]' /tmp/fsck.out | tr '\n' ' ')"

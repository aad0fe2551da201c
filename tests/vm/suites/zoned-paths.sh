# The risky zoned paths of the kernel series on npo2 devices (busybox ash):
#  1. Zone Append carried by the block layer: the NVMe target (loop) exports
#     the npo2 QEMU namespace's block device; NVMe Zone Append commands sent
#     to the loop namespace become REQ_OP_ZONE_APPEND BIOs on the npo2 disk,
#     which the NVMe driver sends to QEMU and completes with the LBA QEMU
#     chose. Returned LBAs and data are checked at the device (passthrough
#     reads on the QEMU namespace's /dev/ngXnY, its zone report).
#  2. Zone write plugging with 8-16 writes in flight per zone: fio
#     --zonemode=zbd (io_uring and libaio) with verify (fio's zbd mode
#     refuses block sizes that do not divide the zone size: 12 and 48 KiB),
#     and plain sequential libaio writes whose 20 KiB blocks do not divide
#     the 12 MiB zones, so that BIOs cross npo2 zone boundaries and are split
#     there by the block layer; write pointers checked against what was
#     written.
#  3. The NVMe target and an npo2 null_blk whose size is not a multiple of
#     its zone size: refused (ZNS has no smaller last zone; v3's
#     zns_smaller_last_zone knob is gone).
# QEMU: ctrl 0 nsid 1, 96 MiB of 12 MiB zones (8), 4 KiB LBAs.
MB=2048
CFS=/sys/kernel/config/nvmet
ZMB=${ZMB:-12}		# zone size in MiB, as configured in QEMU (vm-run --ns) and null_blk
ZS=$((ZMB * MB))	# zone size in sectors
LBS=4096
ZL=$((ZS * 512 / LBS))	# zone size in LBAs

# zone DEV N: "cond wp" of zone N (wp in sectors from the zone start), from
# the device's own zone report through the block layer
zone() {
	zonectl report "$1" $(($2 * ZS)) 1 | awk -v s=$(($2 * ZS)) '{ print $5, $4 - s }'
}

disconnect() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] && echo 1 >"$c/delete_controller"
	done
	rm -f "$CFS/ports/1/subsystems/$1"
}

# append DEV SLBA FILE: NVMe Zone Append, prints the LBA the device returned
append() {
	nvme zns zone-append "$1" -s "$2" -z "$(stat -c %s "$3")" -d "$3" 2>&1 |
		sed -n 's/.*appended data to LBA \([0-9a-fA-F]*\).*/\1/p' | { read -r x && echo $((0x$x)); }
}

# devread LBA NLB FILE: read from the QEMU namespace by passthrough
devread() {
	nvme read "$qng" -s "$1" -c $(($2 - 1)) -z $(($2 * LBS)) -d "$3" >/dev/null 2>&1
}

qdev=$(vm_blk 0 1)
qng=$(vm_ng 0 1)
expect_match "npo2 QEMU namespace is a block device" '^/dev/nvme' "$qdev"
expect_eq "npo2 QEMU namespace: 8 zones of $ZMB MiB" \
	"$(cat /sys/block/${qdev#/dev/}/queue/chunk_sectors) $(cat /sys/block/${qdev#/dev/}/queue/nr_zones)" "$ZS 8"
nvmet_loop_port || not_ok "nvmet loop port"

# ---- 1. Zone Append through the block layer to the npo2 namespace ---------
expect_ok "nvmet exports the npo2 namespace's block device" nvmet_export zapp "$qdev"
r=$(nvmet_connect zapp)
if [ -n "$r" ] && [ -b "/dev/$r" ]; then
	ok "loop namespace /dev/$r appeared"
	expect_eq "loop namespace: $ZMB MiB zones, 8 zones" \
		"$(cat /sys/block/$r/queue/chunk_sectors) $(cat /sys/block/$r/queue/nr_zones)" "$ZS 8"
	dd if=/dev/urandom of=/tmp/rnd bs=65536 count=8 2>/dev/null	# 128 LBAs
	# zone 0: appends of 1, 2, 4 and 1 LBAs land back to back from the zone start
	want=0 k=0
	for n in 1 2 4 1; do
		k=$((k + 1))
		dd if=/tmp/rnd of=/tmp/a$k bs=$LBS skip=$k count=$n 2>/dev/null
		got=$(append "/dev/$r" 0 /tmp/a$k)
		expect_eq "zone append $k ($n LBAs) to zone 0 returns LBA $want" "$got" "$want"
		devread "$want" "$n" /tmp/d$k
		expect_same "zone append $k: data at LBA $want of the QEMU namespace" /tmp/a$k /tmp/d$k
		want=$((want + n))
	done
	expect_eq "zone 0 write pointer at the device after 8 LBAs" "$(zone "$qdev" 0)" "2 $((8 * LBS / 512))"
	# zone 7, the last one: 16 LBAs at its start
	dd if=/tmp/rnd of=/tmp/a7 bs=$LBS count=16 2>/dev/null
	expect_eq "zone append to the last zone returns its start LBA" "$(append "/dev/$r" $((7 * ZL)) /tmp/a7)" $((7 * ZL))
	devread $((7 * ZL)) 16 /tmp/d7
	expect_same "last zone: appended data at the device" /tmp/a7 /tmp/d7
	# zone 5: after a 20 KiB regular write through the block layer
	expect_ok "20 KiB write at the start of zone 5 of the npo2 disk" zonectl write "$qdev" $((5 * ZS)) 20480 5
	dd if=/tmp/rnd of=/tmp/a5 bs=$LBS count=1 skip=20 2>/dev/null
	expect_eq "zone append after the write returns the write pointer LBA" \
		"$(append "/dev/$r" $((5 * ZL)) /tmp/a5)" $((5 * ZL + 5))
	devread $((5 * ZL + 5)) 1 /tmp/d5
	expect_same "zone 5: appended data after the written 20 KiB" /tmp/a5 /tmp/d5
	expect_ok "zone 5: the 20 KiB written before are intact" zonectl verify "$qdev" $((5 * ZS)) 20480 5
	# zone 3: 8 appends in flight at once; each gets its own LBA, the 8 LBAs
	# are the first 8 of the zone, and each LBA holds its own command's data
	k=0
	while [ $k -lt 8 ]; do
		dd if=/tmp/rnd of=/tmp/c$k bs=$LBS count=1 skip=$((40 + k)) 2>/dev/null
		[ "$(stat -c %s /tmp/c$k)" = $LBS ] || not_ok "append data file $k has one LBA"
		(append "/dev/$r" $((3 * ZL)) /tmp/c$k >/tmp/c$k.lba) &
		k=$((k + 1))
	done
	wait
	lbas=$(cat /tmp/c?.lba | sort -n | tr '\n' ' ')
	expect_eq "8 concurrent zone appends to zone 3 got 8 distinct LBAs from its start" \
		"$lbas" "$(k=0; while [ $k -lt 8 ]; do printf '%s ' $((3 * ZL + k)); k=$((k + 1)); done)"
	bad=
	k=0
	while [ $k -lt 8 ]; do
		l=$(cat /tmp/c$k.lba)
		devread "${l:-0}" 1 /tmp/cd$k && cmp -s /tmp/c$k /tmp/cd$k || bad="$bad $k@${l:-?}"
		k=$((k + 1))
	done
	expect_eq "each concurrent append's data is at the LBA it returned" "${bad:-none}" none
	expect_eq "zone 3 write pointer at the device" "$(zone "$qdev" 3)" "2 $((8 * LBS / 512))"
	disconnect zapp
else
	not_ok "loop namespace of the npo2 namespace appeared" "$(dmesg | tail -5)"
fi
zonectl reset "$qdev" 0 $((8 * ZS)) >/dev/null

# ---- 2. zone write plugging, several writes in flight per zone -----------
# fio_ok DESC ARGS...: fio must exit 0 (verify failures exit non-zero)
fio_ok() {
	local desc=$1 rc
	shift
	run_to 600 fio --name=zwp --direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--group_reporting "$@" >/tmp/fio.out 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q 'err= *[1-9]' /tmp/fio.out; then
		ok "$desc"
	else
		not_ok "$desc" "fio exit $rc"
		grep -vE '^ +(lat|clat|slat|bw|iops|cpu|IO depths|submit|complete|issued|latency|[0-9.]+th|\|)' /tmp/fio.out |
			grep -v '^ *$' | head -12 | sed 's/^/#   /'
	fi
}

nb=/dev/$(mk_nullb zwp zoned=1 memory_backed=1 blocksize=4096 zone_size=$ZMB size=$((8 * ZMB)))
for t in "npo2 null_blk:$nb" "npo2 NVMe namespace:$qdev"; do
	name=${t%%:*} dev=${t#*:}
	zonectl reset "$dev" 0 $((8 * ZS)) >/dev/null
	# fio's zbd mode needs a block size that divides the zone size: 12 KiB
	# and 48 KiB (not powers of 2) divide 12 MiB
	fio_ok "$name: fio zbd io_uring iodepth 16, 12 KiB blocks, write + verify over 4 zones" \
		--filename="$dev" --zonemode=zbd --ioengine=io_uring --iodepth=16 --rw=write --bs=12k \
		--offset=0 --size=$((4 * ZS * 512))
	zonectl reset "$dev" 0 $((8 * ZS)) >/dev/null
	fio_ok "$name: fio zbd libaio iodepth 8, 48 KiB blocks, random zones (4 open), write + verify" \
		--filename="$dev" --zonemode=zbd --ioengine=libaio --iodepth=8 --rw=randwrite --bs=48k \
		--max_open_zones=4 --offset=0 --size=$((8 * ZS * 512)) --io_size=$((16 * 1024 * 1024))
	# sequential libaio writes straddling zone boundaries: 3 zones and 100
	# blocks of 20 KiB from zone 1; the block layer splits every BIO that
	# crosses an npo2 zone end. (Not io_uring: it submits with REQ_NOWAIT,
	# a BIO that needs a split then fails with EAGAIN and is retried from a
	# worker after the next write, which the zone then rejects as unaligned,
	# on po2 devices just the same.)
	zonectl reset "$dev" 0 $((8 * ZS)) >/dev/null
	len=$((3 * ZS * 512 - 3 * ZS * 512 % 20480 + 20480 * 100))
	fio_ok "$name: libaio iodepth 16, 20 KiB writes across zone boundaries (no zbd mode), verify" \
		--filename="$dev" --ioengine=libaio --iodepth=16 --rw=write --bs=20k \
		--offset=$((ZS * 512)) --size=$len
	w=$((len / 512))
	for z in 1 2 3 4; do
		if [ "$w" -ge "$ZS" ]; then exp="14 $ZS"; w=$((w - ZS)); else exp="2 $w"; w=0; fi
		[ "$exp" = "2 0" ] && exp="1 0"
		expect_eq "$name: zone $z condition and write pointer after the straddling writes" "$(zone "$dev" $z)" "$exp"
	done
	expect_eq "$name: zone 0 untouched" "$(zone "$dev" 0)" "1 0"
done
zonectl reset "$nb" 0 $((8 * ZS)) >/dev/null

# ---- 3. nvmet and an npo2 null_blk whose size is not a multiple of its zone size
# 8 zones and a 4 MiB last zone. The target refuses a device whose size is
# not a multiple of its zone size (ZNS has no smaller last zone), as the
# base does, and has no knob to export it anyway.
nbl=/dev/$(mk_nullb zlast zoned=1 memory_backed=1 blocksize=4096 zone_size=$ZMB size=$((8 * ZMB + 4)))
expect_rc "nvmet refuses the device with a smaller last zone" 1 nvmet_export zlast "$nbl"
expect_eq "no zns_smaller_last_zone attribute" \
	"$([ -e "$CFS/subsystems/zlast/namespaces/1/zns_smaller_last_zone" ] && echo present || echo absent)" absent
true

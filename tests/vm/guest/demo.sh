# `make demo`: a narrated walkthrough in the guest (tests/vm/demo.sh boots
# it on build/kernel/bzImage when that exists, then on the stock kernel,
# which ends with the hidden namespace served through ublk and btrfs
# mounted on it).
ZNP=nvme-zns-npo2

say() { printf '\n==> %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
# runs 'PIPELINE': show and run a shell command line
runs() { printf '$ %s\n' "$1"; eval "$1"; }

A=$(vm_ng 0 1) B=$(vm_ng 0 2) C=$(vm_ng 0 3) D=$(vm_ng 0 4)
zs=$(($(ns_conf 0 1 zsze) / 4096))

if [ "$VM_KERNEL" = stock ]; then
	say "Debian's stock $(uname -r) kernel, one emulated NVMe controller with four namespaces:"
	echo "    nsid 1: ZNS, 96 MiB zones (not a power of two)"
	echo "    nsid 2: ZNS, 128 MiB zones with 96 MiB capacity (power of two)"
	echo "    nsid 3: ZNS, 80 MiB zones with 64 MiB capacity (not a power of two)"
	echo "    nsid 4: conventional"
	say "The kernel refuses zone sizes that are not a power of two and hides those block devices:"
	runs "dmesg | grep 'invalid zone size'"
	runs "ls /dev/nvme0n* /dev/ng0n*"
	say "nvme-cli's list does not show them either:"
	run nvme list
else
	say "Patched kernel $(uname -r), same drive: the npo2 namespaces get block devices"
	runs "ls /dev/nvme0n* /dev/ng0n*"
fi

if ! command -v $ZNP >/dev/null; then
	say "build/nvme-zns-npo2 is not built yet: run 'make', then 'make demo'"
	ok "demo ran (without the binary)"
	exit 0
fi

say "$ZNP lists every ZNS namespace, found through sysfs and the generic char devices:"
run $ZNP list

if [ "$VM_KERNEL" = stock ]; then
	say "Is each namespace usable, and how? (the exit code is the verdict)"
	for d in $A $B $C $D; do
		run $ZNP check "$d"
		echo "    (exit code $?)"
	done
	say "The first zones of nsid 1: zone n starts at n x $zs LBAs (96 MiB), no power of two needed"
	run $ZNP report -c 4 "$A"
	say "Write 64 KiB into zone 1 (an NVMe Write through $A), then look at it:"
	run nvme-pattern write "$A" "$zs" 16 4096 1
	run $ZNP report -s "$zs" -c 1 "$A"
	say "Open zone 3, fill zone 5 (finish), and draw the zones: one cell per zone, colour by state, fill by write pointer"
	run $ZNP open -s $((3 * zs)) "$A"
	run $ZNP finish --force -s $((5 * zs)) "$A"
	run $ZNP zonemap --color=always "$A"
	say "Reset zone 1 (destructive: without --force, and no terminal to ask on, it refuses):"
	run $ZNP reset -s "$zs" "$A"
	echo "    (exit code $?)"
	run $ZNP reset --force -s "$zs" "$A"
	run $ZNP report -s "$zs" -c 1 "$A"
	if ! [ -e /dev/ublk-control ] || ! $ZNP map --help 2>&1 | grep -q -- --ublk; then
		say "(no ublk driver or no map --ublk in this build: the ublk part is skipped)"
		not_ok "demo: ublk part"
		exit 0
	fi
	say "No kernel patches needed: check says nsid 1 is mappable through ublk (exit 15)"
	run $ZNP check "$A"
	echo "    (exit code $?)"
	say "Serve it through a ublk server (a daemon; it returns once the device is live):"
	run $ZNP map --ublk "$A"
	U=$(ls /dev/ublkb* 2>/dev/null | head -1)
	say "$U: a host-managed zoned block device with 128 MiB (power-of-two) zones of 96 MiB capacity"
	runs "cat /sys/block/${U#/dev/}/queue/zoned /sys/block/${U#/dev/}/queue/chunk_sectors /sys/block/${U#/dev/}/queue/nr_zones"
	run blkzone report -c 3 "$U"
	run $ZNP status
	run $ZNP list
	say "btrfs (zoned: it writes data with Zone Append) on it:"
	run mkfs.btrfs -q -f "$U"
	mkdir -p /mnt/ublk
	run mount -t btrfs "$U" /mnt/ublk
	runs "dd if=/dev/urandom of=/mnt/ublk/data bs=1M count=64 2>/dev/null && sync && sha256sum /mnt/ublk/data"
	runs "df -h /mnt/ublk | tail -1"
	run blkzone report -c 6 "$U"
	say "The namespace's own report (nvme-cli through $A) shows the same data at the npo2 LBAs:"
	runs "nvme zns report-zones $A -d 6 | head -7"
	say "unmap refuses while it is mounted (exit 4):"
	run $ZNP unmap "$U"
	echo "    (exit code $?)"
	say "Done: $A, hidden by the stock kernel, is mounted on /mnt/ublk through $U"
	runs "grep ublk /proc/mounts"
	if [ "${vm_demo_patched:-0}" = 0 ]; then
		say "To see the npo2 block device and the in-kernel po2 mapping, build the patched kernel:"
		echo "    make kernel && make demo"
	fi
	if grep -q "^$U /mnt/ublk btrfs" /proc/mounts; then
		ok "demo ran"
	else
		not_ok "demo: btrfs mounted on the ublk device"
	fi
	exit 0
fi

blk=$(vm_blk 0 1)
say "nsid 1 is a host-managed zoned block device with 96 MiB zones now:"
runs "cat /sys/block/${blk#/dev/}/queue/zoned /sys/block/${blk#/dev/}/queue/chunk_sectors"
run blkzone report -c 3 "$blk"
run $ZNP check "$blk"
echo "    (exit code $?)"
if $ZNP help 2>&1 | grep -qw map; then
	say "Map it to 128 MiB (power-of-two) zones for software that needs them:"
	run $ZNP map --name demo-po2 "$blk"
	run $ZNP status
	say "Where the padding sits: each 96 MiB zone takes 128 MiB in the mapping"
	run $ZNP zonemap --color=always --padding "$blk"
	run blkzone report -c 3 /dev/mapper/demo-po2
	run $ZNP unmap demo-po2
else
	say "(this build of $ZNP has no map command)"
fi
ok "demo ran"
true

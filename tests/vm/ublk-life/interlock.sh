# The interlock: with A served as $UA and a btrfs mounted on it, every
# command of the tool that writes zones or data or changes a zone's state is
# refused on A's namespace node, with and without --force (exit 4, one line
# naming the mapping, its device and what to use instead); afterwards A's
# zones, as nvme-cli reports them through the ng node, are what they were,
# the files written through $UA verify, and a write through $UA still works
# (the kernel's cached write pointers still match the drive). Sourced by
# guest.sh with btrfs mounted on /mnt/u.

expect_eq "interlock: wrote 8 files of 4 MiB through $UA" "$(copy_seeds /mnt/u 8)" 8
(cd /mnt/u && sha256sum file*) >/tmp/il.sum
expect_ok "interlock: sync" sync
nvme zns report-zones "$A" -o json >/tmp/il-zones.before 2>&1
expect_match "interlock: nvme-cli reports A's zones" '"slba"' "$(cat /tmp/il-zones.before)"
IL_NAME=${UA#/dev/}	# mapped without --name: unmap takes the device's name
for f in "" -f; do
	for c in "reset -s 0" "reset -a" "finish -s 0" "open -s 0" "close -s 0" "discard"; do
		cmd=${c%% *}
		case $cmd in
		discard) way="use $Z discard $UA, or unmap $IL_NAME first" ;;
		*) way="use blkzone $cmd $UA, or unmap $IL_NAME first" ;;
		esac
		# shellcheck disable=SC2086 # $c and $f are words
		expect_rc "interlock: $c${f:+ $f} on A: refused (4)" 4 run_to 30 $Z $c "$A" $f
		expect_eq "... one line naming the mapping, its device and the way out" \
			"$(cat /tmp/vm-cmd.out)" \
			"$Z: $A: served by ublk mapping $IL_NAME as $UA: $cmd refused, even with --force; $way"
		vm_log "refusal: $(cat /tmp/vm-cmd.out)"
	done
done
nvme zns report-zones "$A" -o json >/tmp/il-zones.after 2>&1
expect_same "interlock: A's zones through the ng node unchanged (nvme-cli)" \
	/tmp/il-zones.before /tmp/il-zones.after
echo 3 >/proc/sys/vm/drop_caches
expect_ok "interlock: the files written through $UA verify" sh -c 'cd /mnt/u && sha256sum -c /tmp/il.sum'
expect_eq "interlock: a write through $UA still works" "$(cp /tmp/seed1 /mnt/u/after && sync && echo ok)" ok
expect_eq "interlock: no I/O error on ${UA#/dev/} in dmesg" \
	"$(dmesg | grep -cE "I/O error, dev ${UA#/dev/}|${UA#/dev/}: rw=")" 0

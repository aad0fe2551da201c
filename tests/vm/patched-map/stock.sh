# map / status on Debian's stock kernel (boot 0 of layer 80): it hides the
# npo2 namespaces, so `map` must refuse them with "kernel lacks npo2 support"
# (exit 5) without touching device-mapper; the kernel has device-mapper
# (dm-mod is loaded) but no po2zone target.
. /vm/guest/maplib.sh

vm_summary
for ns in "0 1 A" "1 1 E"; do
	set -- $ns
	ng=$(vm_ng "$1" "$2")
	expect_rc "stock: $3 ($ng) block device hidden: map refused (5)" 5 $ZNP map "$ng"
	expect_match "stock: $3: one line, kernel lacks npo2 support" \
		"^nvme-zns-npo2: $ng: kernel lacks npo2 support" "$(cat /tmp/vm-cmd.out)"
	expect_eq "stock: $3: one line only" "$(wc -l </tmp/vm-cmd.out)" 1
	expect_rc "stock: $3: --dry-run refused the same way (5)" 5 $ZNP map "$ng" --dry-run
done
expect_rc "stock: hidden namespace refused before --persist" 5 $ZNP map "$(vm_ng 0 1)" --persist
expect_rc "stock: nothing recorded" 1 test -e /etc/zns-npo2/mappings.conf
# C is hidden too, but not mappable on any kernel: that reason comes first
expect_rc "stock: C (capacity < size) refused as not mappable (3)" 3 $ZNP map "$(vm_ng 0 3)"
expect_match "stock: C: capacity reason" "zone capacity 0x4000 < zone size 0x5000 LBAs" "$(cat /tmp/vm-cmd.out)"
B=$(vm_blk 0 2) || B=/dev/missing-B
expect_rc "stock: B (po2) refused (3)" 3 $ZNP map "$B"
expect_ok "stock: dm-mod loaded" test -e /dev/mapper/control
expect_ok "stock: po2zone not in the kernel's target list" sh -c '! dmsetup targets | grep -q po2zone'
expect_ok "stock: status with no mapping" $ZNP status -o json
expect_eq "stock: status lists nothing" "$(jget nr_mappings /tmp/vm-cmd.out)" 0
expect_ok "stock: list" $ZNP list -o json
expect_match "stock: list names the namespaces" '"ng_path": "/dev/ng' "$(cat /tmp/vm-cmd.out)"
expect_eq "stock: no MAPPED-AS" "$(grep -o '"mapped_as": "[^"]*"' /tmp/vm-cmd.out | wc -l)" 0
expect_eq "stock: no device-mapper device created" "$(dmsetup ls | grep -vc 'No devices found')" 0
true

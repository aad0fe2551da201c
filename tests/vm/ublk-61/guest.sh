# Debian 12's default kernel (6.1: no ublk_drv, CONFIG_BLK_DEV_UBLK unset):
# the ublk route is refused with the kernel it needs and where a Debian 12
# admin gets one, by `check` and by `map --ublk`, and nothing is created.
# Namespace (tests/layers.d/51-vm-ublk-61.sh): ctrl 0 nsid 1, npo2 96M/96M,
# hidden by the kernel.
HINT='apt install linux-image-6.12-amd64'

expect_match "kernel: Debian 12's 6.1" '^6\.1\.' "$(uname -r)"
expect_eq "kernel: no /dev/ublk-control" "$([ -e /dev/ublk-control ] && echo yes)" ""
ng=$(vm_ng 0 1)
expect_eq "kernel: the npo2 namespace's block device is hidden" \
	"$(cat /sys/block/$(vm_ns 0 1)/hidden)" 1

# ---- check ---------------------------------------------------------------------
nvme-zns-npo2 check "$ng" >/tmp/check.txt 2>/tmp/check.err
expect_eq "check: needs-kernel-patches (exit 11)" "$?" 11
sed 's/^/#   /' /tmp/check.txt
expect_match "check: the verdict says which kernel map --ublk needs" \
	"^verdict: +needs-kernel-patches: .*map --ublk a kernel with zoned ublk devices \(Linux >= 6\.6 with ublk_drv, which this kernel lacks\)" \
	"$(cat /tmp/check.txt)"
expect_match "check: and how a Debian 12 user gets one" "on Debian 12: $HINT" "$(cat /tmp/check.txt)"
expect_match "check: reason no-ublk-driver" "^reasons: .*no-ublk-driver" "$(cat /tmp/check.txt)"
expect_eq "check: nothing on stderr" "$(cat /tmp/check.err)" ""
nvme-zns-npo2 check "$ng" -o json >/tmp/check.json 2>/dev/null
expect_eq "check -o json: exit 11" "$?" 11
expect_match "check -o json: reason no-ublk-driver" '"no-ublk-driver"' "$(cat /tmp/check.json)"
expect_match "check -o json: the explanation names the package" "$HINT" "$(cat /tmp/check.json)"

# ---- map --ublk ----------------------------------------------------------------
for fg in "" --foreground; do
	m="map --ublk${fg:+ $fg}"
	nvme-zns-npo2 map --ublk $fg "$ng" >/tmp/map.out 2>/tmp/map.err
	expect_eq "$m: not supported by the running kernel (exit 5)" "$?" 5
	sed 's/^/#   /' /tmp/map.err
	expect_eq "$m: one line on stderr (no modprobe line)" "$(wc -l </tmp/map.err)" 1
	expect_match "$m: names the device, the kernel and what it needs" \
		"^nvme-zns-npo2: $ng: this kernel \($(uname -r)\) has no ublk driver: the ublk route needs Linux >= 6\.6 built with ublk_drv \(CONFIG_BLK_DEV_UBLK\); on Debian 12: $HINT" \
		"$(cat /tmp/map.err)"
	expect_eq "$m: nothing on stdout" "$(cat /tmp/map.out)" ""
	expect_eq "$m: no ublk device, no state directory" \
		"$(ls -d /dev/ublk* /run/zns-npo2 2>/dev/null)" ""
done
expect_eq "map --ublk: ublk_drv not loaded by the attempt" "$(grep -c '^ublk_drv ' /proc/modules)" 0
true

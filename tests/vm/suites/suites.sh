# External zoned test suites, unmodified, on the patched kernel and, as the
# po2 control, on Debian's stock kernel (busybox ash driver; the suites run
# in bash): blktests' zbd group (./check -d zbd, the
# tests that use a test device) and zonefs-tools' zonefs-tests.sh on
#   nullb-npo2    null_blk, 8 zones of 6 MiB (npo2)
#   nullb-po2     null_blk, 6 zones of 8 MiB: the control, same size
#   nvme-npo2     QEMU ZNS namespace, 8 zones of 6 MiB (npo2), 4 KiB LBAs
#   po2zone       dm-po2zone on a null_blk of 8 npo2 zones of 6 MiB: 8 po2
#                 zones of 8 MiB with a 6 MiB capacity
#   nullb-po2cap  null_blk, 8 zones of 8 MiB with a 6 MiB capacity: the
#                 control of the mapping, same geometry
#   nvme-po2      QEMU ZNS namespace, 6 zones of 8 MiB, 4 KiB LBAs (ctrl 1
#                 nsid 1): the NVMe driver's po2 path
# Only the targets of the boot are set up, so that the po2 control of layer
# 72 runs this script on Debian's stock kernel (nullb-po2, nullb-po2cap,
# nvme-po2: no npo2 device, no dm-po2zone there). With stock modules (the
# flat /lib/modules/*.ko that vm-run.sh packs and init loads) they are
# installed under /lib/modules/KVER/kernel and indexed, so that modinfo,
# modprobe and rmmod (zonefs-tests loads and unloads zonefs per case) and
# blktests' module checks find them as on an installed system.
# Every result is printed as it comes ("RESULT suite test target status");
# the host (tests/layers.d/72-vm-zoned-suites.sh) compares the table with
# the expected one in kernel-patches/TEST-RESULTS.md. Here each
# suite run must start, find its device and report results.
#
# blktests: every zbd test that takes a test device (zbd/008-012 make their
# own devices: scsi_debug, dm-crypt, a po2 null_blk). zonefs-tests: the cases
# that depend on the zone geometry, one of each kind (format, file count,
# blocks and size, inode numbers = zone numbers, sequential file truncate,
# overwrite, append, write, read, sysfs open/active zone accounting with
# explicit opens); the rest (mount options, permissions, owners, the other
# I/O variants, conventional files (02xx; the targets have no conventional
# zones), swap (04xx), error injection (06xx)) is left out to fit the CI
# budget under TCG.
# Environment: SUITES_BLKTESTS / SUITES_ZONEFS (test lists), SUITES_TARGETS
# (default: znp.suites=T1,T2,... of the kernel command line, else all six).
MB=2048
export DM_DISABLE_UDEV=1

# the suites' environment: bash, kernel config where the suites look for it,
# built-in module info for modinfo, the suites unpacked in /opt
kver=$(uname -r)
mkdir -p /boot "/lib/modules/$kver" /opt
cp /vm/kconfig "/boot/config-$kver"
for f in modules.builtin modules.builtin.modinfo; do
	[ -f "/vm/$f" ] && cp "/vm/$f" "/lib/modules/$kver/"
done
if [ -f /lib/modules/load.list ]; then
	mkdir -p "/lib/modules/$kver/kernel/stock"
	cp /lib/modules/*.ko "/lib/modules/$kver/kernel/stock/"
fi
# kmod's depmod and modinfo (busybox ash would run its own applets, whose
# indexes kmod cannot read)
: >"/lib/modules/$kver/modules.order"	# depmod wants the file
/usr/sbin/depmod -a
tar xf /vm/blktests.tar -C /opt && tar xf /vm/zonefs-tools.tar -C /opt
expect_ok "suites unpacked" test -x /opt/blktests/check -a -x /opt/zonefs-tools/tests/zonefs-tests.sh
expect_ok "kmod's modinfo knows null_blk (zonefs-tests needs it)" bash -c 'modinfo null_blk'
export PATH=/opt/zonefs-tools/src:$PATH

# ---- targets ---------------------------------------------------------------
# targets of this boot: znp.suites=T1,T2 on the kernel command line, else all
sel=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^znp\.suites=//p' | tr , ' ')
sel=${SUITES_TARGETS:-${sel:-nullb-npo2 nullb-po2 nvme-npo2 po2zone nullb-po2cap nvme-po2}}
vm_log "kernel $(uname -r), targets: $sel"
is_sel() { case " $sel " in *" $1 "*) return 0 ;; esac; return 1; }

nb_cfg="zoned=1 memory_backed=1 blocksize=4096 zone_nr_conv=0"
targets=
# add_target NAME DEV ZONE_SECTORS NR_ZONES: check the geometry, then list it
add_target() {
	if [ -z "$2" ] || [ ! -b "$2" ]; then
		not_ok "target $1 exists" "no block device '$2'"
		return
	fi
	ok "target $1 exists"
	expect_eq "$1: $4 zones of $(($3 / MB)) MiB" \
		"$(cat /sys/block/${2#/dev/}/queue/chunk_sectors) $(cat /sys/block/${2#/dev/}/queue/nr_zones)" "$3 $4"
	targets="$targets $1:$2"
}
if is_sel nullb-npo2; then
	d=$(mk_nullb snpo2 $nb_cfg zone_size=6 size=48)
	add_target nullb-npo2 "/dev/$d" $((6 * MB)) 8
fi
if is_sel nullb-po2; then
	d=$(mk_nullb spo2 $nb_cfg zone_size=8 size=48)
	add_target nullb-po2 "/dev/$d" $((8 * MB)) 6
fi
if is_sel nvme-npo2; then
	add_target nvme-npo2 "$(vm_blk 0 1)" $((6 * MB)) 8
fi
if is_sel po2zone; then
	d=$(mk_nullb sdm $nb_cfg zone_size=6 size=48)
	expect_ok "dm-po2zone mapping of /dev/$d" \
		dmsetup create spo2zone --table "0 $((8 * 8 * MB)) po2zone /dev/$d"
	add_target po2zone "/dev/$(dmsetup info -c --noheadings -o blkdevname spo2zone 2>/dev/null)" $((8 * MB)) 8
fi
if is_sel nullb-po2cap; then
	d=$(mk_nullb spo2cap $nb_cfg zone_size=8 zone_capacity=6 size=64)
	add_target nullb-po2cap "/dev/$d" $((8 * MB)) 8
fi
if is_sel nvme-po2; then
	add_target nvme-po2 "$(vm_blk 1 1)" $((8 * MB)) 6
fi

reset_all() {
	zonectl reset "$1" 0 "$(cat /sys/block/${1#/dev/}/size)" >/dev/null
}

# run_blktests NAME DEV SUITE_LABEL TESTS...: results lines to /tmp/results
run_blktests() {
	local name=$1 dev=$2 label=$3 n f
	shift 3
	reset_all "$dev"
	vm_log "$label on $name ($dev): $*"
	printf 'TEST_DEVS=(%s)\n' "$dev" >/opt/blktests/config
	(cd /opt/blktests && export PATH=$XPATH$PATH && run_to 900 bash ./check -d "$@") >/tmp/bt-$name.out 2>&1
	n=$(sed -n 's#^\(zbd/[0-9]*\) => [^ ]* .*\[\(passed\|failed\|not run\)\]$#'"$label"' \1 '"$name"' \2#p' /tmp/bt-$name.out |
		sed -e 's/ not run$/ notrun/' -e 's/^/RESULT /' | tee -a /tmp/results /proc/self/fd/2 | wc -l)
	expect_match "$label on $name reported results" '^[1-9]' "$n"
	# failure details: the test's own output diff and log
	sed -n 's#^\(zbd/[0-9]*\) => .*\[failed\]$#\1#p' /tmp/bt-$name.out >/tmp/btfail-$name
	while read -r f; do
		echo "# $label $f on $name failed:"
		head -20 /opt/blktests/results/"$(basename "$dev")"/"$f".out.bad 2>/dev/null | sed 's/^/#   /'
		tail -20 /opt/blktests/results/"$(basename "$dev")"/"$f".full 2>/dev/null | sed 's/^/#   full: /'
	done </tmp/btfail-$name
	grep -A3 'not run\]$' /tmp/bt-$name.out | sed 's/^/# /' | head -40
}

# run_zonefs NAME DEV SUITE_LABEL [-t CASE ...]: results lines to /tmp/results
run_zonefs() {
	local name=$1 dev=$2 label=$3 n f
	shift 3
	reset_all "$dev"
	vm_log "$label on $name ($dev): $*"
	rm -rf /tmp/zf-$name
	(cd /opt/zonefs-tools/tests && export PATH=$XPATH$PATH && run_to 1500 bash ./zonefs-tests.sh "$@" -g /tmp/zf-$name "$dev") \
		>/tmp/zf-$name.out 2>&1
	tr -d '\033' </tmp/zf-$name.out | sed 's/\[[0-9;]*m//g' >/tmp/zf-$name.txt
	n=$(sed -n 's#^  Test \([0-9]*\): .* \.\.\. \(PASS\|skip\|FAIL\)$#'"$label"' \1 '"$name"' \2#p' /tmp/zf-$name.txt |
		sed -e 's/ PASS$/ passed/' -e 's/ FAIL$/ failed/' -e 's/ skip$/ notrun/' -e 's/^/RESULT /' | tee -a /tmp/results /proc/self/fd/2 | wc -l)
	if [ "$n" = 0 ] && grep -q 'scheduler to mq-deadline failed' /tmp/zf-$name.txt; then
		# zonefs-tests sets the I/O scheduler of the device, or of the
		# devices under a dm-linear/flakey/crypt mapping; a bio-based dm
		# device has none, so the suite stops before its first case
		ok "$label on $name: the suite refuses the device (no I/O scheduler to set)"
		echo "RESULT $label start $name notrun" | tee -a /tmp/results
		return 0
	fi
	expect_match "$label on $name reported results" '^[1-9]' "$n"
	if [ "$n" = 0 ]; then
		head -30 /tmp/zf-$name.txt | sed 's/^/#   /'
		echo "# modinfo null_blk: $(bash -c 'modinfo null_blk' 2>&1 | head -2 | tr '\n' ' ')"
		echo "# /lib/modules/$kver: $(ls /lib/modules/$kver | tr '\n' ' ')"
	fi
	sed -n 's/^  Test \([0-9]*\): .* FAIL$/\1/p' /tmp/zf-$name.txt >/tmp/zffail-$name
	while read -r f; do
		echo "# $label test $f on $name failed:"
		tail -15 "/tmp/zf-$name/$f.log" 2>/dev/null | sed 's/^/#   /'
	done </tmp/zffail-$name
	umount /opt/zonefs-tools/tests/*-mnt 2>/dev/null
}

XPATH=
: >/tmp/results
for t in $targets; do
	name=${t%%:*} dev=${t#*:}
	run_blktests "$name" "$dev" blktests ${SUITES_BLKTESTS:-zbd}
	run_zonefs "$name" "$dev" zonefs ${SUITES_ZONEFS:--t 0001-0002 -t 0004 -t 0040 -t 0042 -t 0100 -t 0110 -t 0300 -t 0303 -t 0306 -t 0310 -t 0322 -t 0511-0512 -t 0515}
	cp /tmp/btfail-$name /tmp/btfail0-$name
	cp /tmp/zffail-$name /tmp/zffail0-$name
done

# Second pass: what failed on a target again, with util-linux 2.38's blkzone
# replaced by the same blkzone with its power-of-2 alignment checks fixed
# (scripts/patches/util-linux-2.38-blkzone-npo2.patch)
for t in $targets; do
	name=${t%%:*} dev=${t#*:}
	bt=$(cat /tmp/btfail0-$name) zf=$(sed 's/^/-t /' /tmp/zffail0-$name)
	XPATH=/opt/blkzone-npo2:
	[ -n "$bt" ] && run_blktests "$name" "$dev" blktests/blkzone-npo2 $bt
	[ -n "$zf" ] && run_zonefs "$name" "$dev" zonefs/blkzone-npo2 $zf
	XPATH=
done
vm_log "$(wc -l </tmp/results) results"
! is_sel po2zone || dmsetup remove spo2zone
true

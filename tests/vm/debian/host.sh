# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Host side of the real-systemd layer (tests/layers.d/90-vm-systemd.sh;
# sourced from the repository root): the Debian 12 disk image and its boots.
#   deb_image DIR DEB DATA [FILE...]
#                            DIR/root.img: the cached mmdebstrap root
#                            (tests/vm/debian/rootfs.sh), the stock
#                            kernel's modules (the patched one's
#                            modules.builtin), the test agent and its unit,
#                            DEB, DATA and the FILEs in /root/znp/
#   deb_boot DIR STEP RUN LOG ORDER [TIMEOUT [HOT [KERNEL]]]
#                            one boot of DIR/root.img in its own QEMU run,
#                            systemd as PID 1 on Debian's stock kernel and
#                            initramfs (KERNEL=stock) or on the patched
#                            build/kernel/bzImage, drivers built in, no
#                            initramfs (KERNEL=patched; it adds controller
#                            3, serial znsnpo2-c3, an npo2 namespace for
#                            the dm route), the agent's STEP (RUN names the
#                            run's step counter); NVMe controllers declared
#                            in ORDER ("0 1" or "1 0"), then controller
#                            2 in an NVMe subsystem (Namespace
#                            Attachment), its namespace attached at boot
#                            or, HOT=detached, not; the namespaces'
#                            backing files in DIR persist between runs, their
#                            zone write pointers through the harness unit
#                            (zone-state.sh); 0 when QEMU powered off in time
#                            and the log has no kernel trouble. (One boot per
#                            run: a warm reset under TCG left the stock
#                            kernel in soft lockups on the next boot.)
#   deb_section LOG N        the lines the agent printed in boot N of LOG
kver=$(sed -n 's/^KVER=\([0-9.]*\)$/\1/p' scripts/deps.sh)
DEB_KVER=${kver}+deb12-amd64
# the patched kernel's release (make kernel), empty when it is not built
DEB_PKVER=$(cat build/kernel/src/include/config/kernel.release 2>/dev/null)

deb_image() {
	local dir=$1 deb=$2 data=$3 rootfs stage
	shift 3
	rootfs=$(bash tests/vm/debian/rootfs.sh) || return 1
	stage=$dir/stage
	rm -rf "$stage"
	# hard links: files replaced below are removed first, never written through
	cp -al "$rootfs" "$stage"
	mkdir -p "$stage/lib/modules"
	cp -a "/lib/modules/$DEB_KVER" "$stage/lib/modules/"
	# the patched kernel has no modules: its modules.builtin tells modprobe
	# (systemd-modules-load, the ublk route's ublk_drv check) what is built in
	if [ -n "$DEB_PKVER" ]; then
		mkdir -p "$stage/lib/modules/$DEB_PKVER"
		cp build/kernel/src/modules.builtin build/kernel/src/modules.builtin.modinfo \
			"$stage/lib/modules/$DEB_PKVER/" || return 1
		: >"$stage/lib/modules/$DEB_PKVER/modules.order"
		depmod -b "$stage" "$DEB_PKVER" || return 1
	fi
	rm -f "$stage/etc/fstab"
	echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$stage/etc/fstab"
	mkdir -p "$stage/var/log/journal" "$stage/root/znp" "$stage/usr/local/lib/znp-test"
	cp tests/vm/debian/agent.sh "$stage/usr/local/lib/znp-test/agent.sh"
	cp tests/vm/debian/zone-state.sh "$stage/usr/local/lib/znp-test/"
	cp tests/vm/debian/znp-test.service tests/vm/debian/znp-zone-state.service "$stage/etc/systemd/system/"
	ln -s /etc/systemd/system/znp-zone-state.service "$stage/etc/systemd/system/sysinit.target.wants/znp-zone-state.service"
	ln -s /etc/systemd/system/znp-test.service "$stage/etc/systemd/system/multi-user.target.wants/znp-test.service"
	# the console is the agent's: no login prompt in the middle of its lines
	ln -s /dev/null "$stage/etc/systemd/system/serial-getty@ttyS0.service"
	cp -r "$deb" "$data" "$@" "$stage/root/znp/"
	rm -f "$dir/root.img"
	truncate -s 3G "$dir/root.img"
	mke2fs -q -t ext4 -L znp-root -d "$stage" "$dir/root.img" || return 1
	rm -rf "$stage"
	# the namespaces: ctrl 0: a conventional one and an npo2 one nobody
	# maps; ctrl 1: the npo2 namespace the test maps (btrfs needs the zones);
	# ctrl 2: an npo2 namespace mapped in boot 1, attached after boot later;
	# ctrl 3 (patched kernel only): the npo2 namespace of the dm route
	truncate -s 256M "$dir/c0n1.img"
	truncate -s 480M "$dir/c0n2.img"
	truncate -s 768M "$dir/c1n1.img"
	truncate -s 192M "$dir/c2n1.img"
	truncate -s 768M "$dir/c3n1.img"
}

deb_boot() {
	local dir=$1 steps=$2 run=$3 log=$4 order=$5 timeout=${6:-420} hot=${7:-attached} kernel=${8:-stock}
	local c args=() boot=() rc bad
	local append="root=/dev/vda rw console=ttyS0 panic=-1 oops=panic no_timer_check noresume znp.steps=$steps znp.run=$run"
	for c in $order; do
		args+=(-device "nvme,id=nvme$c,serial=znsnpo2-c$c")
		if [ "$c" = 0 ]; then
			args+=(-drive "file=$dir/c0n1.img,if=none,id=d01,format=raw,cache=unsafe,discard=unmap"
				-device "nvme-ns,drive=d01,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096"
				-drive "file=$dir/c0n2.img,if=none,id=d02,format=raw,cache=unsafe,discard=unmap"
				-device "nvme-ns,drive=d02,bus=nvme0,nsid=2,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=80M,zoned.zone_capacity=64M")
		else
			args+=(-drive "file=$dir/c1n1.img,if=none,id=d11,format=raw,cache=unsafe,discard=unmap"
				-device "nvme-ns,drive=d11,bus=nvme1,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=48M,zoned.zone_capacity=48M")
		fi
	done
	# (QEMU 7.2: Namespace Attachment needs the controller in an nvme-subsys;
	# the host sees the namespace through a multipath head)
	args+=(-device "nvme-subsys,id=subsys2,nqn=znsnpo2-s2"
		-device "nvme,id=nvme2,serial=znsnpo2-c2,subsys=subsys2"
		-drive "file=$dir/c2n1.img,if=none,id=d21,format=raw,cache=unsafe,discard=unmap"
		-device "nvme-ns,drive=d21,bus=nvme2,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=48M,zoned.zone_capacity=48M$([ "$hot" = detached ] && echo ,detached=on)")
	if [ "$kernel" = patched ]; then
		# no initramfs: root= names the virtio disk; tsc=unstable: a busy
		# host's TCG clock made the TSC watchdog complain (as layer 80)
		boot=(-kernel build/kernel/bzImage
			-append "$append tsc=unstable znp.zones=3:1")
		args+=(-device "nvme,id=nvme3,serial=znsnpo2-c3"
			-drive "file=$dir/c3n1.img,if=none,id=d31,format=raw,cache=unsafe,discard=unmap"
			-device "nvme-ns,drive=d31,bus=nvme3,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=48M,zoned.zone_capacity=48M")
	else
		boot=(-kernel "/boot/vmlinuz-$DEB_KVER" -initrd "/boot/initrd.img-$DEB_KVER"
			-append "$append")
	fi
	timeout -k 5 "$timeout" nice -n 10 qemu-system-x86_64 \
		-machine q35 -accel tcg,thread=single -cpu max -smp 2 -m 2G \
		-nodefaults -no-user-config -nographic -serial stdio -no-reboot \
		"${boot[@]}" \
		-drive "file=$dir/root.img,if=virtio,format=raw,cache=unsafe" \
		"${args[@]}" </dev/null 2>&1 |
		sed -u -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1b[a-zA-Z]//g' >"$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "deb_boot: QEMU exited with $rc ($([ "$rc" = 124 ] && echo "timed out after ${timeout}s")), log $log" >&2
		return 1
	fi
	bad=$(grep -v 'Kernel command line' "$log" | grep -E 'BUG:|WARNING:|Oops|[Pp]anic' | grep -v 'panic=' | head -3)
	if [ -n "$bad" ]; then
		echo "deb_boot: kernel trouble in $log: $bad" >&2
		return 1
	fi
	return 0
}

deb_section() { awk -v n="$2" '/^ZNP-BOOT: / { on = ($2 == n) } on' "$1"; }
# deb_fact LOG KEY: the value of "ZNP-FACT: KEY value" (last one)
deb_fact() { grep -a "^ZNP-FACT: $2 " "$1" | tail -1 | cut -d' ' -f3-; }
# deb_block LOG NAME: the lines between ZNP-BEGIN: NAME and ZNP-END: NAME
deb_block() { sed -n "/^ZNP-BEGIN: $2\$/,/^ZNP-END: $2\$/p" "$1" | sed '1d;$d'; }

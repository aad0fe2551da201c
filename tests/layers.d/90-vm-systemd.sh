#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer: the package as an admin installs it, under a real systemd. A Debian
# 12 system (mmdebstrap, cached under build/vm-debian/) boots Debian's stock
# kernel and initramfs with systemd as PID 1 (boots 1-3: the ublk route),
# then the patched kernel (boots P1, P2: the dm route); tests/vm/debian/agent.sh runs
# each boot's step from a unit and the host judges what it prints. One QEMU
# run per boot; the namespaces' backing files persist between runs, their
# zone write pointers are carried over by a harness unit
# (tests/vm/debian/zone-state.sh: QEMU 7.2 forgets them).
#   boot 1: dpkg -i the package (make deb), no failed unit, systemd-analyze
#           verify clean, dpkg -i nvme-cli with the plugin (make
#           nvme-cli-deb) over Debian's, `nvme zns-npo2 list` and `nvme help
#           zns-npo2`, map --ublk --persist of the hidden npo2 namespace,
#           mkfs.btrfs, an fstab line by UUID needing the ublk unit, the
#           host's data file copied in and read back; map --ublk
#           --persist of a second npo2 namespace (zhot, on a controller in
#           an NVMe subsystem, declared detached in the boots after
#           this); `export --persist` of zdata over NVMe/TCP on loopback
#           (the VM has no network card), a host's `nvme connect` from
#           the same system, `export --remove` (the file kept) and
#           `systemctl enable zns-npo2-export@zdata.service`
#   boot 2: systemd restores the mapping (zns-npo2-restore.service starts
#           zns-npo2-ublk@zdata.service) and mounts the file system before
#           local-fs.target; the data checksum is the host's; scrub clean;
#           the export unit started after the server: configfs, the
#           port listening in the system's network namespace (nvmet-tcp
#           makes the socket in the unit's: no PrivateNetwork=), a host
#           connection: the zoned namespace, its zone capacity, 1 MiB
#           written through it read back from the ublk device, a zone
#           reset; `systemctl stop` of the unit while connected (the
#           namespace leaves the target and the host), started again;
#           then `nvme attach-ns` of zhot's namespace: the udev rule starts
#           the restore, which serves zhot; last, a file written into the
#           mount without a sync, and the poweroff through systemd
#   boot 3: the same restore and mount with the NVMe controllers declared
#           in the other order (instance names come from a parallel probe:
#           changed or not, the mapping must follow the namespace by its
#           identity); the journal of boot 2's shutdown: the file system
#           unmounted before the server's stop; the unsynced file verifies,
#           `btrfs check` of the unmounted device clean; the export
#           unit stopped before the server in that shutdown; then,
#           while a writer writes checksummed files, `systemctl restart`
#           and `systemctl kill -s KILL` of the ublk unit: the server comes
#           back (Restart=on-failure after the kill) on the same device, the
#           mount is never restarted and stays read-write, no I/O error in
#           the journal, every file verifies, scrub clean; last, an upgrade
#           of the package (the same files, a higher version) while served
#           and mounted leaves the server and the mount alone; last, the
#           export unit disabled and stopped, its file removed (`export
#           --remove --persist`), the mount and the server stopped, `dpkg -r` (units and rules gone,
#           the mapping file kept) and `dpkg -P` (the mapping file gone)
#   boot P1 (the patched kernel, build/kernel/bzImage, no initramfs):
#           dpkg -i again, map --persist of controller 3's npo2 namespace
#           (dm-po2zone: the route of kernels with the series), mkfs.btrfs,
#           fstab by UUID after zns-npo2-restore.service, 8 MiB of data in
#   boot P2: the restore unit made the mapping (table, UUID, backing
#           namespace checked against QEMU's), systemd mounted it from
#           fstab before local-fs.target, data checksum the host's, scrub
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/debian/host.sh
L=90-vm-systemd
start=$SECONDS
fails=0 checks=0
pass() { checks=$((checks + 1)); echo "ok - $*"; }
failc() { checks=$((checks + 1)); fails=$((fails + 1)); echo "not ok - $*"; }
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else failc "$1: got '$2', want '$3'"; fi; }
expect_match() { if [[ $2 =~ $3 ]]; then pass "$1"; else failc "$1: got '$2', want /$3/"; fi; }
# mounted_in_order LOG DESC WHAT T MOUNT: MOUNT and local-fs.target active,
# WHAT (at T) < MOUNT < local-fs.target, no I/O error, the boot's journal
mounted_in_order() {
	local ms mt ls lt
	read -r ms mt _ <<<"$(deb_fact "$1" "t:$5")"
	read -r ls lt _ <<<"$(deb_fact "$1" t:local-fs.target)"
	expect_eq "$2: $5 and local-fs.target active" "$ms $ls" "active active"
	expect_order "$2" "$3" "$4" mount "$mt" local-fs.target "$lt"
	expect_eq "$2: no I/O or btrfs error in the kernel log" "$(deb_fact "$1" io-errors)" 0
	deb_block "$1" journal | sed "s/^/# $2 journal: /"
}
# expect_order DESC A TA B TB C TC: TA < TB < TC (monotonic us, all set)
expect_order() {
	if [ "${3:-0}" -gt 0 ] && [ "${3:-0}" -lt "${5:-0}" ] && [ "${5:-0}" -lt "${7:-0}" ]; then
		pass "$1: $2 ($3 us) < $4 ($5 us) < $6 ($7 us)"
	else
		failc "$1: order $2 ${3:-?} < $4 ${5:-?} < $6 ${7:-?} (monotonic us)"
	fi
}

for t in mmdebstrap mke2fs qemu-system-x86_64 dpkg-buildpackage; do
	command -v $t >/dev/null || { echo "$L: $t not installed (make deps)" >&2; exit 1; }
done
[ -r "/boot/initrd.img-$DEB_KVER" ] || { echo "$L: /boot/initrd.img-$DEB_KVER missing (make deps)" >&2; exit 1; }
[ -f build/kernel/bzImage ] && [ -n "$DEB_PKVER" ] || { echo "$L: build/kernel/bzImage missing (make kernel)" >&2; exit 1; }
ver=$(dpkg-parsechangelog -S Version)
deb=$(ls build/deb/zns-npo2_"${ver}"_*.deb 2>/dev/null | head -1)
if [ -z "$deb" ] || [ -n "$(find debian src meson.build systemd udev Documentation completions -newer "$deb" -type f | head -1)" ]; then
	bash scripts/build-deb.sh --no-lintian >/dev/null || { echo "$L: make deb failed" >&2; exit 1; }
	deb=$(ls build/deb/zns-npo2_"${ver}"_*.deb | head -1)
fi
echo "# package $deb"
# nvme-cli with the plugin: Debian's version + the suffix (make nvme-cli-deb)
cli=$(ls build/nvme-cli-deb/nvme-cli_*+znpo2.*_*.deb 2>/dev/null | head -1)
if [ -z "$cli" ] || [ -n "$(find src plugins/zns-npo2 scripts/build-nvme-cli-deb.sh -newer "$cli" -type f | head -1)" ]; then
	bash scripts/build-nvme-cli-deb.sh --no-lintian >/dev/null || { echo "$L: make nvme-cli-deb failed" >&2; exit 1; }
	cli=$(ls build/nvme-cli-deb/nvme-cli_*+znpo2.*_*.deb | head -1)
fi
clever=$(dpkg-deb -f "$cli" Version)
echo "# package $cli"

dir=build/vm-debian/run
logs=build/vm-logs
mkdir -p "$dir" "$logs"
rm -f "$dir"/*.img
t=$SECONDS
# the data file: its checksum here is the one every boot must read back
head -c 32M /dev/urandom >"$dir/data.bin"
want=$(sha256sum "$dir/data.bin" | cut -d' ' -f1)
# the upgrade of boot 3: the same package under a higher version
up=$dir/upgrade
rm -rf "$up"
mkdir -p "$up"
dpkg-deb -R "$deb" "$up/pkg"
sed -i "s/^Version: .*/Version: $ver+up1/" "$up/pkg/DEBIAN/control"
dpkg-deb -b --root-owner-group "$up/pkg" "$up/zns-npo2_${ver}+up1_amd64.deb" >/dev/null
rm -rf "$up/pkg"
deb_image "$dir" "$deb" "$dir/data.bin" "$cli" "$up" || { echo "$L: image build failed" >&2; exit 1; }
echo "# image: $((SECONDS - t)) s (root file system and disk image)"
stamp=$(date +%Y%m%d-%H%M%S)

# zone size 48 MiB on the namespace -> the ublk device's po2 zone, in sectors
po2=1; while [ $po2 -lt $((48 * 2048)) ]; do po2=$((po2 * 2)); done

common() { # LOG BOOT [KERNEL-RELEASE]
	local r
	[ -s "$1" ] || { failc "$2: the agent printed nothing"; return; }
	r=$(grep -a '^GUEST-RESULT: ' "$1" | tail -1)
	expect_match "$2: guest result" "$r" '^GUEST-RESULT: [1-9][0-9]* passed, 0 failed$'
	grep -a '^not ok' "$1" | sed "s/^/# $2 guest: /"
	expect_eq "$2: systemctl is-system-running" "$(deb_fact "$1" state)" running
	expect_eq "$2: systemctl --failed" "$(deb_fact "$1" failed)" ""
	expect_eq "$2: kernel" "$(deb_fact "$1" kernel)" "${3:-$DEB_KVER}"
}

times=
# A kernel that crashes under TCG before the agent ran (seen once: a
# WARNING in exc_debug_kernel, then an Oops, 26 s into boot 2) changed
# nothing on the disks: that boot is run once more, and reported.
boot() { # N STEP ORDER LOG [HOT [KERNEL]]
	local t=$SECONDS rc id
	# the agent's step counter: one per run, lower case
	id=r$(tr 'A-Z' 'a-z' <<<"$1")
	deb_boot "$dir" "$2" "$id" "$4" "$3" 900 "${5:-attached}" "${6:-stock}"; rc=$?
	if [ $rc != 0 ] && ! grep -aq '^ZNP-BOOT: ' "$4" && grep -aqE 'Oops|BUG:' "$4"; then
		echo "# boot $1: the kernel crashed before the agent ran ($(grep -aE -m1 'WARNING:|BUG:|Oops' "$4" | cut -c1-100)); log kept as $4.crash, booting again"
		mv "$4" "$4.crash"
		deb_boot "$dir" "$2" "$id" "$4" "$3" 900 "${5:-attached}" "${6:-stock}"; rc=$?
	fi
	times+=" $1:$((SECONDS - t))s"
	expect_eq "boot $1 ($2, controllers $3): QEMU powered off ($((SECONDS - t)) s)" $rc 0
}

# ---- boot 1 ----
log1=$logs/systemd-1-install-$stamp.log
boot 1 install "0 1" "$log1"
common "$log1" "boot 1"
expect_eq "boot 1: restore unit enabled by the package" "$(deb_fact "$log1" enabled)" enabled
expect_match "boot 1: the package started no mapping" "$(deb_fact "$log1" active-after-install)" '^[^@]*$'
expect_eq "boot 1: /etc/zns-npo2 owned by the package" "$(deb_fact "$log1" etc-dir)" "root:root 755 zns-npo2: /etc/zns-npo2"
expect_eq "boot 1: no failed unit after dpkg -i" "$(deb_fact "$log1" failed-after-install)" ""
expect_eq "boot 1: systemd-analyze verify exit" "$(deb_fact "$log1" verify-rc)" 0
# (the kernel prints on the same console: its lines, udev's module loads
# among them, may fall inside the block)
expect_eq "boot 1: systemd-analyze verify output" "$(deb_block "$log1" verify | grep -av '^\[ *[0-9]*\.[0-9]*\] ' | tr -d '\n')" ""
# nvme-cli: Debian's in the root file system, replaced by the rebuilt one
debcli=$(deb_fact "$log1" nvme-cli-before)
expect_match "boot 1: Debian's nvme-cli before ($debcli)" "$debcli" '^[0-9].*-[0-9.]+$'
expect_eq "boot 1: nvme-cli with the plugin installed over it" "$(deb_fact "$log1" nvme-cli-after)" "$clever install ok installed"
if [ -n "$debcli" ] && dpkg --compare-versions "$clever" gt "$debcli"; then pass "boot 1: $clever sorts above Debian's $debcli (apt prefers it)"
else failc "boot 1: $clever does not sort above Debian's $debcli"; fi
expect_match "boot 1: nvme zns-npo2 list: the npo2 namespace (serial, 4 KiB LBAs, 12288-LBA zones, 16 zones, not po2)" \
	"$(deb_fact "$log1" plugin-list-ns)" '"serial": "znsnpo2-c1", "lba_size": 4096, .*"zone_size": 12288, .*"nr_zones": 16, "zone_size_po2": false'
expect_eq "boot 1: nvme zns-npo2 list -o json = nvme-zns-npo2 list -o json" "$(deb_fact "$log1" plugin-list-same)" same
want_cmds=$(deb_fact "$log1" table-commands)
expect_match "boot 1: the command table (nvme-zns-npo2 help)" "$want_cmds" '(^| )list .* status '
if [ -n "$want_cmds" ]; then
	expect_eq "boot 1: nvme help zns-npo2 lists the table's commands" "$(deb_fact "$log1" plugin-help)" "$want_cmds"
else
	failc "boot 1: nvme help zns-npo2: no command table to compare with"
fi
expect_match "boot 1: the namespace is hidden (stock kernel)" "$(deb_fact "$log1" ns)" 'hidden=1$'
expect_match "boot 1: ublk device zoned, po2 zones of $po2 sectors" "$(deb_fact "$log1" ublk-dev)" "^/dev/ublkb[0-9]+ host-managed $po2\$"
# QEMU: 768 MiB in 48 MiB zones of 4 KiB LBAs
map=$(deb_block "$log1" map | tr -s ' ' | tr '\n' '|')
expect_match "boot 1: map: the namespace's geometry (16 zones, capacity 48 MiB = 98304 sectors)" "$map" "zone cap: 98304 sectors .*zones: 16\|"
expect_match "boot 1: mapping file: identity and geometry" "$(deb_block "$log1" mappings)" '^zdata sn:znsnpo2-c1:nsid:1 lba_size=4096 zone_size=12288 nr_zones=16 via=ublk$'
dev1=$(deb_fact "$log1" ublk-dev | cut -d' ' -f1)
expect_eq "boot 1: /dev/disk/by-uuid link of the file system" "$(deb_fact "$log1" by-uuid)" "$dev1"
expect_eq "boot 1: data read back" "$(deb_fact "$log1" sha256)" "$want"
deb_block "$log1" fstab | sed 's/^/# fstab: /'
# zhot: 192 MiB in 48 MiB zones, recorded for boot 2's attach
expect_match "boot 1: zhot recorded (ctrl 2, in a subsystem)" "$(deb_block "$log1" mappings-hot)" '^zhot [a-z]+:.* lba_size=4096 zone_size=12288 nr_zones=4 via=ublk$'
# the export of zdata by hand (NVMe-oF over TCP, a port on loopback), a
# host's connection from the same system; the file kept, the unit enabled
enqn=nqn.2026-12.org.example.zns-npo2:zdata
expect_match "boot 1: export --persist: the export file" "$(deb_block "$log1" export-conf)" \
	"^ZNP_EXPORT_ARGS=--nqn $enqn --transport tcp --traddr 127.0.0.1 --trsvcid 4420 --hostnqn nqn[^ ]+\$"
expect_eq "boot 1: export by hand: configfs (device, enabled, port)" "$(deb_fact "$log1" e1-cfs)" "$dev1 enable=1 port=tcp:127.0.0.1:4420"
expect_eq "boot 1: export by hand: one TCP listener on 4420" "$(deb_fact "$log1" e1-listen)" 1
expect_match "boot 1: the host's disk of the export: zoned, po2 zones of $po2 sectors, 16 zones" "$(deb_fact "$log1" e1-disk)" "^nvme[0-9]+n[0-9]+ host-managed $po2 16\$"
expect_eq "boot 1: export --remove kept the file; systemctl enable zns-npo2-export@zdata.service" "$(deb_fact "$log1" e1-enabled)" "enabled file-kept"

# ---- boots 2 and 3 ----
names=
for b in 2 3; do
	order="0 1" step=boot-hot; [ $b = 3 ] && order="1 0" step=boot-load
	log=$logs/systemd-$b-$step-$stamp.log
	[ $b = 2 ] && log2=$log
	boot $b $step "$order" "$log" detached
	B="boot $b (controllers $order)"
	common "$log" "$B"
	echo "# $B: $(deb_fact "$log" ns), boot done at $(deb_fact "$log" uptime) s"
	deb_block "$log" zone-state | sed "s/^/# $B harness: /"
	expect_match "$B: mounted from fstab, read-write" "$(deb_fact "$log" mount)" '^/dev/ublkb[0-9]+ btrfs rw,'
	expect_eq "$B: data checksum is the host's" "$(deb_fact "$log" sha256)" "$want"
	expect_eq "$B: zns-npo2-restore.service result" "$(deb_fact "$log" restore-result)" "success 0"
	expect_match "$B: ublk unit running, never restarted" "$(deb_fact "$log" ublk-unit)" '^active running NRestarts=0 MainPID=[1-9]'
	read -r us ut _ <<<"$(deb_fact "$log" "t:zns-npo2-ublk@zdata.service")"
	expect_eq "$B: ublk unit active" "$us" active
	mounted_in_order "$log" "$B" "ublk server ready" "$ut" srv-zdata.mount
	deb_block "$log" journal-previous-shutdown | sed "s/^/# $B journal of the previous shutdown: /"
	ng=$(deb_fact "$log" ns | sed -n 's|.* ng=/dev/\([^ ]*\) .*|\1|p')
	expect_eq "$B: the mapping serves the recorded namespace (serial znsnpo2-c1 NSID 1: $ng)" "$(deb_fact "$log" served)" "\"backing\":\"$ng\" "
	names+=" boot $b: $ng;"
done
# the kernel probes the controllers in parallel: the instance names differ
# between boots or not, the mapping must follow the namespace either way
echo "# the namespace's ng node: boot 1: $(deb_fact "$log1" ns | sed -n 's|.* ng=/dev/\([^ ]*\) .*|\1|p');$names"

# ---- boot 2, then: zhot's namespace attached after boot ----
B="boot 2 hot attach"
expect_eq "$B: before: no node, zhot's unit inactive (restore skipped it at boot)" "$(deb_fact "$log2" hot-before)" "ng=none unit=inactive"
read -r h_state h_n <<<"$(deb_fact "$log2" hot-unit)"
expect_eq "$B: zns-npo2-ublk@zhot.service running, never restarted ($(deb_fact "$log2" hot-seconds) s after the attach)" "$h_state $h_n" "active/running NRestarts=0"
expect_eq "$B: the restore ran after the attach (udev rule), succeeded" "$(deb_fact "$log2" hot-restore)" "after-attach success 0"
expect_match "$B: the server serves the attached namespace" "$(deb_fact "$log2" hot-served)" '^1 /dev/ng[0-9]+n[0-9]+$'
expect_match "$B: its ublk device zoned, po2 zones of $po2 sectors, 4 zones" "$(deb_fact "$log2" hot-dev)" "^/dev/ublkb[0-9]+ host-managed $po2 4\$"
expect_eq "$B: the server's journal has each message once (syslog), no stderr copy" "$(deb_fact "$log2" hot-lines)" "1 0"
deb_block "$log2" hot-journal | sed "s/^/# $B journal: /"
dkb=$(deb_fact "$log2" dirty-kb)
if [ "${dkb:-0}" -ge 4096 ] 2>/dev/null; then pass "boot 2: $dkb kB dirty at the poweroff (8 MiB written, no sync)"
else failc "boot 2: dirty at the poweroff: '${dkb}' kB, want >= 4096"; fi

# ---- boot 2: the export unit, started by systemd at boot ----
B="boot 2 export unit"
read -r us ut _ <<<"$(deb_fact "$log2" "t:zns-npo2-ublk@zdata.service")"
read -r es ea ex _ <<<"$(deb_fact "$log2" "t:zns-npo2-export@zdata.service")"
expect_eq "$B: zns-npo2-export@zdata.service active, result" "$es $(deb_fact "$log2" e2-result)" "active success 0"
expect_order "$B: after the server" "ublk server ready" "$ut" "export started" "$ex" "export done" "$ea"
deb_block "$log2" e2-journal | sed "s/^/# $B journal: /"
e2dev=$(deb_fact "$log2" e2-ublk)
expect_eq "$B: configfs: namespace 1 is the mapping's device, enabled, on the TCP port" "$(deb_fact "$log2" e2-cfs)" "$e2dev enable=1 port=tcp:127.0.0.1:4420"
# nvmet-tcp creates the port's socket in the network namespace of whoever
# links the first subsystem to the port: the unit's own, if it has one
expect_eq "$B: the port listens in the system's network namespace" "$(deb_fact "$log2" e2-listen)" 1
expect_match "$B: the host's disk: zoned, po2 zones of $po2 sectors, 16 zones" "$(deb_fact "$log2" e2-disk)" "^nvme[0-9]+n[0-9]+ host-managed $po2 16\$"
# QEMU: zone_size=48M of the npo2 namespace = the capacity of a po2 zone
expect_eq "$B: the host's zone capacity: 48 MiB (the npo2 namespace's zone size)" "$(deb_fact "$log2" e2-zone-cap)" 98304
deb_block "$log2" e2-nvme-list | sed "s/^/# $B nvme list: /"
deb_block "$log2" e2-zone0 | sed "s/^/# $B blkzone report -c 1: /"
B="boot 2 export data (zone $(deb_fact "$log2" e2-zone))"
expect_eq "$B: 1 MiB written O_DIRECT by the host reads back equal from the ublk device" "$(deb_fact "$log2" e2-data)" equal
expect_eq "$B: the zone's write pointer (ublk device) after it" "$(deb_fact "$log2" e2-wp)" 2048
expect_eq "$B: the host's zone reset: empty again (ublk device)" "$(deb_fact "$log2" e2-wp-reset)" 1
B="boot 2 export unit stopped, host connected"
expect_eq "$B: no subsystem, no port link left in configfs" "$(deb_fact "$log2" e2-stop-cfs)" "no-subsystem 0"
expect_eq "$B: the host's disk gone" "$(deb_fact "$log2" e2-stop-host)" gone
expect_eq "$B: systemctl start again: the same export" "$(deb_fact "$log2" e2-restart)" "active $e2dev enable=1 port=tcp:127.0.0.1:4420"

# ---- boot 3: the shutdown of boot 2 ----
B="boot 3 after a dirty shutdown"
sj=$(deb_block "$log" shutdown-journal)
printf '%s\n' "$sj" | sed "s/^/# $B journal -b -1: /"
# the mount's stop ends before the server's begins (journal order and
# monotonic time)
um=$(grep -n 'Unmounted .*srv-zdata\|Unmounted /srv/zdata' <<<"$sj" | head -1)
st=$(grep -n 'Stopping zns-npo2-ublk@zdata\|Stopping zns-npo2 ublk server for the power-of-2 mapping zdata' <<<"$sj" | head -1)
ts() { sed -n 's/^[0-9]*:\[ *\([0-9.]*\)\].*/\1/p' <<<"$1"; }
if [ -n "$um" ] && [ -n "$st" ] && [ "${um%%:*}" -lt "${st%%:*}" ] && awk -v a="$(ts "$um")" -v b="$(ts "$st")" 'BEGIN { exit !(a + 0 <= b + 0) }'; then
	pass "$B: unmounted ($(ts "$um") s) before the server's stop began ($(ts "$st") s)"
else
	failc "$B: unmount '${um:-none}' not before server stop '${st:-none}'"
fi
# the same order on boot 2's console, as systemd printed it going down
cu=$(grep -an '\] Unmounted srv-zdata.mount' "$log2" | head -1)
cs=$(grep -an 'Stopping zns-npo2-ublk@zda' "$log2" | head -1)
if [ -n "$cu" ] && [ -n "$cs" ] && [ "${cu%%:*}" -lt "${cs%%:*}" ]; then
	pass "$B: boot 2's console: 'Unmounted srv-zdata.mount' (line ${cu%%:*}) before 'Stopping zns-npo2-ublk@zdata' (line ${cs%%:*})"
else
	failc "$B: boot 2's console: unmount '${cu:-none}' not before server stop '${cs:-none}'"
fi
expect_eq "$B: no failed unmount or stop in that shutdown" "$(grep -c 'Failed' <<<"$sj")" 0
# the export unit stopped (started again after its stop test) before the
# server's stop began
ej=$(deb_block "$log" export-shutdown)
printf '%s\n' "$ej" | sed "s/^/# $B journal -b -1 (export, server): /"
# (systemd 252 names the unit, then its description)
ef=$(grep -n 'Finished zns-npo2-export@zdata.service' <<<"$ej" | tail -1)
es=$(grep -n 'Stopped zns-npo2-export@zdata.service' <<<"$ej" | tail -1)
us=$(grep -n 'Stopping zns-npo2-ublk@zdata.service' <<<"$ej" | head -1)
if [ -n "$ef" ] && [ -n "$es" ] && [ -n "$us" ] && [ "${ef%%:*}" -lt "${es%%:*}" ] && [ "${es%%:*}" -lt "${us%%:*}" ] &&
	awk -v a="$(ts "$es")" -v b="$(ts "$us")" 'BEGIN { exit !(a + 0 <= b + 0) }'; then
	pass "$B: the export stopped ($(ts "$es") s) before the server's stop began ($(ts "$us") s)"
else
	failc "$B: export stop '${es:-none}' not before server stop '${us:-none}' (after the restart '${ef:-none}')"
fi
expect_match "$B: the export unit at this boot: active, configfs" "$(deb_fact "$log" e3-unit)" "^active success /dev/ublkb[0-9]+ enable=1 port=tcp:127.0.0.1:4420\$"
expect_eq "$B: no I/O or btrfs error in that boot's kernel log" "$(deb_fact "$log" shutdown-kernel-errors)" 0
expect_eq "$B: the unsynced file verifies" "$(deb_fact "$log" dirty-sha256)" "$(deb_fact "$log2" dirty-want)"
expect_eq "$B: btrfs check --readonly of the unmounted device: no error" "$(deb_fact "$log" btrfs-check-errors)" 0
deb_block "$log" btrfs-check | sed "s/^/# $B btrfs check: /"

# ---- boot 3, then: restart and kill under a writer ----
B="boot 3 under load"
read -r r_rc r_state r_n r_fs <<<"$(deb_fact "$log" restart)"
expect_eq "$B: systemctl restart: exit, unit running, fs" "$r_rc $r_state $r_fs" "rc=0 state=active/running fs=rw"
read -r k_rc k_state k_n k_fs <<<"$(deb_fact "$log" kill)"
expect_eq "$B: systemctl kill -s KILL: exit, unit running again, fs" "$k_rc $k_state $k_fs" "rc=0 state=active/running fs=rw"
# the kill is a failure Restart=on-failure answers; the restart is not
expect_match "$B: the kill restarted the server once (NRestarts)" "$k_n" '^NRestarts=([0-9]+)->([0-9]+)$'
if [[ $k_n =~ ^NRestarts=([0-9]+)-\>([0-9]+)$ ]]; then
	expect_eq "$B: NRestarts after the kill" "${BASH_REMATCH[2]}" "$((BASH_REMATCH[1] + 1))"
fi
echo "# $B: restart took $(deb_fact "$log" restart-seconds) s ($r_n: an explicit restart is not counted), the server was back $(deb_fact "$log" kill-seconds) s after the kill"
m0=$(deb_fact "$log" load-mount-before)
expect_match "$B: mounted before the load" "$m0" '^[1-9][0-9]* /dev/ublkb[0-9]+$'
expect_eq "$B: the same mount on the same device after restart and kill" "$(deb_fact "$log" load-mount-after)" "$m0"
expect_eq "$B: file system read-write after the load" "$(deb_fact "$log" load-fs)" rw
deb_block "$log" writer | sed "s/^/# $B writer: /"
expect_eq "$B: no write of the writer failed" "$(deb_block "$log" writer | grep -c 'failed')" 0
expect_match "$B: every file of the writer verifies" "$(deb_fact "$log" writer-verify)" '^0 bad of [1-9][0-9]*$'
expect_eq "$B: data checksum is the host's" "$(deb_fact "$log" load-sha256)" "$want"
expect_eq "$B: no I/O or btrfs error in the journal" "$(deb_fact "$log" load-io-errors)" 0
expect_eq "$B: then an upgrade while served: $(deb_fact "$log" upgrade-from) ->" "$(deb_fact "$log" upgrade-to)" "$ver+up1 install ok installed"
expect_eq "$B: the upgrade left the server alone" "$(deb_fact "$log" upgrade-server)" "MainPID=same NRestarts=same active/running"
expect_eq "$B: the upgrade left the mount alone, read-write" "$(deb_fact "$log" upgrade-mount)" "same rw"
expect_eq "$B: no failed unit after the upgrade" "$(deb_fact "$log" upgrade-failed)" ""
deb_block "$log" dpkg-upgrade | sed "s/^/# $B dpkg: /"
for k in journal-load kernel-load; do deb_block "$log" $k | sed "s/^/# $B $k: /"; done

# ---- boot 3, last: remove and purge ----
B="boot 3 remove"
expect_eq "$B: systemctl stop of the server unit parks the device (the sandboxed server cannot prove it unused)" \
	"$(deb_fact "$log" stop-ublk-devs)" 1
expect_eq "$B: systemctl disable --now of the export unit: inactive, its export file kept, no subsystem" \
	"$(deb_fact "$log" remove-export)" "inactive 1 no-subsystem"
expect_eq "$B: no ublk device left once unmap removed it" "$(deb_fact "$log" remove-ublk-devs)" 0
expect_eq "$B: dpkg -r: config files left" "$(deb_fact "$log" remove-status)" "deinstall ok config-files"
expect_eq "$B: units, udev rules and the program gone" "$(deb_fact "$log" remove-files)" ""
# debhelper masks the enabled unit on removal (a reinstall unmasks it)
expect_match "$B: systemd has no restore or ublk unit left" "$(deb_fact "$log" remove-load)" '^(masked|not-found) not-found$'
expect_eq "$B: the mapping file kept, the mapping not unmapped in it" "$(deb_fact "$log" remove-mappings)" "zhot "
expect_eq "$B: the export file kept" "$(deb_fact "$log" remove-export-file)" "/etc/zns-npo2/export-zdata.conf "
expect_eq "$B: no failed unit after dpkg -r" "$(deb_fact "$log" remove-failed)" ""
expect_eq "$B: the fstab line of /srv/zdata dropped" "$(deb_fact "$log" remove-fstab)" 0
deb_block "$log" dpkg-remove | sed "s/^/# $B dpkg -r: /"
# (dpkg 1.21 still lists a purged package it knew: not-installed)
expect_match "$B: dpkg -P: the package is gone" "$(deb_fact "$log" purge-status)" '^(unknown ok not-installed|dpkg-query: no packages found matching zns-npo2)$'
expect_eq "$B: dpkg -P: /etc/zns-npo2, the mapping and the export files gone" "$(deb_fact "$log" purge-etc)" gone
expect_eq "$B: dpkg -P: no unit, no mask or enablement link left" "$(deb_fact "$log" purge-load)" "not-found 0"
expect_eq "$B: no failed unit after dpkg -P" "$(deb_fact "$log" purge-failed)" ""

# ---- boots P1 and P2: the dm route on the patched kernel ----
logp1=$logs/systemd-p1-patched-map-$stamp.log
boot P1 patched-map "0 1" "$logp1" detached patched
B="boot P1 (patched kernel)"
common "$logp1" "$B" "$DEB_PKVER"
# QEMU: ctrl 3's namespace, 768 MiB in 48 MiB zones of 4 KiB LBAs
expect_eq "$B: ctrl 3's namespace has a block device: zoned, npo2 chunk_sectors (48 MiB), not hidden" \
	"$(deb_fact "$logp1" p-ns | cut -d' ' -f2-)" "host-managed 98304 hidden=0"
expect_match "$B: the mapping: zoned, po2 zones of $po2 sectors" "$(deb_fact "$logp1" p-dev)" "^dm-[0-9]+ host-managed $po2\$"
expect_match "$B: mapping file: identity and geometry" "$(deb_block "$logp1" p-mappings)" '^zdm sn:znsnpo2-c3:nsid:1 lba_size=4096 zone_size=12288 nr_zones=16( via=dm)?$'
expect_match "$B: /dev/disk/by-uuid link of the file system: the mapping" "$(deb_fact "$logp1" p-by-uuid)" '^/dev/dm-[0-9]+$'
want8=$(head -c 8M "$dir/data.bin" | sha256sum | cut -d' ' -f1)
expect_eq "$B: data read back (the first 8 MiB of the host's file)" "$(deb_fact "$logp1" p-sha256)" "$want8"
echo "# $B: blkid -p of the namespace under the mapping: $(deb_fact "$logp1" p-raw-probe)"
deb_block "$logp1" p-fstab | sed 's/^/# fstab: /'

logp2=$logs/systemd-p2-patched-boot-$stamp.log
boot P2 patched-boot "1 0" "$logp2" detached patched
B="boot P2 (patched kernel, controllers 1 0)"
common "$logp2" "$B" "$DEB_PKVER"
deb_block "$logp2" zone-state | sed "s/^/# $B harness: /"
expect_match "$B: mounted from fstab, read-write" "$(deb_fact "$logp2" p-mount)" '^/dev/(mapper/zdm|dm-[0-9]+) btrfs rw,'
read -r pm pd <<<"$(deb_fact "$logp2" p-mount-dev)"
expect_eq "$B: the mount's device is the mapping" "${pm:-none}" "${pd:-mapping}"
expect_eq "$B: data checksum is the host's" "$(deb_fact "$logp2" p-sha256)" "$want8"
read -r bl bd <<<"$(deb_fact "$logp2" p-by-uuid)"
expect_eq "$B: /dev/disk/by-uuid link of the file system: the mapping" "${bl:-none}" "/dev/${bd:-mapping}"
read -r bl bd <<<"$(deb_fact "$logp2" p-by-uuid-change)"
expect_eq "$B: the link still the mapping's after a change event of the namespace under it ($(deb_fact "$logp2" p-by-uuid-claims) claim by it)" "${bl:-none}" "/dev/${bd:-mapping}"
expect_eq "$B: zns-npo2-restore.service result" "$(deb_fact "$logp2" restore-result)" "success 0"
# 16 zones of 48 MiB behind po2 zones: 16 x po2 sectors, one po2zone target
read -r pns pslaves <<<"$(deb_fact "$logp2" p-backing)"
expect_match "$B: dm table: one po2zone target of 16 po2 zones" "$(deb_fact "$logp2" p-table)" "^0 $((16 * po2)) po2zone [0-9]+:[0-9]+( |\$)"
expect_eq "$B: the mapping's only backing device is ctrl 3's namespace ($pns)" "${pslaves:-none}" "${pns:-ctrl3}"
expect_eq "$B: dm UUID: the namespace's identity" "$(deb_fact "$logp2" p-uuid)" "ZNPO2-sn:znsnpo2-c3:nsid:1"
# the restore's line that made the mapping (udev may run the restore
# again later: its unit's timestamps are of the last run)
mj=$(deb_block "$logp2" journal | grep -m1 'zns-npo2.*zdm: mapped')
rx=$(sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{6\}\)\].*/\1\2/p' <<<"$mj" | sed 's/^0*//')
mounted_in_order "$logp2" "$B" "restore's '${mj:-no zdm: mapped line}'" "$rx" srv-zdm.mount

echo "$L: $((checks - fails)) passed, $fails failed; boots$times; total $((SECONDS - start)) s"
echo "$L: console logs: $logs/systemd-*-$stamp.log"
[ $fails = 0 ]

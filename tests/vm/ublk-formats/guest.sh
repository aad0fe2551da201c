# Stock kernel, ublk_drv: LBA formats the ublk server cannot serve and zone
# descriptor extensions it must. Namespaces (tests/layers.d/54-vm-ublk-formats.sh),
# all npo2 96M/96M on 4 KiB LBAs, hidden by the stock kernel: ctrl 0 nsid 1
# ms=8 mset=1 (extended LBA), 2 ms=8 mset=0 (separate metadata), 3 ms=8 pi=1
# (protection information type 1, separate), 4 zoned.descr_ext_size=64,
# 5 ms=8 mset=1 pi=1 pil=1 (PI type 1 in the first bytes, extended).
# Refusals are checked against QEMU's configuration (Identify as nvme-cli
# reads it) and for what they leave behind; the extension namespace is
# served and checked through the other path (NVMe reads and reports on its
# ng node).
MiB=1048576

lbas=$(ns_conf 0 4 lbas)
zsze=$(ns_conf 0 4 zsze)
ZL=$((zsze / lbas))				# namespace zone, LBAs
SPL=$((lbas / 512))				# sectors per LBA
ZS=$(($(po2_roundup "$zsze") / 512))		# ublk zone (po2), sectors
CAPS=$((zsze / 512))				# ublk zone capacity, sectors
vm_summary

# nothing_created DESC [lock]: no ublk device and no state file; with "lock",
# the namespace's lock file may stay (a served namespace keeps it: a lock
# file is never removed while another process may hold it)
nothing_created() {
	local left
	left=$(ls /dev/ublkb* /dev/ublkc* /run/zns-npo2/* 2>/dev/null)
	[ "${2:-}" = lock ] && left=$(echo "$left" | grep -v '^/run/zns-npo2/.*\.lock$')
	expect_eq "$1: no /dev/ublk[bc]N and no state file" "$left" ""
}

# ---- the stock kernel hides every one of them --------------------------------------
for n in 1 2 3 4 5; do
	d=$(vm_ns 0 $n)
	expect_eq "formats: nsid $n ($d): the stock kernel hides the block device" \
		"$(cat /sys/block/"$d"/hidden 2>/dev/null) $([ -e /dev/"$d" ] && echo node || echo no-node)" \
		"1 no-node"
done
dmesg | grep -E 'invalid zone size|metadata|zone descr' | sed 's/^/# dmesg: /' | head -8

# ---- metadata and PI: check and map --ublk refuse, nothing created --------------------
# refused NSID EXTENDED(0/1) DPS REASONS FORMAT-TEXT
refused() {
	local n=$1 flbas=$2 dps=$3 reasons=$4 text=$5 ng
	ng=$(vm_ng 0 "$n")
	nvme id-ns "$ng" >/tmp/id$n.txt 2>&1
	# QEMU lists LBA formats with 0, 8, 16 and 64 metadata bytes per LBA size
	# and selects the one configured: FLBAS bits 3:0 (and 6:5) the index, bit 4 extended
	fl=$(sed -n 's/^flbas *: //p' /tmp/id$n.txt)
	expect_eq "formats: nsid $n Identify as configured: FLBAS bit 4 (extended LBA) $flbas" \
		"$(( (${fl:-0}) >> 4 & 1 ))" "$flbas"
	expect_match "formats: nsid $n Identify as configured: dps $dps" "^dps +: $dps\$" "$(cat /tmp/id$n.txt)"
	expect_match "formats: nsid $n Identify as configured: 8 metadata bytes, 4 KiB, in use" \
		"^lbaf +[0-9]+ : ms:8 +lbads:12 .*in use" "$(cat /tmp/id$n.txt)"
	expect_rc "formats: check $ng: metadata-format (exit 16)" 16 nvme-zns-npo2 check "$ng"
	expect_match "formats: check $ng: the verdict line" \
		"^verdict: +metadata-format: the LBA format carries per-LBA metadata or protection information" \
		"$(cat /tmp/vm-cmd.out)"
	expect_match "formats: check $ng: the reasons" "^reasons: .*$reasons" "$(cat /tmp/vm-cmd.out)"
	expect_rc "formats: check $ng -o json (exit 16)" 16 nvme-zns-npo2 check "$ng" -o json
	expect_eq "formats: check $ng -o json: verdict and exit code" \
		"$(jget verdict /tmp/vm-cmd.out) $(jget exit_code /tmp/vm-cmd.out)" "metadata-format 16"
	expect_rc "formats: map --ublk $ng refused (exit 3)" 3 nvme-zns-npo2 map --ublk "$ng"
	expect_eq "formats: map --ublk $ng: one line" "$(wc -l </tmp/vm-cmd.out)" 1
	expect_match "formats: map --ublk $ng: names the device and the format" \
		"^nvme-zns-npo2: $ng: the LBA format has 8 bytes of metadata per LBA \($text\): the ublk server moves data only" \
		"$(cat /tmp/vm-cmd.out)"
	expect_rc "formats: map --ublk --foreground $ng refused (exit 3)" 3 \
		nvme-zns-npo2 map --ublk --foreground "$ng"
	nothing_created "formats: after refusing $ng"
}
refused 1 1 0 "lba-metadata" "extended LBA, interleaved with the data"
refused 2 0 0 "lba-metadata" "in a separate buffer"
refused 3 0 0x1 "lba-metadata, protection-info" "in a separate buffer, protection information type 1"
refused 5 1 0x9 "lba-metadata, protection-info" "extended LBA, interleaved with the data, protection information type 1"
expect_eq "formats: refusals loaded no device at all" "$(ls /sys/block | grep -c ublk)" 0

# ---- zone descriptor extensions: mapped and served ------------------------------------
ng=$(vm_ng 0 4)
NZ=$(($(ns_conf 0 4 size) / zsze))
nslba() { echo $(($1 * ZL + $2)); }
sector() { echo $(($1 * ZS + $2 * SPL)); }
nvme zns id-ns "$ng" >/tmp/zid.txt 2>&1
expect_match "zdes: the namespace has 64-byte zone descriptor extensions (nvme zns id-ns: zdes 1 x 64 B)" \
	"^lbafe +[0-9]+: zsze:0x6000 zdes:1 \(in use\)" "$(cat /tmp/zid.txt)"
expect_rc "zdes: check $ng: mappable-ublk (exit 15)" 15 nvme-zns-npo2 check "$ng"
start_srv() {
	local i=0
	nvme-zns-npo2 map --ublk --foreground "$ng" >/tmp/srv 2>/tmp/srv.err &
	srv=$!
	while [ $i -lt 150 ]; do
		grep -q '^/dev/ublkb' /tmp/srv 2>/dev/null && return 0
		kill -0 "$srv" 2>/dev/null || return 1
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}
if ! start_srv; then
	not_ok "zdes: map --ublk --foreground $ng started" "$(cat /tmp/srv /tmp/srv.err)"
	return 0 2>/dev/null || exit 0
fi
ok "zdes: map --ublk --foreground $ng started (pid $srv)"
b=$(cat /tmp/srv)
q=/sys/block/${b#/dev/}/queue
expect_eq "zdes geometry: chunk_sectors = po2 round-up of $zsze bytes" "$(cat $q/chunk_sectors)" "$ZS"
expect_eq "zdes geometry: nr_zones" "$(cat $q/nr_zones)" "$NZ"
expect_eq "zdes geometry: size" "$(cat /sys/block/${b#/dev/}/size)" $((NZ * ZS))
expect_eq "zdes geometry: logical block size" "$(cat $q/logical_block_size)" "$lbas"
blkzone report "$b" >/tmp/rep.txt
i=0 bad=0
while [ $i -lt "$NZ" ]; do
	want=$(printf 'start: 0x%09x, len 0x%06x, cap 0x%06x, wptr 0x000000 reset:0 non-seq:0, zcond: 1(em) [type: 2(SEQ_WRITE_REQUIRED)]' \
		$((i * ZS)) "$ZS" "$CAPS")
	got=$(sed -n "$((i + 1))p" /tmp/rep.txt | sed 's/^ *//')
	[ "$got" = "$want" ] || { bad=$((bad + 1)); echo "#   zone $i: '$got' != '$want'"; }
	i=$((i + 1))
done
expect_eq "zdes geometry: every zone's start, len, cap, wp, cond, type as configured" "$bad" 0

nvme-pattern gen - "$(nslba 2 0)" 256 "$lbas" 41 >/tmp/p41
expect_ok "zdes data: 1 MiB pattern written through $b at zone 2" wr "$b" "$(sector 2 0)" /tmp/p41 $MiB
expect_ok "zdes data: the pattern is at namespace LBA $(nslba 2 0) (NVMe Read on $ng)" \
	nvme-pattern verify "$ng" "$(nslba 2 0)" 256 "$lbas" 41
rd "$b" "$(sector 2 0)" $MiB /tmp/r41
expect_same "zdes data: and reads back through $b" /tmp/p41 /tmp/r41
# zone 2 in both reports: the namespace's (nvme-cli, basic and extended) and the device's
nrep=$(nvme zns report-zones "$ng" -s "$(nslba 2 0)" -d 1 2>/dev/null | awk '/SLBA:/ { print $4, $8; exit }')
expect_eq "zdes report: namespace zone 2 (nvme-cli): wp +256 LBAs, implicitly open" \
	"$nrep" "$(printf '%#x' $(($(nslba 2 0) + 256))) 0x20"
expect_ok "zdes report: nvme-cli's extended report of the namespace works" \
	nvme zns report-zones "$ng" -e -d 1
urep=$(blkzone report -o "$(sector 2 0)" -c 1 "$b" | sed -n 's/.*wptr 0x\([0-9a-f]*\).*zcond: *\([0-9]*\)(.*/\1 \2/p')
expect_eq "zdes report: ublk zone 2 (blkzone) agrees: wp +256 LBAs, implicitly open" \
	"$urep" "$(printf '%06x 2' $((256 * SPL)))"
expect_ok "zdes zones: blkzone finish zone 3" blkzone finish -o "$(sector 3 0)" -c 1 "$b"
nrep=$(nvme zns report-zones "$ng" -s "$(nslba 3 0)" -d 1 2>/dev/null | awk '/SLBA:/ { print $8; exit }')
expect_eq "zdes zones: namespace zone 3 full (nvme-cli)" "$nrep" 0xe0
expect_ok "zdes zones: blkzone reset zone 2" blkzone reset -o "$(sector 2 0)" -c 1 "$b"
nrep=$(nvme zns report-zones "$ng" -s "$(nslba 2 0)" -d 1 2>/dev/null | awk '/SLBA:/ { print $4, $8; exit }')
expect_eq "zdes zones: namespace zone 2 empty again (nvme-cli)" "$nrep" "$(printf '%#x' "$(nslba 2 0)") 0x10"
blkzone report "$b" | sed -n 's/.*zcond: *\([0-9]*\)(.*/\1/p' | tr '\n' ' ' >/tmp/conds
expect_eq "zdes zones: every zone's condition in the device's report" "$(cat /tmp/conds)" "1 1 1 14 1 1 1 1 "

kill "$srv" 2>/dev/null
wait "$srv"
expect_eq "zdes stop: SIGTERM: the server exits 0" "$?" 0
nothing_created "zdes stop: the device is gone" lock

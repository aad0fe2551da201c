# dm-po2zone at non-zero table offsets: two npo2 QEMU ZNS namespaces
# concatenated into one mapped device with po2 zones, I/O and zone reports
# across the join, the reversed order, refusals (misaligned target start,
# mixed zone geometry). Namespaces (ctrl 0): A nsid 1 and B nsid 2, npo2
# 96M/96M, 480M each (5 zones); C nsid 3 npo2 48M/48M, 240M (5 zones).
# Run by tests/layers.d/76-vm-series.sh.
. /vm/guest/common.sh

vm_summary

A=$(vm_blk 0 1) || not_ok "namespace A has a block device"
B=$(vm_blk 0 2) || not_ok "namespace B has a block device"
C=$(vm_blk 0 3) || not_ok "namespace C has a block device"
z=$(($(ns_conf 0 1 zsze) / 512))
n=$(($(ns_conf 0 1 size) / $(ns_conf 0 1 zsze)))
p=$(po2_roundup "$z")
len=$((n * p))
vm_log "A=$A B=$B C=$C: $n zones of $z sectors each, padded to $p"

# create_table NAME LINE...: dmsetup create NAME with one table line per arg
create_table() {
	local name=$1
	shift
	printf '%s\n' "$@" | dmsetup create "$name"
}

# --- A then B ------------------------------------------------------------------
expect_ok "concat: create A at 0, B at $len" create_table cat \
	"0 $len po2zone $A" "$len $len po2zone $B"
map=$(dm_dev cat) || { not_ok "concat: mapping has a block device"; map=/dev/missing; }
expect_eq "concat: size is both targets" "$(sysblk "$map" size)" $((2 * len))
expect_eq "concat: chunk_sectors is the po2 zone size" "$(sysblk "$map" queue/chunk_sectors)" "$p"
expect_eq "concat: nr_zones" "$(sysblk "$map" queue/nr_zones)" $((2 * n))
expect_eq "concat: status of both targets" "$(dmsetup status cat | tr '\n' ';')" \
	"0 $len po2zone $z $p $n;$len $len po2zone $z $p $n;"

zone_list "$map" >/tmp/cat-rep.txt
: >/tmp/cat-rep.exp
k=0
while [ $k -lt $((2 * n)) ]; do
	echo "$((k * p)) $p $z 0 1" >>/tmp/cat-rep.exp
	k=$((k + 1))
done
expect_same "concat: report of all $((2 * n)) zones: po2 starts, real capacity, empty" \
	/tmp/cat-rep.txt /tmp/cat-rep.exp
zone_list "$map" $(((n - 1) * p)) 2 >/tmp/cat-rep2.txt
sed -n "${n},$((n + 1))p" /tmp/cat-rep.exp >/tmp/cat-rep2.exp
expect_same "concat: a report starting in A's last zone continues into B" \
	/tmp/cat-rep2.txt /tmp/cat-rep2.exp

# data across the join: the end of A's last zone, the start of B's first
dd if=/dev/urandom of=/tmp/pa bs=$MIB count=1 2>/dev/null
dd if=/dev/urandom of=/tmp/pb bs=$MIB count=1 2>/dev/null
la=$(((n - 1) * p))
expect_ok "concat: fill A's last zone up to 1 MiB below capacity" \
	dd if=/dev/zero of="$map" bs=$MIB count=$((z / MIB_S - 1)) \
	seek=$((la * 512)) oflag=direct,seek_bytes
expect_ok "concat: write the last MiB of A's last zone" wr "$map" $((la + z - MIB_S)) /tmp/pa
expect_eq "concat: A's last zone full (mapping)" "$(zone_field "$map" "$la" cond)" 14
expect_eq "concat: A's last zone full (device A)" "$(zone_field "$A" $(((n - 1) * z)) cond)" 14
expect_ok "concat: write 1 MiB at the start of mapping zone $n" wr "$map" "$len" /tmp/pb
rd "$A" $((n * z - MIB_S)) $MIB /tmp/rd.a
expect_same "concat: A's end holds the data written before the join" /tmp/pa /tmp/rd.a
rd "$B" 0 $MIB /tmp/rd.b
expect_same "concat: B's start holds the data written after the join" /tmp/pb /tmp/rd.b
rd "$map" $((la + z - MIB_S)) $MIB /tmp/rd.m
expect_same "concat: the mapping reads A's end back" /tmp/pa /tmp/rd.m
rd "$map" "$len" $MIB /tmp/rd.m
expect_same "concat: the mapping reads B's start back" /tmp/pb /tmp/rd.m
expect_eq "concat: B zone 0 write pointer (device B)" "$(zone_field "$B" 0 wpoff)" "$MIB_S"
expect_eq "concat: mapping zone $n write pointer" "$(zone_field "$map" "$len" wpoff)" "$MIB_S"
rd "$map" $((la + z)) $MIB /tmp/rd.m
is_zero "concat: padding of A's last zone reads zeros" /tmp/rd.m

# zone operations on B through the mapping
expect_ok "concat: finish mapping zone $n" zonectl finish "$map" "$len" "$p"
expect_eq "concat: B zone 0 full" "$(zone_field "$B" 0 cond)" 14
expect_ok "concat: reset mapping zone $((n + 1))" zonectl reset "$map" $((len + p)) "$p"
expect_ok "concat: reset mapping zone $n" zonectl reset "$map" "$len" "$p"
expect_eq "concat: B zone 0 empty again" "$(zone_field "$B" 0 cond)" 1
expect_eq "concat: A untouched by B's zone operations" "$(zone_field "$A" $(((n - 1) * z)) cond)" 14

# fio zbd write + verify over the last zone of A and the first of B
expect_ok "concat: reset A's last zone" zonectl reset "$map" "$la" "$p"
out=$(run_to 240 fio --name=cat --filename="$map" --direct=1 --zonemode=zbd \
	--ioengine=psync --rw=write --bs=256k --offset=$((la * 512)) --size=$((2 * p * 512)) \
	--verify=crc32c --do_verify=1 --verify_fatal=1 2>&1)
rc=$?
expect_eq "concat: fio zbd write + verify across the join (exit status)" "$rc" 0
[ "$rc" = 0 ] || echo "$out" | tail -10 | sed 's/^/#   | /'
expect_eq "concat: fio filled A's last zone (device A)" "$(zone_field "$A" $(((n - 1) * z)) cond)" 14
expect_eq "concat: fio filled B's first zone (device B)" "$(zone_field "$B" 0 cond)" 14

# reset all zones of the mapping: both devices empty
expect_ok "concat: reset every zone of the mapping" zonectl reset "$map" 0 $((2 * len))
expect_eq "concat: every zone of A empty" "$(zone_list "$A" | awk '$5 != 1' | wc -l)" 0
expect_eq "concat: every zone of B empty" "$(zone_list "$B" | awk '$5 != 1' | wc -l)" 0
expect_ok "concat: remove" dmsetup remove cat

# --- B then A: A at a non-zero offset ------------------------------------------
expect_ok "reversed: create B at 0, A at $len" create_table rev \
	"0 $len po2zone $B" "$len $len po2zone $A"
map=$(dm_dev rev) || map=/dev/missing
expect_ok "reversed: write 1 MiB at mapping zone $((n + 2))" wr "$map" $((len + 2 * p)) /tmp/pa
rd "$A" $((2 * z)) $MIB /tmp/rd.a
expect_same "reversed: it lands in A zone 2" /tmp/pa /tmp/rd.a
expect_eq "reversed: report of mapping zone $((n + 2)) shows the write" \
	"$(zone_list "$map" $((len + 2 * p)) 1)" "$((len + 2 * p)) $p $z $MIB_S 2"
expect_ok "reversed: reset it" zonectl reset "$map" $((len + 2 * p)) "$p"
expect_eq "reversed: A zone 2 empty again" "$(zone_field "$A" $((2 * z)) cond)" 1
expect_ok "reversed: remove" dmsetup remove rev

# --- the toolkit: map DEV1 DEV2 ---------------------------------------------------
if command -v nvme-zns-npo2 >/dev/null; then
	expect_ok "map A B: one mapping of both namespaces" nvme-zns-npo2 map --name tcat "$A" "$B"
	expect_eq "map A B: the table concatenates A and B" "$(dmsetup table tcat | tr '\n' ';')" \
		"0 $len po2zone $(sysblk "$A" dev);$len $len po2zone $(sysblk "$B" dev);"
	expect_eq "map A B: nr_zones" "$(sysblk "$(dm_dev tcat)" queue/nr_zones)" $((2 * n))
	expect_eq "map A B: UUID" "$(dmsetup info -c --noheadings -o uuid tcat)" "ZNPO2-cat:tcat"
	expect_rc "map A B again: refused (already mapped)" 4 nvme-zns-npo2 map --name tcat2 "$A" "$B"
	expect_ok "unmap the concatenation" nvme-zns-npo2 unmap tcat
	expect_eq "unmap: gone" "$(dmsetup info tcat >/dev/null 2>&1 && echo present || echo gone)" gone
	expect_rc "map A C: different zone geometry refused" 3 nvme-zns-npo2 map --name tbad "$A" "$C"
	expect_match "map A C: ... saying why" "a mapping has one zone geometry" "$(cat /tmp/vm-cmd.out)"
	expect_rc "map A A: the same device twice refused" 2 nvme-zns-npo2 map --name tbad "$A" "$A"
	expect_rc "map A B without --name: usage error" 2 nvme-zns-npo2 map "$A" "$B"
	expect_eq "no mapping left by the refusals" "$(dmsetup ls | grep -c 'tbad\|tcat')" 0
else
	not_ok "nvme-zns-npo2 is in the guest"
fi

# --- refusals ------------------------------------------------------------------
# bad_tables DESC MESSAGE LINE...: the table must be refused with MESSAGE in
# the kernel log, and leave no mapping
bad_tables() {
	local desc=$1 msg=$2 before
	shift 2
	before=$(kmsg_count "$msg")
	if printf '%s\n' "$@" | dmsetup create catbad >/dev/null 2>&1; then
		not_ok "$desc: table refused"
		dmsetup remove catbad
		return 0
	fi
	ok "$desc: table refused"
	if [ "$(kmsg_count "$msg")" -gt "$before" ]; then
		ok "$desc: error '$msg'"
	else
		not_ok "$desc: error '$msg'" "$(dmesg | tail -3)"
	fi
	if dmsetup info catbad >/dev/null 2>&1; then
		not_ok "$desc: no mapping left"
		dmsetup remove catbad
	else
		ok "$desc: no mapping left"
	fi
}
bad_tables "target start not a multiple of the po2 zone size" \
	"Target start is not aligned to the zone size" \
	"0 $len po2zone $A" "$len 8 error" "$((len + 8)) $len po2zone $B"
zc=$(($(ns_conf 0 3 zsze) / 512))
nc=$(($(ns_conf 0 3 size) / $(ns_conf 0 3 zsze)))
pc=$(po2_roundup "$zc")
# refused when the table is loaded (dm_table_complete), before its limits
bad_tables "mixed zone geometry (96M and 48M zones)" "zone emulation needs one device zone size" \
	"0 $len po2zone $A" "$len $((nc * pc)) po2zone $C"
no_kernel_errors "kernel log has no bug, warning or oops report"

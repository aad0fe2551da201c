# map / unmap / status / list on the patched kernel (boot 1 of layer 80):
# --preset standard (A npo2 96M/96M, B po2 128M/96M, C npo2 80M/64M,
# D conventional, E npo2 48M/48M on 512-byte LBAs) and an npo2 null_blk.
# No udev runs here: the tool must create the /dev/mapper nodes itself.
# The mapping file it leaves is printed as section "mappings-conf"; boot 2
# (restore.sh) restores it with the namespaces declared in another order.
. /vm/guest/maplib.sh

vm_summary
CONF=/etc/zns-npo2/mappings.conf
A=$(vm_blk 0 1) || A=/dev/missing-A
B=$(vm_blk 0 2) || B=/dev/missing-B
D=$(vm_blk 0 4) || D=/dev/missing-D
E=$(vm_blk 1 1) || E=/dev/missing-E
C_NG=$(vm_ng 0 3)
NA=po2-znsnpo2-c0-n1
NE=po2-znsnpo2-c1-n1
za=$(($(ns_conf 0 1 zsze) / 512))
na=$(($(ns_conf 0 1 size) / $(ns_conf 0 1 zsze)))
ze=$(($(ns_conf 1 1 zsze) / 512))
ne=$(($(ns_conf 1 1 size) / $(ns_conf 1 1 zsze)))
expect_ok "no udev: /run/udev/control absent" test ! -e /run/udev/control

# ---- map A with --persist (default mapping file) ---------------------------
expect_rc "check A: mappable" 0 $ZNP check "$A"
# a dm mapping is made under the namespace's lock, taken exclusive: a zone
# command claims it shared for its whole run (held here as one would), so
# no mapping appears between the interlock's answer and its command. The
# lock file's name is the identity, ':' written _3a (svc.h).
mkdir -p -m 700 /run/zns-npo2
exec 8>>/run/zns-npo2/sn_3aznsnpo2-c0_3ansid_3a1.lock
flock -s 8
expect_rc "map A beside a zone command's claim: refused (4)" 4 $ZNP map "$A" --persist
expect_match "... one line naming the holder" \
	"^$ZNP: $A: the namespace's lock in /run/zns-npo2 is held by pid [1-9][0-9]* \\(a server starting, a mapping being made or a zone command running\\): try again when it ends\$" \
	"$(cat /tmp/vm-cmd.out)"
expect_eq "... nothing mapped" "$(dmsetup ls --target po2zone 2>/dev/null | grep -c "$NA")" 0
exec 8>&-
expect_ok "map A --persist" $ZNP map "$A" --persist -o json
cp /tmp/vm-cmd.out /tmp/mapA.json
sed 's/^/# /' /tmp/mapA.json
expect_eq "map A: name derived from serial and NSID" "$(jget name /tmp/mapA.json)" "$NA"
expect_eq "map A: identity" "$(jget identity /tmp/mapA.json)" "sn:znsnpo2-c0:nsid:1"
expect_eq "map A: uuid" "$(jget uuid /tmp/mapA.json)" "ZNPO2-sn:znsnpo2-c0:nsid:1"
expect_eq "map A: namespace zone size (LBAs)" "$(jget zone_size /tmp/mapA.json)" $((za / 8))
expect_eq "map A: po2 zone size (LBAs)" "$(jget po2_zone_size /tmp/mapA.json)" \
	$(($(po2_roundup "$za") / 8))
expect_eq "map A: zone capacity (LBAs)" "$(jget zone_cap /tmp/mapA.json)" $((za / 8))
expect_eq "map A: zones" "$(jget nr_zones /tmp/mapA.json)" "$na"
expect_eq "map A: size in sectors" "$(jget size_sectors /tmp/mapA.json)" \
	$((na * $(po2_roundup "$za")))
expect_eq "map A: persisted" "$(jget persisted /tmp/mapA.json)" true
expect_ok "map A: /dev/mapper/$NA is a block device" test -b /dev/mapper/$NA
expect_eq "map A: mapping sits on A" "$(mapping_slave $NA)" "$(basename "$A")"
dmk=$(jget dm /tmp/mapA.json)
expect_eq "map A: chunk_sectors is the po2 zone size" \
	"$(cat /sys/block/$dmk/queue/chunk_sectors)" "$(po2_roundup "$za")"
expect_report "map A: report shows po2 zones with the real capacity" /dev/mapper/$NA "$za" "$na"
data_roundtrip "map A" /dev/mapper/$NA "$A" "$za" 1
data_roundtrip "map A" /dev/mapper/$NA "$A" "$za" $((na - 1))
# ---- the interlock on the dm route: no zone command destroys what it serves --
# A pattern in mapped zone 2, then every command that writes zones or data
# or changes a zone's state, on A's block node and on its ng node, with and
# without --force: refused (4) in the same line as on the ublk route; the
# zones (nvme-cli through the ng node) and the pattern are what they were.
A_NG=$(vm_ng 0 1) || A_NG=/dev/missing-A-ng
pa=$(po2_roundup "$za")
dd if=/dev/urandom of=/tmp/ilpat bs=$MIB count=1 2>/dev/null
expect_ok "interlock: 1 MiB written through /dev/mapper/$NA at mapped zone 2" wr /dev/mapper/$NA $((2 * pa)) /tmp/ilpat
nvme zns report-zones "$A_NG" -o json >/tmp/il-zones.before 2>&1
expect_match "interlock: nvme-cli reports A's zones" '"slba"' "$(cat /tmp/il-zones.before)"
for node in "$A" "$A_NG"; do
	for f in "" -f; do
		for c in "reset -s 0" "reset -a" "finish -s 2" "open -s 0" "close -s 0" "discard"; do
			cmd=${c%% *}
			case $cmd in
			discard) way="use $ZNP discard /dev/mapper/$NA, or unmap $NA first" ;;
			*) way="use blkzone $cmd /dev/mapper/$NA, or unmap $NA first" ;;
			esac
			[ "$c" = "finish -s 2" ] && c="finish -s $((2 * za / 8))"
			# shellcheck disable=SC2086 # $c and $f are words
			expect_rc "interlock: $c${f:+ $f} on $node: refused (4)" 4 $ZNP $c "$node" $f
			expect_eq "... one line naming the mapping, its device and the way out" \
				"$(cat /tmp/vm-cmd.out)" \
				"$ZNP: $node: served by dm mapping $NA as /dev/mapper/$NA: $cmd refused, even with --force; $way"
		done
	done
done
vm_log "refusal: $(cat /tmp/vm-cmd.out)"
nvme zns report-zones "$A_NG" -o json >/tmp/il-zones.after 2>&1
expect_same "interlock: A's zones through the ng node unchanged (nvme-cli)" \
	/tmp/il-zones.before /tmp/il-zones.after
rd /dev/mapper/$NA $((2 * pa)) $MIB /tmp/ilrd
expect_same "interlock: the pattern reads back through the mapping" /tmp/ilpat /tmp/ilrd
expect_ok "interlock: reset the zone through the mapping" blkzone reset -o $((2 * pa)) -c 1 /dev/mapper/$NA
expect_match "map A: recorded in $CONF" "^$NA sn:znsnpo2-c0:nsid:1 lba_size=4096 zone_size=$((za / 8)) nr_zones=$na\$" \
	"$(grep -v '^#' $CONF)"

# text output
expect_ok "map E (text output)" $ZNP map "$E" --persist
expect_match "map E: says where it mapped" "^mapped $E as /dev/mapper/$NE \(dm-[0-9]+\)" \
	"$(head -1 /tmp/vm-cmd.out)"
expect_report "map E: report (512-byte LBAs)" /dev/mapper/$NE "$ze" "$ne"
data_roundtrip "map E" /dev/mapper/$NE "$E" "$ze" 2

# ---- export: the dm-po2zone mapping A as an NVMe target namespace -------------
# over the loop transport (the host is this kernel): a po2 ZNS namespace
# with A's geometry, whose data lands on A at the npo2 offsets, under
# identifiers of its own (the loop host would refuse a namespace with A's)
XNQN=nqn.2026-12.org.zns-npo2:dm-export
expect_ok "export $NA (dm route) over the loop transport" $ZNP export "$NA" --nqn "$XNQN" \
	--transport loop --allow-any-host -o json
cp /tmp/vm-cmd.out /tmp/exportA.json
expect_eq "export: device /dev/mapper/$NA" "$(jget device /tmp/exportA.json)" "/dev/mapper/$NA"
expect_ok "nvme connect -t loop" nvme connect -t loop -n "$XNQN" -q nqn.2026-12.org.zns-npo2:host \
	-I 5b0ed1e4-6a61-4c3b-9d47-0c0ffee0c0de
X=$(nvmet_disk "$XNQN" 1) || X=missing-export
expect_eq "export: the host's disk is host-managed, po2 zones, A's zone count" \
	"$(cat /sys/block/$X/queue/zoned) $(cat /sys/block/$X/queue/chunk_sectors) $(cat /sys/block/$X/queue/nr_zones)" \
	"host-managed $(po2_roundup "$za") $na"
expect_report "export: report of /dev/$X: A's zones, po2 size, A's capacity" "/dev/$X" "$za" "$na"
data_roundtrip "export" "/dev/$X" "$A" "$za" 3
expect_eq "export: its UUID is its own, not A's" \
	"$([ "$(cat /sys/block/$X/uuid 2>&1)" != "$(cat /sys/block/$(basename "$A")/uuid 2>&1)" ] && echo differs)" differs
expect_rc "unmap $NA refused while exported (4)" 4 $ZNP unmap "$NA"
expect_match "... naming the export and the way out" \
	"in use \\(open count 1, exported by NVMe target subsystem $XNQN namespace 1\\): not removed; export --remove it first" \
	"$(cat /tmp/vm-cmd.out)"
expect_ok "nvme disconnect" nvme disconnect -n "$XNQN"
expect_ok "export --remove $NA" $ZNP export --remove "$NA"
expect_eq "export: the subsystem is gone" \
	"$([ -e /sys/kernel/config/nvmet/subsystems/$XNQN ] && echo there || echo gone)" gone

# ---- status, list ------------------------------------------------------------
expect_ok "status -o json" $ZNP status -o json
cp /tmp/vm-cmd.out /tmp/status.json
sed 's/^/# /' /tmp/status.json
expect_eq "status: two mappings" "$(jget nr_mappings /tmp/status.json)" 2
row=$(tr -d '\n' </tmp/status.json | sed 's/},/}\n/g' | grep "\"name\": \"$NA\"")
expect_match "status: A backing, nsid, geometry, open count, persisted" \
	"\"backing\": \"$(basename "$A")\".*\"nsid\": 1.*\"zone_sectors\": $za, \"po2_zone_sectors\": $(po2_roundup "$za"), \"nr_zones\": $na.*\"open_count\": 0.*\"persisted\": true" \
	"$row"
expect_ok "status (text)" $ZNP status
expect_match "status text: A row" "^$NA +dm-[0-9]+ +$(basename "$A") +1 +96 MiB +128 MiB +$na +0 +yes +active" \
	"$(grep "^$NA " /tmp/vm-cmd.out)"
expect_ok "status of one mapping by namespace" $ZNP status "$E"
expect_eq "status of E: one row" "$(grep -c '^po2-' /tmp/vm-cmd.out)" 1
expect_ok "unmap A --dry-run" $ZNP unmap "$A" --dry-run
expect_eq "unmap --dry-run prints the dmsetup command" "$(head -1 /tmp/vm-cmd.out)" "dmsetup remove $NA"
expect_ok "unmap --dry-run removed nothing" dmsetup info $NA
expect_eq "unmap --dry-run forgot nothing" "$(grep -c "^$NA " $CONF)" 1
expect_ok "list -o json" $ZNP list -o json
expect_match "list: A mapped as $NA" "\"mapped_as\": \"$NA\"" \
	"$(tr -d '\n' </tmp/vm-cmd.out | sed 's/}, {/}\n{/g' | grep "\"block\": \"$(basename "$A")\"")"
expect_ok "list (text)" $ZNP list
expect_match "list text: MAPPED-AS column" " $NA +[^ ]" "$(grep "$(basename "$A") " /tmp/vm-cmd.out)"

# ---- zonemap --padding: where the mapping's padding sits ----------------------
pa=$(po2_roundup "$za")
expect_ok "zonemap --padding of A" $ZNP zonemap --padding --color=never "$A"
expect_match "zonemap --padding: A's mapping, po2 zone size and padding in LBAs" \
	"^padding: $NA \(dm-po2zone\), $((pa / 8)) LBAs per zone: $(((pa - za) / 8)) padding " \
	"$(cat /tmp/vm-cmd.out)"
expect_eq "zonemap --padding: one padding character after each of A's $na zones" \
	"$(sed -n 's/^ *[0-9][0-9]* //p' /tmp/vm-cmd.out | tr -d '\n' | tr -cd '~' | wc -c)" "$na"
expect_ok "zonemap --padding of the mapping itself" $ZNP zonemap --padding /dev/mapper/$NA
expect_match "zonemap --padding of the mapping: the same sizes (from the target's status)" \
	"^padding: $NA \(dm-po2zone\), $((pa / 8)) LBAs per zone: $(((pa - za) / 8)) padding " \
	"$(cat /tmp/vm-cmd.out)"
expect_rc "zonemap --padding of B (po2, not mapped): 3" 3 $ZNP zonemap --padding "$B"

# ---- refusals ----------------------------------------------------------------
expect_rc "map A again: refused (4)" 4 $ZNP map "$A"
expect_match "map A again: says by which mapping" "already mapped as $NA" "$(cat /tmp/vm-cmd.out)"
expect_rc "map A through its ng node: refused (4)" 4 $ZNP map "$(vm_ng 0 1)"
expect_rc "map B (po2): refused (3)" 3 $ZNP map "$B"
expect_match "map B: nothing to do" "power of 2: nothing to do" "$(cat /tmp/vm-cmd.out)"
expect_rc "map C (capacity < size): refused (3)" 3 $ZNP map "$C_NG"
expect_match "map C: capacity" "capacity .* < zone size" "$(cat /tmp/vm-cmd.out)"
expect_rc "map D (conventional): refused (3)" 3 $ZNP map "$D"
expect_rc "map a missing device: 3" 3 $ZNP map /dev/nvme9n9
expect_match "missing device: one line" "^nvme-zns-npo2: /dev/nvme9n9: no such device\$" "$(cat /tmp/vm-cmd.out)"
expect_rc "map --name with a '/': usage (2)" 2 $ZNP map "$B" --name a/b
expect_rc "map --persist --restore: usage (2)" 2 $ZNP map --restore --persist
expect_ok "a foreign mapping (dm-linear on D)" dmsetup create foreign --table "0 8 linear $D 0"
expect_rc "unmap a mapping that is not ours: 3" 3 $ZNP unmap foreign
expect_match "unmap foreign: says so" "not a mapping made by this tool" "$(cat /tmp/vm-cmd.out)"
expect_ok "foreign mapping still there" dmsetup info foreign
expect_rc "unmap a missing mapping: 3" 3 $ZNP unmap nosuchmap
expect_rc "unmap an unmapped namespace: 3" 3 $ZNP unmap "$B"
expect_match "unmap B: is not mapped" "is not mapped" "$(cat /tmp/vm-cmd.out)"
expect_rc "status of a foreign mapping: 3" 3 $ZNP status foreign
exec 3</dev/mapper/$NE
expect_rc "unmap E while open: refused (4)" 4 $ZNP unmap "$E"
expect_match "unmap E open: one line, open count" "^nvme-zns-npo2: $NE: in use \(open count 1\)" "$(cat /tmp/vm-cmd.out)"
expect_ok "E still mapped" test -b /dev/mapper/$NE
expect_ok "unmap E --force while open: deferred" $ZNP unmap "$E" --force
expect_match "unmap --force: deferred" "deferred removal of $NE" "$(cat /tmp/vm-cmd.out)"
exec 3<&-
sleep 1
expect_rc "E removed at its last close" 1 dmsetup info $NE
expect_eq "unmap forgot E in the mapping file" "$(grep -c "^$NE " $CONF)" 0

# ---- dry run: the printed dmsetup command is equivalent, nothing changes ----------
expect_ok "map E --dry-run" $ZNP map "$E" --dry-run
cmdline=$(head -1 /tmp/vm-cmd.out)
expect_match "dry run prints a dmsetup create command" "^dmsetup create $NE --uuid ZNPO2-sn:znsnpo2-c1:nsid:1 --table '0 $((ne * $(po2_roundup "$ze"))) po2zone $E'\$" "$cmdline"
expect_rc "dry run created nothing" 1 dmsetup info $NE
expect_eq "dry run recorded nothing" "$(grep -c "^$NE " $CONF)" 0
expect_ok "the printed command works" sh -c "$cmdline"
dmsetup table $NE >/tmp/dry.table
dmsetup remove $NE
expect_ok "map E for real" $ZNP map "$E"
dmsetup table $NE >/tmp/real.table
expect_same "dry-run command and map load the same table" /tmp/dry.table /tmp/real.table
expect_ok "unmap E by mapping name" $ZNP unmap $NE
expect_rc "E gone" 1 dmsetup info $NE
expect_ok "name conflict: map E --name foreign refused" sh -c "$ZNP map $E --name foreign; [ \$? = 4 ]"
dmsetup remove foreign

# ---- a SIGKILL at every creation step leaves no half-made mapping --------------
for step in 1 2 3 4 5; do
	ZNP_TEST_MAP_KILL_AT=$step $ZNP map "$E" --persist >/tmp/kill.out 2>&1
	expect_eq "kill at step $step: map died of SIGKILL" "$?" 137
	if [ "$step" -lt 5 ]; then
		expect_rc "kill at step $step: no mapping under the real name" 1 dmsetup info $NE
		expect_ok "kill at step $step: no node /dev/mapper/$NE" test ! -e /dev/mapper/$NE
	fi
	expect_eq "kill at step $step: nothing recorded" "$(grep -c "^$NE " $CONF)" 0
	dmsetup ls | sed 's/^/#   dm: /'
	if [ "$step" -lt 5 ]; then
		expect_ok "kill at step $step: the next map cleans up and maps" $ZNP map "$E"
	else
		expect_ok "kill at step 5: mapping complete" dmsetup info $NE
	fi
	no_leftovers "kill at step $step: no leftover after the next map"
	expect_report "kill at step $step: mapping works" /dev/mapper/$NE "$ze" "$ne"
	expect_ok "kill at step $step: unmap" $ZNP unmap "$E"
done
# a leftover is also removed by unmap (it is ours)
ZNP_TEST_MAP_KILL_AT=3 $ZNP map "$E" >/dev/null 2>&1
expect_ok "unmap removes a leftover by its name" $ZNP unmap "znp-creating-$NE"
no_leftovers "no leftover after unmap"
expect_ok "map E --persist (for boot 2)" $ZNP map "$E" --persist

# ---- npo2 null_blk --------------------------------------------------------------
# null_blk names the disk after its configfs directory
NB=/sys/kernel/config/nullb/npo2nb
nb=/dev/missing-nullb
if mkdir $NB; then
	echo 4096 >$NB/blocksize
	echo 96 >$NB/size
	echo 1 >$NB/memory_backed
	echo 1 >$NB/zoned
	echo 3 >$NB/zone_size
	echo 0 >$NB/zone_nr_conv
	echo 1 >$NB/power && nb=/dev/npo2nb
	i=0
	while [ ! -b "$nb" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
fi
[ -b "$nb" ] || dmesg | tail -5 | sed 's/^/#   dmesg: /'
expect_ok "npo2 null_blk $nb" test -b "$nb"
zn=$((3 * 2048))
expect_ok "map null_blk" $ZNP map "$nb" -o json
cp /tmp/vm-cmd.out /tmp/mapN.json
NN=$(jget name /tmp/mapN.json)
expect_eq "null_blk: default name" "$NN" "po2-$(basename "$nb")"
expect_report "null_blk: report shows po2 zones" /dev/mapper/$NN "$zn" 32
data_roundtrip "null_blk" /dev/mapper/$NN "$nb" "$zn" 5
expect_rc "null_blk: --persist needs a stable identity (3)" 3 $ZNP map "$nb" --persist --name other
expect_ok "unmap null_blk by device" $ZNP unmap "$nb"
expect_rc "null_blk mapping gone" 1 dmsetup info "$NN"

# ---- the mapping file for boot 2 ---------------------------------------------------
echo "nvme-missing sn:znsnpo2-c7:nsid:1 lba_size=4096" >>$CONF
section mappings-conf cat $CONF
expect_eq "mapping file: A, E and a missing namespace" "$(grep -vc '^#' $CONF)" 3
no_leftovers "no leftovers at the end"
true

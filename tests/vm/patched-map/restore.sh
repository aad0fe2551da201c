# map --restore after a reboot (boot 2 of layer 80). The mapping file from
# boot 1 is /etc/zns-npo2/mappings.conf; boot 1's instance names are in
# /vm/boot1-names ("A nvme0n1", "E nvme1n1"). The namespaces are declared
# in another order (controller 1 first), so instance names change; the
# mappings must follow the namespaces (serial + NSID), not the names.
. /vm/guest/maplib.sh

vm_summary
CONF=/etc/zns-npo2/mappings.conf
NA=po2-znsnpo2-c0-n1
NE=po2-znsnpo2-c1-n1
A=$(vm_blk 0 1) || A=/dev/missing-A
E=$(vm_blk 1 1) || E=/dev/missing-E
za=$(($(ns_conf 0 1 zsze) / 512))
na=$(($(ns_conf 0 1 size) / $(ns_conf 0 1 zsze)))
ze=$(($(ns_conf 1 1 zsze) / 512))
ne=$(($(ns_conf 1 1 size) / $(ns_conf 1 1 zsze)))

sed 's/^/# boot 1: /' /vm/boot1-names
a1=$(sed -n 's/^A //p' /vm/boot1-names)
e1=$(sed -n 's/^E //p' /vm/boot1-names)
vm_log "boot 2: A is $(basename "$A"), E is $(basename "$E")"
expect_ok "instance names changed since boot 1" \
	sh -c "[ '$a1' != '$(basename "$A")' ] || [ '$e1' != '$(basename "$E")' ]"
expect_ok "recorded mapping file present" test -s $CONF

expect_rc "nothing mapped before the restore" 1 dmsetup info $NA
# the command line of the shipped systemd unit, as systemd would run it
exe=$(sed -n 's|^ExecStart=@BINDIR@/||p' /vm/zns-npo2-restore.service)
expect_eq "unit runs map --restore" "$exe" "nvme-zns-npo2 map --restore"
expect_ok "map --restore (the unit's command line)" $exe -o json
cp /tmp/vm-cmd.out /tmp/restore.json
sed 's/^/# /' /tmp/restore.json
rows=$(tr -d '\n' </tmp/restore.json | sed 's/}, *{/}\n{/g')
expect_match "restore: A mapped on its namespace" \
	"\"name\": \"$NA\".*\"result\": \"mapped\", \"device\": \"$A\"" "$(echo "$rows" | grep "\"$NA\"")"
expect_match "restore: E mapped on its namespace" \
	"\"name\": \"$NE\".*\"result\": \"mapped\", \"device\": \"$E\"" "$(echo "$rows" | grep "\"$NE\"")"
expect_match "restore: the missing namespace is skipped with a message" \
	"\"name\": \"nvme-missing\".*\"result\": \"missing\".*\"error\": .*\"device\": \"nvme-missing\", \"message\": \"namespace not present: skipped\"" \
	"$(echo "$rows" | grep nvme-missing)"
expect_eq "restore: A's mapping sits on A" "$(mapping_slave $NA)" "$(basename "$A")"
expect_eq "restore: E's mapping sits on E" "$(mapping_slave $NE)" "$(basename "$E")"
expect_report "restore: A report" /dev/mapper/$NA "$za" "$na"
expect_report "restore: E report" /dev/mapper/$NE "$ze" "$ne"
data_roundtrip "restored A" /dev/mapper/$NA "$A" "$za" 3

expect_ok "map --restore again: idempotent" $ZNP map --restore
expect_match "restore again: already mapped" "^$NA: already-mapped" "$(cat /tmp/vm-cmd.out)"
expect_eq "restore again: still two mappings" "$($ZNP status | grep -c '^po2-')" 2
no_leftovers "restore: no leftovers"

# a recorded identity whose geometry changed is never mapped
printf '%s\n' "odd sn:znsnpo2-c1:nsid:2 lba_size=4096 zone_size=12288 nr_zones=4" \
	"bad line here" >/tmp/odd.conf
expect_rc "restore with a changed geometry and a bad line: fails (3)" 3 \
	$ZNP map --restore --config /tmp/odd.conf
expect_match "changed geometry: not mapped" "odd: failed .*geometry differs" "$(cat /tmp/vm-cmd.out)"
expect_match "bad line: reported with its line number" "line 2: " "$(cat /tmp/vm-cmd.out)"
expect_rc "changed geometry: nothing created" 1 dmsetup info odd

# an interrupted restore is completed by the next one
dmsetup remove $NE
ZNP_TEST_MAP_KILL_AT=3 $ZNP map --restore >/dev/null 2>&1
expect_rc "killed restore: E not under its name" 1 dmsetup info $NE
expect_ok "restore after the kill" $ZNP map --restore
expect_ok "E restored" dmsetup info $NE
no_leftovers "no leftovers after the second restore"
expect_eq "E still recorded once" "$(grep -c "^$NE " $CONF)" 1
true

# SPDX-License-Identifier: GPL-2.0-or-later
# Guest side of layers 58-vm-plugin (stock kernel) and 78-vm-plugin-patched
# (npo2 kernel patches), both with --preset standard:
# `nvme zns-npo2 <cmd>` (nvme-cli built with the plugin, /usr/bin/nvme-zp)
# must print exactly what `nvme-zns-npo2 <cmd>` prints, text and JSON, and
# exit with the same status, for every command of the table; `nvme help
# zns-npo2` and `nvme zns-npo2 help <cmd>` must work. Zone states are set up
# identically before each front-end runs a command that changes them.

NVME=/usr/bin/nvme-zp
ZNP=nvme-zns-npo2

A=$(vm_ng 0 1)			# npo2 96M/96M, block device hidden
B=$(vm_ng 0 2)			# po2 128M/96M
C=$(vm_ng 0 3)			# npo2 80M/64M
D=$(vm_ng 0 4)			# conventional
E=$(vm_ng 1 1)			# npo2 48M/48M, 512-byte LBAs
CTRL=/dev/$(vm_ctrl 0)
. /vm/env
PATCHED=
[ "$VM_KERNEL" = stock ] || PATCHED=1
# npo2 block device of A: only the patched kernel shows it
AB=$(vm_blk 0 1) || AB=
if [ -n "$PATCHED" ]; then
	[ -n "$AB" ] && ok "patched kernel shows A's block device $AB" ||
		not_ok "patched kernel hides A's block device"
else
	[ -z "$AB" ] && ok "stock kernel hides A's block device" ||
		not_ok "stock kernel shows A's block device $AB"
fi
ZA=$(( $(ns_conf 0 1 zsze) / $(ns_conf 0 1 lbas) ))	# zone size of A in LBAs
vm_summary

# same DESC ARGS...: both front-ends, same stdout, same stderr (modulo the
# program name), same exit status.
same() {
	local desc=$1 ra rb
	shift
	"$ZNP" "$@" >/tmp/s.out 2>/tmp/s.err
	ra=$?
	"$NVME" zns-npo2 "$@" >/tmp/p.out 2>/tmp/p.err
	rb=$?
	sed -i 's/^nvme zns-npo2: /nvme-zns-npo2: /' /tmp/p.err
	if [ "$ra" != "$rb" ]; then
		not_ok "$desc" "exit $ra (nvme-zns-npo2) vs $rb (nvme zns-npo2): $*"
		head -5 /tmp/s.err /tmp/p.err | sed 's/^/#   | /'
	elif ! cmp -s /tmp/s.out /tmp/p.out; then
		not_ok "$desc" "stdout differs: $*"
		diff /tmp/s.out /tmp/p.out | head -20 | sed 's/^/#   | /'
	elif ! cmp -s /tmp/s.err /tmp/p.err; then
		not_ok "$desc" "stderr differs: $*"
		diff /tmp/s.err /tmp/p.err | head -10 | sed 's/^/#   | /'
	else
		ok "$desc (exit $ra, $(wc -c </tmp/s.out) bytes)"
	fi
	SAME_RC=$ra
}

# same_after PREP DESC ARGS...: run the shell command PREP before each
# front-end (it restores the zone state the command starts from).
same_after() {
	local prep=$1 desc=$2 ra rb
	shift 2
	sh -c "$prep" >/dev/null 2>&1
	"$ZNP" "$@" >/tmp/s.out 2>/tmp/s.err
	ra=$?
	sh -c "$prep" >/dev/null 2>&1
	"$NVME" zns-npo2 "$@" >/tmp/p.out 2>/tmp/p.err
	rb=$?
	sed -i 's/^nvme zns-npo2: /nvme-zns-npo2: /' /tmp/p.err
	if [ -n "${MASK_TIMING:-}" ]; then
		sed -i -e 's/in [0-9.]* s ([0-9]* IOPS)/in T s (N IOPS)/' \
			-e 's/"seconds": [0-9.e+-]*/"seconds": T/' -e 's/"iops": [0-9.e+-]*/"iops": N/' \
			/tmp/s.out /tmp/p.out
	fi
	if [ "$ra" = "$rb" ] && cmp -s /tmp/s.out /tmp/p.out && cmp -s /tmp/s.err /tmp/p.err; then
		ok "$desc (exit $ra)"
	else
		not_ok "$desc" "exit $ra vs $rb: $*"
		diff /tmp/s.out /tmp/p.out | head -10 | sed 's/^/#   | /'
		diff /tmp/s.err /tmp/p.err | head -10 | sed 's/^/#   | /'
	fi
	SAME_RC=$ra
}

# Zone states for A's zone 1.
R1="$ZNP reset $A -s $ZA --force"
O1="$R1; $ZNP open $A -s $ZA"
F1="$R1; $ZNP finish $A -s $ZA --force"

cmd_cases() {
	local fmt
	case $1 in
	list)
		for fmt in normal json; do
			same "list -o $fmt" list -o $fmt
		done
		same "list -H" list -H
		same "list -v" list --verbose
		;;
	report)
		for dev in "$A" "$B" "$C" "$E"; do
			same "report $dev" report "$dev"
			same "report $dev -o json" report "$dev" -o json
		done
		same "report -s -c -H" report "$A" -s $((ZA + 5)) -c 2 -H
		same "report --state=empty -o json" report "$A" --state=empty -o json
		same "report -S full" report "$A" -S full
		same "report -n 1 (right nsid)" report "$A" -n 1
		same "report -n 2 (wrong nsid)" report "$A" -n 2
		same "report conventional namespace" report "$D"
		same "report controller node" report "$CTRL"
		same "report past the end" report "$A" -s 0x7fffffffff
		same "report bad --count" report "$A" -c 0
		if [ -n "$AB" ]; then
			same "report block device $AB" report "$AB"
			same "report block device $AB -o json" report "$AB" -o json -c 3
		fi
		;;
	zonemap)
		for dev in "$A" "$B" "$C" "$E"; do
			same "zonemap $dev" zonemap "$dev" --width 40
		done
		same "zonemap --color=always -s -c" zonemap "$A" --color=always -s $ZA -c 3 -w 30
		same "zonemap --padding" zonemap "$A" --padding -w 60
		same "zonemap --svg -" zonemap "$A" --svg - -c 4
		same "zonemap conventional namespace" zonemap "$D"
		same "zonemap bad --width" zonemap "$A" --width 0
		;;
	check)
		for dev in "$A" "$B" "$C" "$D" "$E" $AB; do
			same "check $dev" check "$dev"
			same "check $dev -o json" check "$dev" -o json -H
		done
		;;
	open)
		same_after "$R1" "open zone 1" open "$A" -s $ZA
		same_after "$R1" "open zone 1 -o json" open "$A" -s $ZA -o json
		same "open --dry-run -c 3" open "$A" -s $ZA -c 3 --dry-run
		same "open misaligned" open "$A" -s $((ZA + 1))
		same "open conventional" open "$D" -s 0
		same "open without -s/-a" open "$A"
		;;
	close)
		same_after "$O1" "close zone 1" close "$A" -s $ZA
		same_after "$O1" "close zone 1 -o json" close "$A" -s $ZA -o json
		same_after "$O1" "close --all" close "$A" --all
		;;
	finish)
		same_after "$R1" "finish zone 1" finish "$A" -s $ZA --force
		same_after "$R1" "finish zone 1 -o json" finish "$A" -s $ZA --force -o json
		same "finish without --force, no terminal" finish "$A" -s $ZA
		;;
	reset)
		same_after "$F1" "reset zone 1" reset "$A" -s $ZA --force
		same_after "$F1" "reset --select-all -o json" reset "$A" --select-all --force -o json
		same "reset --dry-run -o json" reset "$A" -s 0 -c 4 --dry-run -o json
		same "reset --all with -s" reset "$A" --all -s 0
		;;
	offline)
		same "offline an empty zone (device refuses)" offline "$A" -s $ZA --force
		same "offline --dry-run" offline "$A" -s $ZA --dry-run
		;;
	discard)
		# timings (seconds, IOPS) are the only fields allowed to differ
		MASK_TIMING=1
		same_after "$F1" "discard zone 1" \
			discard "$A" --lba --offset $ZA --length $ZA --force
		same_after "$F1" "discard zone 1 -o json" \
			discard "$A" --lba --offset $ZA --length $ZA --force -o json -q 4
		MASK_TIMING=
		same "discard --dry-run -o json" discard "$A" --lba --offset 0 --length $((3 * ZA)) \
			--dry-run -o json
		same "discard part of a zone" discard "$A" --lba --offset $ZA --length 8 --force
		;;
	map)
		same "map an ng node" map "$A" --dry-run
		same "map po2 namespace" map "$(vm_ng 0 2)" --dry-run -o json
		if [ -z "$PATCHED" ]; then
			return
		fi
		# a real mapping through the plugin; the front-ends are compared
		# on everything that does not create a new dm minor (dry runs,
		# refusals, status, unmap --dry-run)
		same "map --dry-run" map "$AB" --name plugmap --dry-run
		same "map --dry-run -o json" map "$AB" --name plugmap --dry-run -o json
		expect_ok "nvme zns-npo2 map $AB --name plugmap" $NVME zns-npo2 map "$AB" --name plugmap
		expect_ok "/dev/mapper/plugmap is a block device" test -b /dev/mapper/plugmap
		same "map an already mapped namespace" map "$AB" --name plugmap
		same "status with a mapping" status
		same "status plugmap -o json" status plugmap -o json
		same "list shows the mapping" list -o json
		same "unmap --dry-run" unmap plugmap --dry-run -o json
		expect_ok "nvme zns-npo2 unmap plugmap" $NVME zns-npo2 unmap plugmap
		expect_ok "/dev/mapper/plugmap is gone" test ! -e /dev/mapper/plugmap
		;;
	unmap)
		same "unmap unknown mapping" unmap no-such-mapping
		;;
	status)
		same "status" status
		same "status -o json" status -o json
		;;
	export)
		same "export without --nqn" export no-such-mapping
		same "export of an unknown mapping" export no-such-mapping \
			--nqn nqn.2026-12.org.zns-npo2:plugin --allow-any-host --traddr 127.0.0.1
		same "export --remove of an unknown mapping, JSON" export no-such-mapping --remove -o json
		same "export --persist of an unknown mapping" export no-such-mapping \
			--nqn nqn.2026-12.org.zns-npo2:plugin --allow-any-host --traddr 127.0.0.1 -p
		same "export --remove --persist of an unknown mapping, JSON" export no-such-mapping \
			--remove --persist -o json
		same "export --persist without --nqn" export no-such-mapping --persist
		;;
	help)
		# nvme-cli answers `help` itself: its overview of the plugin, and
		# man pages for commands (checked below).
		expect_match "nvme zns-npo2 help is the plugin overview" "^  report +report zones" \
			"$($NVME zns-npo2 help)"
		;;
	version)
		# nvme-cli answers `version` itself: it names the plugin version.
		expect_match "nvme zns-npo2 version names the zns-npo2 version" \
			"zns-npo2 version $($ZNP version -o json | sed -n 's/.*"version": "\(.*\)".*/\1/p') " \
			"$($NVME zns-npo2 version)"
		;;
	*)
		not_ok "command $1 of the table has no plugin equivalence case"
		;;
	esac
}

# Every command the table lists (help output), not a fixed list.
cmds=$($ZNP help | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
expect_match "table lists commands" "list" "$cmds"
for c in $cmds; do
	cmd_cases "$c"
done

# Some state checks against the configured geometry, through the plugin.
sh -c "$F1" >/dev/null 2>&1
out=$($NVME zns-npo2 report "$A" -s $ZA -c 1 -o json | grep '"slba"')
# (the write pointer of a full zone is not valid; QEMU reports all ones)
expect_match "finished zone 1 is FULL" \
	"\"slba\": $ZA, \"wp\": [0-9]+, \"cap\": $ZA, \"state\": \"FULL\"" "$out"
if printf '%s\n' $cmds | grep -qx discard; then
	sh -c "$F1" >/dev/null 2>&1
	$NVME zns-npo2 discard "$A" --lba --offset $ZA --length $ZA --force >/dev/null 2>&1
	out=$($NVME zns-npo2 report "$A" -s $ZA -c 1 -o json | grep '"slba"')
	expect_match "nvme zns-npo2 discard reset the full zone 1" \
		"\"slba\": $ZA, \"wp\": $ZA, \"cap\": $ZA, \"state\": \"EMPTY\"" "$out"
fi
sh -c "$R1" >/dev/null 2>&1

# Exit statuses survive nvme's main(), which maps every error to 1.
$NVME zns-npo2 check "$A" >/dev/null 2>&1
rc=$?
if [ -n "$PATCHED" ]; then
	expect_eq "nvme zns-npo2 check exits with the verdict (mappable)" "$rc" 0
else
	expect_eq "nvme zns-npo2 check exits with the verdict (needs-kernel-patches)" "$rc" 11
fi
$NVME zns-npo2 report /dev/no-such-device >/dev/null 2>&1
expect_eq "nvme zns-npo2 on a missing device exits 3" "$?" 3
$NVME zns-npo2 report "$A" --no-such-option >/dev/null 2>&1
expect_eq "nvme zns-npo2 with an unknown option exits 2" "$?" 2

# nvme-cli's help paths.
out=$($NVME help zns-npo2)
for c in $cmds; do
	case $c in help | version) continue ;; esac
	expect_match "nvme help zns-npo2 lists $c" "^  $c " "$out"
done
mkdir -p /tmp/fakeman
printf '#!/bin/sh\necho "man $*"\n' >/tmp/fakeman/man
chmod +x /tmp/fakeman/man
out=$(PATH=/tmp/fakeman:$PATH $NVME zns-npo2 help report)
expect_eq "nvme zns-npo2 help report opens nvme-zns-npo2-report(1)" "$out" "man nvme-zns-npo2-report"

# The transcript for the report, and host-side JSON checks against the
# configured namespaces.
section nsconf cat /vm/ns.conf
layout() {
	ns_list | while read -r c n; do
		echo "$(vm_ng "$c" "$n") $c $n"
	done
}
section layout layout
section plugin-list-json $NVME zns-npo2 list -o json
section plugin-report-json $NVME zns-npo2 report "$E" -c 2 -o json
true

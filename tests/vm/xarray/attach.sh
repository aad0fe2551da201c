# Patched kernel: Namespace Attachment churn on a QEMU controller in an NVMe
# subsystem (nvme-subsys) with 32 namespaces (NSIDs 1-26, 64, 100, 128,
# 200, 255, 256; 128 and 200 detached at boot; 25 npo2 zoned, 26 po2
# zoned) while fio runs on NSIDs 1, 2, 23, 24 and 256, which stay attached.
# `nvme detach-ns` / `nvme attach-ns` detach and attach other namespaces
# (scattered, a range, the zoned ones, the high NSIDs, everything but the
# fio set) in several rounds; the host follows each Namespace Attribute
# Changed notice by itself. After every step the attached set the test
# keeps must be what the host shows: the per-path disks of the controller
# with their sizes and zone sizes, the subsystem's head disks in /sys/block
# and /dev, `nvme list` and `nvme-zns-npo2 list`; fio must still run. At
# the end fio's jobs have no error, the fio disks kept their names, and
# dmesg has no I/O timeout, controller reset, warning or lockdep report.
. /vm/guest/xlib.sh
SER=znsnpo2-c0
NQN=nqn.2019-08.org.qemu:znsnpo2-s0
STAY="1 2 23 24 256"

missing=
for t in nvme fio $ZNP; do
	command -v "$t" >/dev/null || { not_ok "$t in the guest"; missing=1; }
done
[ -z "$missing" ] || exit 0
C=$(vm_ctrl 0)
[ -n "$C" ] || { not_ok "QEMU controller 0 found"; exit 0; }
CNTLID=$(cat "/sys/class/nvme/$C/cntlid" 2>/dev/null)
# without an nvme-subsys (vm-run.sh --subsys 0) QEMU refuses Namespace
# Attachment: nothing below could pass
q=$(cat "/sys/class/nvme/$C/subsysnqn")
[ "$q" = "$NQN" ] || { not_ok "$C is in the QEMU subsystem $NQN" "it is in $q"; exit 0; }
ok "$C is in the QEMU subsystem"
case "$CNTLID" in
'' | *[!0-9]*) not_ok "controller ID of $C" "'$CNTLID'"; exit 0 ;;
esac
ok "$C has controller ID $CNTLID"

# every configured namespace of controller 0: "NSID SIZE ZONE"
awk '$1 == 0 {
	if ($5 == 1) print $2, int($3 / $6) * $6, $6; else print $2, $3, 0
}' /vm/ns.conf | sort -n >/tmp/all
expect_eq "32 namespaces configured" "$(wc -l </tmp/all)" 32
# the test's attached set (NSIDs), from the configuration: all but those
# QEMU keeps detached at boot
awk 'FNR == NR { if ($1 == 0) off[$2] = 1; next } !($1 in off) { print $1 }' \
	/vm/ns.detached /tmp/all >/tmp/att
expect_eq "NSIDs detached at boot" "$(awk '$1 == 0 { print $2 }' /vm/ns.detached | tr '\n' ' ')" "128 200 "

want() { awk 'FNR == NR { a[$1] = 1; next } $1 in a' /tmp/att /tmp/all; }
set_del() { # NSID...: drop from the attached set
	echo "$*" | tr ' ' '\n' | awk 'FNR == NR { d[$1] = 1; next } !($1 in d)' - /tmp/att >/tmp/att.new
	mv /tmp/att.new /tmp/att
}
set_add() { # NSID...
	{ cat /tmp/att; echo "$*" | tr ' ' '\n'; } | sort -nu >/tmp/att.new
	mv /tmp/att.new /tmp/att
}

# the subsystem's disks in /sys/block: "H NSID NAME" for a visible head
# disk with its /dev node, "P NSID" for a hidden per-path disk (the
# subsystem has one controller), "X ..." for anything else; one grep reads
# every attribute
sysblock() {
	{
		ls /dev | sed 's/^/DEV /'
		grep -H . /sys/block/nvme*n*/nsid /sys/block/nvme*n*/hidden \
			/sys/block/nvme*n*/device/subsysnqn 2>/dev/null
	} | awk -v q="$NQN" '
		$1 == "DEV" { dev[$2] = 1; next }
		{
			i = index($0, ":"); p = substr($0, 1, i - 1); v = substr($0, i + 1)
			d = p; sub(/^\/sys\/block\//, "", d); sub(/\/.*$/, "", d)
			a = p; sub(/^\/sys\/block\/[^\/]*\//, "", a)
			at[d, a] = v; disks[d] = 1
		}
		END {
			for (d in disks) {
				if (at[d, "device/subsysnqn"] != q) continue
				n = at[d, "nsid"]; h = at[d, "hidden"]
				if (d ~ /^nvme[0-9]+n[0-9]+$/ && h == 0 && (d in dev)) print "H", n, d
				else if (d ~ /^nvme[0-9]+c[0-9]+n[0-9]+$/ && h == 1) print "P", n
				else print "X", n, d, "hidden=" h, ((d in dev) ? "" : "no /dev node")
			}
		}' | sort -k2n
}
heads_of() { awk '$1 == "H" { print $2 }' /tmp/sysblock; }

# step LABEL: wait for the host to follow the attached set, then compare
step() {
	local w ids
	w=$(want)
	ids=$(echo "$w" | awk '{ printf "%s ", $1 }')
	vm_log "step: $1 ($(echo "$w" | wc -l) attached: $ids)"
	settle "$C" "$w" 60 ||
		not_ok "$1: host followed the attachments within 60 s" "$(kern_nsids "$C" | tr '\n' ' ')"
	check_views "$1" "$C" "$SER" "$w"
	sysblock >/tmp/sysblock
	expect_eq "$1: /sys/block has a visible head disk with a /dev node per attached NSID" \
		"$(heads_of | tr '\n' ' ')" "$ids"
	expect_eq "$1: /sys/block has a hidden path disk per attached NSID, nothing else" \
		"$(awk '$1 != "H" { printf "%s%s ", ($1 == "P" ? "" : $0 " "), $2 }' /tmp/sysblock)" "$ids"
	[ "$fio_pid" = 0 ] || kill -0 "$fio_pid" 2>/dev/null ||
		not_ok "$1: fio still running" "$(cat /tmp/fio-a.err)"
}

# LABEL detach|attach NSID...: nvme detach-ns / attach-ns, one command per
# NSID, back to back (the host gets overlapping notices); the attached set
# follows every command that worked
ns_cmd() {
	local l=$1 op=$2 n bad=
	shift 2
	for n in "$@"; do
		if nvme "$op-ns" "/dev/$C" -n "$n" -c "$CNTLID" >/tmp/ns-cmd.out 2>&1; then
			if [ "$op" = detach ]; then set_del "$n"; else set_add "$n"; fi
		else
			bad="$bad $n: $(cat /tmp/ns-cmd.out)"
		fi
	done
	if [ -z "$bad" ]; then ok "$l: nvme $op-ns $*"; else not_ok "$l: nvme $op-ns $*" "$bad"; fi
}
detach() { l=$1; shift; ns_cmd "$l" detach "$@"; }
attach() { l=$1; shift; ns_cmd "$l" attach "$@"; }

fio_pid=0
step "at boot"
sysblock >/tmp/sysblock
names0=$(awk -v s=" $STAY " '$1 == "H" && index(s, " " $2 " ") { print $2, $3 }' /tmp/sysblock)
expect_eq "head disks of the fio NSIDs" "$(echo "$names0" | awk '{ printf "%s ", $1 }')" "$STAY "

# ---- fio on the namespaces that stay attached ------------------------------
# Synchronous I/O, one command a job in flight: with io_uring at depth 4
# one I/O queue of the QEMU 7.2 controller stops completing commands,
# sometimes after a dozen attach/detach commands, sometimes after 180 or
# never (I/O timeouts, aborts that find nothing, a controller reset), with
# this kernel and with Debian's stock 6.12 alike; the check at the end
# catches it should psync ever meet it too.
jobs=
for n in $STAY; do
	jobs="$jobs --name=ns$n --filename=/dev/$(echo "$names0" | awk -v n="$n" '$1 == n { print $2 }')"
done
fio --ioengine=psync --direct=1 --bs=4k --rw=randrw \
	--time_based --runtime=900 --rate_iops=50 --output-format=terse --terse-version=3 \
	$jobs >/tmp/fio-a.txt 2>/tmp/fio-a.err &
fio_pid=$!
sleep 2

# ---- round 1: scattered NSIDs, the npo2 zoned one and high NSIDs ------------
detach "round 1" 3 7 25 100 255
step "round 1: 3 7 25 100 255 detached"
attach "round 1" 128 200
step "round 1: 128 and 200 (detached at boot) attached"
attach "round 1" 3 7 25 100 255
step "round 1: 3 7 25 100 255 attached again"

# ---- round 2: a range of 13, then the po2 zoned one and more high NSIDs ------
detach "round 2" $(seq 8 20)
step "round 2: 8-20 detached"
detach "round 2" 26 64 128 255
step "round 2: 26 64 128 255 detached"
expect_rc "round 2: attach-ns of the attached NSID 200 refused" 1 \
	nvme attach-ns "/dev/$C" -n 200 -c "$CNTLID"
expect_rc "round 2: detach-ns of the detached NSID 64 refused" 1 \
	nvme detach-ns "/dev/$C" -n 64 -c "$CNTLID"
step "round 2: after the refused commands (nothing changed)"
attach "round 2" 255 $(seq 8 20) 64 26 128
step "round 2: all attached again"

# ---- round 3: everything but the fio set, with an ns-rescan racing the
# notices, and back ------------------------------------------------------
others=$(awk -v s=" $STAY " '!index(s, " " $1 " ") { printf "%s ", $1 }' /tmp/att)
detach "round 3" $others
expect_ok "round 3: nvme ns-rescan /dev/$C" nvme ns-rescan "/dev/$C"
step "round 3: only the fio NSIDs attached"
attach "round 3" $(echo "$others" | tr ' ' '\n' | sort -rn)
step "round 3: all attached again (highest NSID first)"
expect_eq "every configured namespace attached at the end" \
	"$(want | awk '{ print $1 }' | tr '\n' ' ')" "$(awk '{ print $1 }' /tmp/all | tr '\n' ' ')"

# ---- the I/O that never stopped -------------------------------------------
sysblock >/tmp/sysblock
expect_eq "the fio NSIDs kept their head disks" \
	"$(awk -v s=" $STAY " '$1 == "H" && index(s, " " $2 " ") { print $2, $3 }' /tmp/sysblock)" "$names0"
if kill -0 $fio_pid 2>/dev/null; then
	ok "fio on NSIDs $STAY was running through every step"
	kill -INT $fio_pid
else
	not_ok "fio on NSIDs $STAY was running through every step" "$(cat /tmp/fio-a.err)"
fi
wait $fio_pid
# 128: fio's status for a run ended by SIGINT; job errors are in its output
expect_eq "fio exit status after SIGINT (interrupted)" "$?" 128
fio_ok "fio on NSIDs $STAY" /tmp/fio-a.txt 5
vm_log "fio: $(awk -F';' '{ r += $6; w += $47 } END { print r " KiB read, " w " KiB written" }' /tmp/fio-a.txt)"
expect_eq "no 'failed to track namespace' messages" "$(dmesg | grep -c 'failed to track namespace')" 0
expect_eq "no I/O timeouts or controller resets in dmesg" \
	"$(dmesg | grep -cE 'timeout, (aborting|reset controller)|resetting controller')" 0
expect_eq "no kernel warnings, bug reports, oopses or lockdep reports in dmesg" \
	"$(dmesg | grep -cE 'WARNING:|BUG:|Oops|Call Trace|lockdep|circular locking|possible recursive|INFO: task|general protection|list_(add|del) corruption|refcount_t')" 0

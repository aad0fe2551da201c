#!/bin/bash
# The shipped unit and udev rule: systemd accepts the unit, it runs exactly
# `nvme-zns-npo2 map --restore` (boot 2 of tests/layers.d/80-vm-map.sh runs
# that command line from this unit), and the rule starts it for zoned NVMe
# namespaces (their block device, or the ng node of a hidden one).
# The ublk server unit runs `map --ublk --foreground --name %I` (the
# instance is the systemd-escaped mapping name), as a notify service
# restarted on failure. Both units are hardened: `systemd-analyze security`
# rates them no worse than MEDIUM (exposure below 7.5), and every exposure
# it still lists is argued in a comment of the unit. The ublk rule gives
# file system links only to devices a record of this tool names: its gate
# (PROGRAM) run against a state directory with a record and without one.
# The export unit runs `export %I` with the options of its config file and
# `export --remove %I` at stop, after the mapping's units.
#   verify-units.sh UNIT.in UBLK-UNIT.in RULES NVME_ZNS_NPO2 UBLK-RULES EXPORT-UNIT.in
set -u
unit_in=$1 ublk_in=$2 rules=$3 bin=$4 ublk_rules=$5 export_in=$6
tmp=$(mktemp -d /tmp/znp-units.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

sed -e "s|@BINDIR@|$(dirname "$(realpath "$bin")")|" -e 's|@MAPPINGS@|/etc/zns-npo2/mappings.conf|' \
	"$unit_in" >"$tmp/zns-npo2-restore.service"
cp "$(realpath "$bin")" "$tmp/nvme-zns-npo2" 2>/dev/null
if ! out=$(systemd-analyze verify --man=no "$tmp/zns-npo2-restore.service" 2>&1); then
	bad "systemd-analyze verify: $out"
fi
sed -e "s|@BINDIR@|$(dirname "$(realpath "$bin")")|" -e 's|@MAPPINGS@|/etc/zns-npo2/mappings.conf|' \
	"$ublk_in" >"$tmp/zns-npo2-ublk@.service"
if ! out=$(systemd-analyze verify --man=no "$tmp/zns-npo2-ublk@po2-test.service" 2>&1); then
	bad "systemd-analyze verify (ublk unit): $out"
fi
[ "$(grep -c '^ExecStart=@BINDIR@/nvme-zns-npo2 map --ublk --foreground --name %I$' "$ublk_in")" = 1 ] ||
	bad "ublk unit: ExecStart is not 'map --ublk --foreground --name %I'"
grep -q '^Type=notify$' "$ublk_in" || bad "ublk unit: not Type=notify"
grep -q '^Restart=on-failure$' "$ublk_in" || bad "ublk unit: no Restart=on-failure"
# the command line the unit runs is one the program accepts
"$bin" map --ublk --foreground --name po2-test --help >/dev/null ||
	bad "ublk unit: the program rejects its command line"
sed -e "s|@BINDIR@|$(dirname "$(realpath "$bin")")|" "$export_in" >"$tmp/zns-npo2-export@.service"
if ! out=$(systemd-analyze verify --man=no "$tmp/zns-npo2-export@po2-test.service" 2>&1); then
	bad "systemd-analyze verify (export unit): $out"
fi
[ "$(grep -c '^ExecStart=@BINDIR@/nvme-zns-npo2 export %I $ZNP_EXPORT_ARGS$' "$export_in")" = 1 ] ||
	bad "export unit: ExecStart is not 'export %I \$ZNP_EXPORT_ARGS'"
[ "$(grep -c '^ExecStop=@BINDIR@/nvme-zns-npo2 export --remove %I$' "$export_in")" = 1 ] ||
	bad "export unit: ExecStop is not 'export --remove %I'"
grep -q '^After=zns-npo2-restore.service zns-npo2-ublk@%i.service$' "$export_in" ||
	bad "export unit: not ordered after the mapping's units"
grep -qE '^(Requires|BindsTo|PartOf)=.*zns-npo2-ublk' "$export_in" &&
	bad "export unit: a restart of the server would end the export"
# nvmet-tcp makes a port's socket in the network namespace and cgroup of
# the process that links the subsystem to it: this unit's
grep -qE '^PrivateNetwork=(yes|true|on|1)$' "$export_in" &&
	bad "export unit: PrivateNetwork=: the TCP port would listen where no host reaches it"
grep -qE '^IPAddressDeny=' "$export_in" &&
	bad "export unit: IPAddressDeny=: its filter would drop the hosts' packets to the port"
grep -qx 'ReadWritePaths=/sys/kernel/config' "$export_in" ||
	bad "export unit: no 'ReadWritePaths=/sys/kernel/config' (the target's configfs tree)"
"$bin" export po2-test --nqn nqn.2026-12.com.example:t --traddr 192.0.2.1 --allow-any-host \
	--help >/dev/null || bad "export unit: the program rejects its command line"
"$bin" export --remove po2-test --help >/dev/null ||
	bad "export unit: the program rejects its stop command line"
[ "$(grep -c '^ExecStart=@BINDIR@/nvme-zns-npo2 map --restore$' "$unit_in")" = 1 ] ||
	bad "ExecStart is not 'nvme-zns-npo2 map --restore'"
grep -q '^Type=oneshot$' "$unit_in" || bad "not a oneshot unit"
grep -q '^RemainAfterExit=yes' "$unit_in" && bad "RemainAfterExit would stop later udev starts"
grep -q 'ENV{SYSTEMD_WANTS}+="zns-npo2-restore.service"' "$rules" || bad "rule does not want the unit"
grep -q 'ATTR{queue/zoned}=="host-managed"' "$rules" || bad "rule not limited to zoned devices"
# every rule line parses: key, operator, quoted value
if sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$rules" | grep -v '^#' | grep -v '^$' |
	grep -Ev '^([A-Z_]+(\{[^}]*\})?(==|!=|\+=|=)"[^"]*"(, *| *)?)+$' | grep -q .; then
	bad "malformed rule line in $rules"
fi
# which uevents start the unit: the rules evaluated (==, != with udev's
# globs) on the events a zoned namespace, a hidden one and others send
python3 - "$rules" <<'PY' || bad "udev rules start the unit for the wrong events"
import fnmatch, re, sys
text = re.sub(r"\\\n", "", open(sys.argv[1]).read())
rules = [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
def key_val(ev, k):
    m = re.fullmatch(r"(ENV|ATTR)\{(.*)\}", k)
    return ev.get(m.group(2) if m.group(1) == "ENV" else "attr:" + m.group(2)) if m else ev.get(k)
def wants(ev):
    for r in rules:
        ok, add = True, []
        for k, op, v in re.findall(r'([A-Z_]+(?:\{[^}]*\})?)(==|!=|\+=|=)"([^"]*)"', r):
            if op in ("==", "!="):
                have = key_val(ev, k)
                hit = have is not None and any(fnmatch.fnmatchcase(have, p) for p in v.split("|"))
                ok &= hit if op == "==" else not hit
            elif k == "ENV{SYSTEMD_WANTS}":
                add.append(v)
        if ok and "zns-npo2-restore.service" in add:
            return True
    return False
ev = lambda **kw: dict(kw)
cases = [
    (ev(ACTION="add", SUBSYSTEM="block", DEVTYPE="disk", KERNEL="nvme0n1",
        **{"attr:queue/zoned": "host-managed"}), True),
    (ev(ACTION="add", SUBSYSTEM="nvme-generic", KERNEL="ng0n2"), True),   # hidden: ng only
    (ev(ACTION="add", SUBSYSTEM="nvme-generic", KERNEL="ng1n1"), True),
    (ev(ACTION="remove", SUBSYSTEM="nvme-generic", KERNEL="ng0n2"), False),
    (ev(ACTION="add", SUBSYSTEM="block", DEVTYPE="disk", KERNEL="nvme0n1",
        **{"attr:queue/zoned": "none"}), False),
    (ev(ACTION="add", SUBSYSTEM="block", DEVTYPE="partition", KERNEL="nvme0n1p1",
        **{"attr:queue/zoned": "host-managed"}), False),
    (ev(ACTION="add", SUBSYSTEM="nvme", KERNEL="nvme0"), False),
    (ev(ACTION="add", SUBSYSTEM="block", DEVTYPE="disk", KERNEL="ublkb0",
        **{"attr:queue/zoned": "host-managed"}), False),
]
bad = [(e, w) for e, w in cases if wants(e) != w]
for e, w in bad:
    print("rule: %s %s the unit" % (e, "does not start" if w else "starts"), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
# an escaped instance (a mapping name with the characters a name may have,
# [A-Za-z0-9._+:@=#-], but ':': systemd-analyze verify of systemd 252 fails
# on a file name that holds one, valid unit name or not) is a valid unit name
inst=$(systemd-escape -- 'po2-Az09._+@=#')
if ! out=$(systemd-analyze verify --man=no "$tmp/zns-npo2-ublk@$inst.service" 2>&1); then
	bad "systemd-analyze verify (ublk unit, instance $inst): $out"
fi
# the hardening the server needs to keep (a dropped line is a regression)
for d in NoNewPrivileges=yes DevicePolicy=closed ProtectSystem=strict PrivateNetwork=yes \
	RestrictAddressFamilies=AF_UNIX UMask=0077 RuntimeDirectoryMode=0700 \
	'CapabilityBoundingSet=CAP_SYS_ADMIN CAP_SYS_RESOURCE CAP_IPC_LOCK' \
	'DeviceAllow=/dev/ublk-control rw' 'DeviceAllow=char-nvme-generic rw' \
	'ReadWritePaths=/run/zns-npo2' OOMScoreAdjust=-900; do
	grep -qx "$d" "$ublk_in" || bad "ublk unit: no '$d'"
done
grep -q '^NoNewPrivileges=yes$' "$unit_in" || bad "restore unit: no NoNewPrivileges=yes"
# systemd-analyze security: no worse than MEDIUM, each exposure argued
security() {	# UNIT-FILE UNIT-IN
	local out level
	out=$(systemd-analyze security --offline=true --no-pager "$1" 2>&1)
	level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' <<<"$out")
	if [ -z "$level" ]; then
		bad "systemd-analyze security $(basename "$1"): no exposure level: $out"
		return
	fi
	awk -v l="$level" 'BEGIN { exit !(l < 7.5) }' ||
		bad "$(basename "$1"): exposure $level, worse than MEDIUM"
	echo "# $(basename "$1"): exposure $level"
	systemd-analyze security --offline=true --threshold=74 --no-pager "$1" >/dev/null 2>&1 ||
		bad "$(basename "$1"): above --threshold=74"
	# each ✗ setting is named in a comment of the unit
	while read -r key; do
		python3 - "$key" "$2" <<'PY' || bad "$(basename "$1"): exposure '$key' not argued in a comment"
import re, sys
key, unit = sys.argv[1], sys.argv[2]
comments = " ".join(l for l in open(unit) if l.startswith("#"))
name = key.split("=~", 1)[1] if "=~" in key else key.split("/")[0].rstrip("=")
alts = [name]
m = re.fullmatch(r"(.*)\((.*)\)(.*)", name)
if m:
    alts = [m.group(1) + a + m.group(3) for a in m.group(2).split("|")]
sys.exit(0 if any(a in comments for a in alts) else 1)
PY
	done < <(sed -n 's/^✗ \([^ ]*\) .*/\1/p' <<<"$out")
}
security "$tmp/zns-npo2-ublk@po2-test.service" "$ublk_in"
security "$tmp/zns-npo2-restore.service" "$unit_in"
# ---- the ublk rule: links only for devices of this tool's servers ----
gate=$(sed -n 's/^PROGRAM!="\(.*\)", GOTO="zns_npo2_ublk_end"$/\1/p' "$ublk_rules")
[ -n "$gate" ] || bad "ublk rule: no PROGRAM gate before the links"
gl=$(grep -n '^PROGRAM!=' "$ublk_rules" | head -1 | cut -d: -f1)
for l in $(grep -n 'SYMLINK+=\|IMPORT{builtin}="blkid"' "$ublk_rules" | cut -d: -f1); do
	[ -n "$gl" ] && [ "$l" -gt "$gl" ] || bad "ublk rule: line $l (links or blkid) is not behind the gate"
done
grep -q '^KERNEL!="ublkb\[0-9\]\*", GOTO="zns_npo2_ublk_end"$' "$ublk_rules" ||
	bad "ublk rule: not limited to ublkb devices"
# the gate's command, as udev runs it (%n: the kernel number), against a test
# state directory: a record of ublkb3 lets ublkb3 through, nothing else
run_gate() {	# N DIR
	local cmd=${gate//%n/$1}
	cmd=${cmd//\/run\/zns-npo2/$2}
	cmd=${cmd#/bin/sh -c \'}
	/bin/sh -c "${cmd%\'}"
}
mkdir -p "$tmp/run"
printf 'ident=sn:x\ndev_id=3\npid=1\n' >"$tmp/run/sn_3ax.ublk"
run_gate 3 "$tmp/run" || bad "ublk rule: a recorded device (ublkb3) gets no links"
for n in 0 31 13; do
	run_gate $n "$tmp/run" && bad "ublk rule: ublkb$n, recorded by nobody, gets links"
done
rm -f "$tmp/run"/*.ublk
run_gate 3 "$tmp/run" && bad "ublk rule: ublkb3 gets links without a record"
[ $fail = 0 ] && echo "units: ok"
exit $fail

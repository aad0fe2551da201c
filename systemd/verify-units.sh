#!/bin/bash
# The shipped unit and udev rule: systemd accepts the unit, it runs exactly
# `nvme-zns-npo2 map --restore` (boot 2 of tests/layers.d/80-vm-map.sh runs
# that command line from this unit), and the rule starts it for zoned NVMe
# namespaces.
# The ublk server unit runs `map --ublk --foreground --name %i`, as a notify
# service restarted on failure.
#   verify-units.sh UNIT.in UBLK-UNIT.in RULES NVME_ZNS_NPO2
set -u
unit_in=$1 ublk_in=$2 rules=$3 bin=$4
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
[ "$(grep -c '^ExecStart=@BINDIR@/nvme-zns-npo2 map --ublk --foreground --name %i$' "$ublk_in")" = 1 ] ||
	bad "ublk unit: ExecStart is not 'map --ublk --foreground --name %i'"
grep -q '^Type=notify$' "$ublk_in" || bad "ublk unit: not Type=notify"
grep -q '^Restart=on-failure$' "$ublk_in" || bad "ublk unit: no Restart=on-failure"
# the command line the unit runs is one the program accepts
"$bin" map --ublk --foreground --name po2-test --help >/dev/null ||
	bad "ublk unit: the program rejects its command line"
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
[ $fail = 0 ] && echo "units: ok"
exit $fail

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host checks of one nvme-cli build with the zns-npo2 plugin grafted in:
#
#   tests/nvme-cli/host-checks.sh NVME NVME_CLI_TREE LABEL
#
# NVME is the built nvme binary, NVME_CLI_TREE the grafted tree (its own
# completions/ are driven), LABEL names the version in the TAP lines.
# - `nvme zns-npo2 <cmd>` against `nvme-zns-npo2 <cmd>`: stdout, stderr (program
#   name aside) and exit status identical, without devices (empty fake sysfs)
#   and on emulated NVMe ZNS namespaces (tests/emu: LD_PRELOAD ioctl emulator,
#   fake sysfs/dev), where zone operations must also leave the same zone state;
#   the reports are checked against the emulator's configuration;
# - nvme-cli's parser (unknown option -> 2), -h, `nvme help zns-npo2`,
#   `nvme zns-npo2 help <cmd>` (man page), `nvme zns-npo2 version`;
# - bash and zsh completion of `nvme zns-npo2 ...` through this version's own
#   completion files with the graft patch.
# Prints TAP-style lines and "LABEL: N checks, pass|FAILED"; exits 1 on failure.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
NVME=${1:?usage: host-checks.sh NVME NVME_CLI_TREE LABEL}
TREE=${2:?usage: host-checks.sh NVME NVME_CLI_TREE LABEL}
LABEL=${3:-nvme-cli}
ZNP=build/nvme-zns-npo2
EMU=$PWD/build/tests/emu/libznpemu.so
fail=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $LABEL: $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $LABEL: $*"; fail=1; }
for f in "$NVME" "$ZNP"; do
	[ -x "$f" ] || { echo "host-checks: $f: not built" >&2; exit 1; }
done
[ -f "$EMU" ] || { echo "host-checks: $EMU: not built (run make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Run both front-ends with the same arguments; compare stdout, stderr (with
# "nvme zns-npo2: " read as "nvme-zns-npo2: ") and exit status. With STATE set
# (a list of emulator state files), each front-end starts from no state and
# the states they leave must be identical too.
STATE=
run_one() {
	local tag=$1 f
	shift
	for f in $STATE; do rm -f "$f"; done
	"$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
	echo $? >"$tmp/$tag.rc"
	for f in $STATE; do
		if [ -f "$f" ]; then cp "$f" "$tmp/$tag.$(basename "$f")"; else : >"$tmp/$tag.$(basename "$f")"; fi
	done
}
same() {
	local ra rb f st=ok
	run_one s "$ZNP" "$@"
	run_one p "$NVME" zns-npo2 "$@"
	ra=$(cat "$tmp/s.rc") rb=$(cat "$tmp/p.rc")
	sed -i 's/^nvme zns-npo2: /nvme-zns-npo2: /' "$tmp/p.err"
	[ "$ra" = "$rb" ] && cmp -s "$tmp/s.out" "$tmp/p.out" && cmp -s "$tmp/s.err" "$tmp/p.err" || st=bad
	for f in $STATE; do
		cmp -s "$tmp/s.$(basename "$f")" "$tmp/p.$(basename "$f")" || st=bad
	done
	if [ $st = ok ]; then
		ok "same output${STATE:+, zone state} and exit $ra: $*"
	else
		bad "differs (exit $ra vs $rb): $*"
		diff "$tmp/s.out" "$tmp/p.out" | head
		diff "$tmp/s.err" "$tmp/p.err" | head
	fi
}

# 1. No NVMe device: empty fake sysfs/dev.
mkdir -p "$tmp/none/sys/class/nvme" "$tmp/none/dev"
export ZNP_SYSFS_ROOT=$tmp/none/sys ZNP_DEV_ROOT=$tmp/none/dev
same list
same list -o json
same list -o yaml
same report
same report /dev/null
same report /no/such/device -o json
same report /dev/null --start-lba=12x
same report /dev/null --state=bogus
same report /dev/null --state=full -n 1
same check /dev/null
same open /dev/null
same reset /dev/null --all -s 0
same reset /dev/null -s 0 -q 0
same finish /dev/null extra-arg
same list unexpected-arg
same discard /dev/null -f
same map /dev/null
same status
# the command line contract of the table: more arguments than a command
# takes (map: four devices), option rules
same map /dev/null b c d e --name n
same map /dev/null b c d e f g
same unmap /dev/null x
same map /dev/null --queues 2
same map --restore /dev/null
same map --ublk /dev/null --recover
same discard /dev/null -r - --offset 0
# output that cannot be written (a full disk): exit 1 and one line from both
# front-ends, although the command itself succeeded
for fe in "$ZNP" "$NVME zns-npo2"; do
	# shellcheck disable=SC2086 # "$NVME zns-npo2" is two words
	$fe list -o json >/dev/full 2>"$tmp/full.err"
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <"$tmp/full.err")" = 1 ] &&
		grep -Eq '^nvme[ -]zns-npo2: list: cannot write standard output' "$tmp/full.err"; then
		ok "$fe list -o json >/dev/full: exit 1, one line"
	else
		bad "$fe list -o json >/dev/full: exit $rc, $(cat "$tmp/full.err")"
	fi
done

# 2. Emulated namespaces: npo2 ZNS (hidden block device, mixed zone states,
# open/active limits), po2 ZNS with a visible block device, a conventional
# namespace.
e=$tmp/emu
mkdir -p "$e"
cat >"$e/emu.conf" <<'CONF'
path=dev/nvme0 kind=ctrl
path=dev/ng0n1 nsid=1 zsze=24576 zcap=24000 zones=40 max_open=6 max_active=8 preset=mixed state=ng0n1.state
path=dev/ng0n2 nsid=2 zsze=32768 zcap=24576 zones=16 state=ng0n2.state
path=dev/nvme0n2 kind=nvme twin=ng0n2
path=dev/ng0n3 nsid=3 csi=0 nlbas=65536
CONF
python3 tests/emu/mkfake.py "$e" >/dev/null || { echo "host-checks: mkfake failed" >&2; exit 1; }
export ZNP_SYSFS_ROOT=$e/sys ZNP_DEV_ROOT=$e/dev ZNP_EMU_CONFIG=$e/emu.conf
ng1=$e/dev/ng0n1 ng2=$e/dev/ng0n2 nv2=$e/dev/nvme0n2 ng3=$e/dev/ng0n3
STATE="$e/ng0n1.state $e/ng0n2.state"
export LD_PRELOAD=$EMU
same list
same list -o json
same list -v
same report "$ng1"
same report "$ng1" -o json
same report "$ng1" -H
same report "$ng1" --state=closed -o json
same report "$ng1" -s 0x12000 -c 3
same report "$ng2" -o json
same report "$nv2"
same report "$ng3"
same check "$ng1"
same check "$ng2" -o json
same check "$ng3"
same open "$ng1" -s 0x12000
same open "$ng1" -s 0x12001
same close "$ng1" -s 0xc000
same finish "$ng1" -s 0x0 -c 1
same reset "$ng1" -s 0x6000 -f
same reset "$ng1" --all -f
same reset "$ng1" --all
same offline "$ng1" -s 0x6000 -f
same open "$ng2" -s 0x8000 -c 2 -o json
same open "$nv2" -s 0x8000
same reset "$ng2" -n 1 -s 0
same discard "$ng1" --dry-run -f
same discard "$ng2" --offset=0 -l 1M --dry-run -o json
same status "$ng1"
# failures with -o json: the error as one JSON object, the same from both
same reset "$ng1" -s 0x6000 -o json
same open "$ng1" -s 0x12001 -o json
same report "$ng3" -o json
unset LD_PRELOAD
STATE=

# 2b. Devices that fail: an NVMe status at the first Identify, a report the
# device stops in its second transfer (8 KiB MDTS: 127 zones each).
f=$tmp/emu-fail
mkdir -p "$f"
cat >"$f/emu.conf" <<'CONF'
path=dev/ng1n1 ctrl=nvme1 nsid=1 zsze=0x3000 zones=200 mdts=8k fail_io=0x7a:2:0x4002
path=dev/ng2n1 ctrl=nvme2 nsid=1 zsze=0x3000 zones=4 fail_admin=0x06:1:0x6
CONF
python3 tests/emu/mkfake.py "$f" >/dev/null || { echo "host-checks: mkfake failed" >&2; exit 1; }
export ZNP_SYSFS_ROOT=$f/sys ZNP_DEV_ROOT=$f/dev ZNP_EMU_CONFIG=$f/emu.conf LD_PRELOAD=$EMU
same report "$f/dev/ng1n1" -o json
same check "$f/dev/ng2n1" -o json
"$NVME" zns-npo2 report "$f/dev/ng1n1" -o json >"$tmp/pe.json" 2>/dev/null
rc1=$?
"$NVME" zns-npo2 check "$f/dev/ng2n1" -o json >"$tmp/ce.json" 2>/dev/null
rc2=$?
unset LD_PRELOAD
if python3 - "$tmp/pe.json" "$tmp/ce.json" "$f/dev" $rc1 $rc2 <<'PY'
import json, sys
pe, ce = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
dev, rc1, rc2 = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
zl, e = pe['zone_list'], pe['error']
ok = (rc1 == 1 and len(zl) == 127 and pe['nr_reported'] == 127 and
      all(z['slba'] == i * 0x3000 for i, z in enumerate(zl)) and
      (e['nvme_status'], e['errno'], e['device']) == (0x4002, None, dev + '/ng1n1'))
c = ce['error']
ok = ok and list(ce) == ['error'] and rc2 == 1 and c['exit_code'] == 1 and \
    (c['nvme_status'], c['errno'], c['device']) == (6, None, dev + '/ng2n1')
sys.exit(0 if ok else 1)
PY
then
	ok "nvme zns-npo2 -o json failures: the partial report keeps 127 zones and the configured status 0x4002, a failed Identify is status 0x6"
else
	bad "nvme zns-npo2 -o json failures do not carry the configured errors: $(head -c 300 "$tmp/ce.json")"
fi
export ZNP_SYSFS_ROOT=$e/sys ZNP_DEV_ROOT=$e/dev ZNP_EMU_CONFIG=$e/emu.conf

# The plugin's report against the configuration (not against the tool):
# zone starts, capacities and the mixed preset's states.
LD_PRELOAD=$EMU "$NVME" zns-npo2 report "$ng1" -o json >"$tmp/r.json" 2>"$tmp/r.err"
LD_PRELOAD=$EMU "$NVME" zns-npo2 list -o json >"$tmp/l.json" 2>>"$tmp/r.err"
if python3 - "$tmp/r.json" "$tmp/l.json" <<'PY'
import json, sys
r, l = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
zsze, zcap, nz = 24576, 24000, 40
states = {0: 'EMPTY', 1: 'FULL', 2: 'CLOSED', 3: 'EMPTY', 4: 'FULL'}
zones = r['zone_list']
bad = []
if len(zones) != nz:
    bad.append('%d zones, configured %d' % (len(zones), nz))
for i, z in enumerate(zones):
    st = z['state']
    if (z['slba'], z['cap'], z['len'], st) != (i * zsze, zcap, zsze, states[i % 5]):
        bad.append('zone %d: %r' % (i, z))
ns = {n['ng']: n for n in l['namespaces']}
want = {'ng0n1': (24576, 24000, 40, False), 'ng0n2': (32768, 24576, 16, True)}
for ng, (s, c, k, po2) in want.items():
    n = ns.get(ng)
    if not n or (n['zone_size'], n['zone_cap'], n['nr_zones'], n['zone_size_po2']) != (s, c, k, po2):
        bad.append('list %s: %r' % (ng, n))
if sorted(ns) != sorted(want):
    bad.append('list namespaces %s' % sorted(ns))
for b in bad[:5]:
    print('#', b)
sys.exit(1 if bad else 0)
PY
then
	ok "nvme zns-npo2 report/list on emulated namespaces match the configured geometry and zone states"
else
	bad "nvme zns-npo2 report/list differ from the emulator's configuration"
	head -3 "$tmp/r.err"
fi
# A zone operation through the plugin reaches the (emulated) device: zone 1
# of the mixed preset is full; after the plugin's reset the emulator's own
# persisted state, read by nvme-zns-npo2, has it empty at its start.
rm -f "$e/ng0n1.state" "$e/ng0n2.state"
LD_PRELOAD=$EMU "$NVME" zns-npo2 reset "$ng1" -s 0x6000 -f >/dev/null 2>&1
LD_PRELOAD=$EMU "$ZNP" report "$ng1" -s 0x6000 -c 1 -o json >"$tmp/z1.json" 2>/dev/null
if [ -s "$e/ng0n1.state" ] && python3 -c '
import json, sys
z = json.load(open(sys.argv[1]))["zone_list"]
sys.exit(0 if len(z) == 1 and (z[0]["slba"], z[0]["wp"], z[0]["state"]) == (24576, 24576, "EMPTY") else 1)
' "$tmp/z1.json"; then
	ok "nvme zns-npo2 reset empties the full zone 1 in the emulator's state"
else
	bad "nvme zns-npo2 reset did not reach the emulated device: $(head -c 300 "$tmp/z1.json")"
fi
rm -f "$e/ng0n1.state" "$e/ng0n2.state"
export ZNP_SYSFS_ROOT=$tmp/none/sys ZNP_DEV_ROOT=$tmp/none/dev

# 3. nvme-cli's side: parser, help, man pages, version.
"$NVME" zns-npo2 report /dev/null --no-such-option >/dev/null 2>&1
[ $? = 2 ] && ok "unknown option (nvme-cli's parser) exits 2" || bad "unknown option does not exit 2"
"$NVME" zns-npo2 report -h >"$tmp/h" 2>&1 && grep -q -- '--start-lba=LBA' "$tmp/h" &&
	ok "nvme zns-npo2 report -h prints the table's usage" || bad "nvme zns-npo2 report -h"

out=$("$NVME" help zns-npo2)
cmds=$("$ZNP" help | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
[ -n "$cmds" ] || bad "nvme-zns-npo2 help lists no commands"
for c in $cmds; do
	# a here-string, not a pipe: grep -q leaving early must not fail the writer
	grep -q "^  $c " <<<"$out" && ok "nvme help zns-npo2 lists $c" ||
		bad "nvme help zns-npo2 does not list $c"
done
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "man $*"\n' >"$tmp/bin/man"
chmod +x "$tmp/bin/man"
for c in $cmds; do
	case $c in help | version) continue ;; esac
	out=$(PATH=$tmp/bin:$PATH "$NVME" zns-npo2 help "$c")
	if [ "$out" = "man nvme-zns-npo2-$c" ] && [ -s "build/Documentation/nvme-zns-npo2-$c.1" ]; then
		ok "nvme zns-npo2 help $c opens nvme-zns-npo2-$c(1), which is built"
	else
		bad "nvme zns-npo2 help $c: '$out'"
	fi
done
out=$("$NVME" zns-npo2 version)
grep -q "zns-npo2 version $("$ZNP" version | awk '{print $NF}')" <<<"$out" &&
	ok "nvme zns-npo2 version is the zns-npo2 version" || bad "nvme zns-npo2 version"

# nvme-cli 3.x generates its completions from `nvme utils dump-command-metadata`,
# which runs every command under a parse hook: the plugin must return, not
# exit, and its options must be those of the table.
if [ -f "$TREE/plugins/utils/command-metadata.c" ]; then
	"$NVME" utils dump-command-metadata >"$tmp/meta.json" 2>"$tmp/meta.err"
	rc=$?
	"$ZNP" __table >"$tmp/table.json"
	if [ $rc = 0 ] && python3 - "$tmp/meta.json" "$tmp/table.json" <<'PY'
import json, sys
meta, table = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
opts = {o['long']: o for o in table['options']}
plug = [p for p in meta['plugins'] if p['name'] == 'zns-npo2']
got = {c['name']: sorted(o['long'] for o in c['options']) for c in plug[0]['commands']} if plug else {}
def spellings(o):
    return [o['long']] + ([o['alias']] if o['alias'] else [])
want = {c['name']: sorted(s for o in c['options'] if o != 'help' for s in spellings(opts[o]))
        for c in table['commands'] if not c['hidden'] and c['name'] not in ('help', 'version')}
for c in sorted(set(got) | set(want)):
    if got.get(c) != want.get(c):
        print('# %s: metadata %s, table %s' % (c, got.get(c), want.get(c)))
sys.exit(0 if got == want else 1)
PY
	then
		ok "nvme utils dump-command-metadata lists every zns-npo2 command with the table's options"
	else
		bad "nvme utils dump-command-metadata (exit $rc): $(head -c 200 "$tmp/meta.err")"
	fi
fi

# 4. This version's completion files, patched, for `nvme zns-npo2 ...`.
if [ -f /usr/share/bash-completion/bash_completion ]; then
	python3 tests/docs/completion.py bash "$ZNP" build/completions/nvme-zns-npo2 \
		"$TREE/completions/bash-nvme-completion.sh" >"$tmp/c" 2>&1
	rc=$?
	tail -n 4 "$tmp/c" | sed 's/^/# /'
	[ $rc = 0 ] && ok "bash completion of nvme zns-npo2 through $LABEL's bash-nvme-completion.sh" ||
		bad "bash completion through $LABEL's nvme completion"
else
	bad "bash-completion is not installed (make deps)"
fi
python3 tests/docs/completion.py zsh "$ZNP" build/completions "$TREE/completions" >"$tmp/c" 2>&1
rc=$?
tail -n 4 "$tmp/c" | sed 's/^/# /'
[ $rc = 0 ] && ok "zsh completion of nvme zns-npo2 through $LABEL's _nvme" ||
	bad "zsh completion through $LABEL's _nvme"

echo "$LABEL: $n checks, $([ $fail = 0 ] && echo pass || echo FAILED)"
exit $fail

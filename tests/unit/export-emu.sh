#!/bin/bash
# export without a kernel: what `export` refuses before it writes anything to
# the NVMe target's configfs tree (a namespace node, served or not, a ublk
# mapping whose server does not serve, no nvmet, a device or NQN exported
# already, usage), and that a subsystem it could not finish is taken away
# again. On emulated namespaces (tests/emu), a fake sysfs and test records
# (ZNP_RUN_DIR). The export itself is tested in QEMU
# (tests/layers.d/47-vm-ublk-nvmet-tcp.sh).
#
#   export-emu.sh NVME_ZNS_NPO2 LIBZNPEMU MKFAKE
set -u
# shellcheck source=tests/unit/emu-lib.sh
. "$(dirname "$0")/emu-lib.sh"
emu_begin export-emu "$@"

cat >"$root/emu.conf" <<'CONF'
path=dev/nvme0 kind=ctrl serial=SN-ZNS-0
path=dev/ng0n1 nsid=1 zsze=24576 zones=10
path=dev/ng0n2 nsid=2 zsze=24576 zones=10
CONF
python3 "$MKFAKE" "$root" >/dev/null || { echo "mkfake failed" >&2; exit 1; }
mkdir -p "$root/proc/self"
printf 'Name:\tnvme-zns-npo2\nNSpid:\t1\n' >"$root/proc/self/status"
printf 'Filename\tType\tSize\tUsed\tPriority\n' >"$root/proc/swaps"
export LD_PRELOAD=$EMU ZNP_EMU_CONFIG=$root/emu.conf ZNP_SYSFS_ROOT=$root/sys \
	ZNP_DEV_ROOT=$root/dev ZNP_PROC_ROOT=$root/proc ZNP_RUN_DIR=$root/run LC_ALL=C
D=$root/dev
NQN=nqn.2026-12.org.zns-npo2:test
CFS=$root/sys/kernel/config/nvmet
go=(--nqn "$NQN" --allow-any-host --traddr 10.0.0.1)

# ---- usage (2), before anything is looked at -------------------------------------------
t "no --nqn (2)" 2 "$BIN" export ublkb5
has "... names what is missing" "$root/err" "missing --nqn or --remove"
t "--nqn without --hostnqn or --allow-any-host (2)" 2 "$BIN" export ublkb5 --nqn "$NQN" \
	--traddr 10.0.0.1
has "... who may connect" "$root/err" "who may connect"
t "--hostnqn with --allow-any-host (2)" 2 "$BIN" export ublkb5 "${go[@]}" \
	--hostnqn nqn.2026-12.org.zns-npo2:h
t "--remove with --nqn (2)" 2 "$BIN" export ublkb5 --remove --nqn "$NQN"
t "tcp without --traddr (2)" 2 "$BIN" export ublkb5 --nqn "$NQN" --allow-any-host
has "... names --traddr" "$root/err" "missing --traddr"
t "--transport fc (2)" 2 "$BIN" export ublkb5 "${go[@]}" --transport fc
t "loop with --traddr (2)" 2 "$BIN" export ublkb5 "${go[@]}" --transport loop
t "an NQN without nqn. (2)" 2 "$BIN" export ublkb5 --nqn iqn.2026-12.x:y --allow-any-host \
	--traddr 10.0.0.1
has "... says what an NQN is" "$root/err" "not an NQN"
t "an NQN with a slash (2)" 2 "$BIN" export ublkb5 --nqn nqn.2026-12.x:a/b --allow-any-host \
	--traddr 10.0.0.1

# ---- a namespace node is never exported ----------------------------------------------------
t "a namespace no mapping serves (3)" 3 "$BIN" export "$D/ng0n2" "${go[@]}"
has "... map it first" "$root/err" "ng0n2: is a namespace no mapping serves: map it first"
lines "... one line" "$root/err" 1

# a ublk mapping of ng0n2 on device 5, its server alive (this shell holds its lock);
# the ublk control node: map --ublk, dry run too, asks for the ublk driver first
mknod "$root/dev/ublk-control" c 1 3 || bad "mknod ublk-control"
t "the identity of ng0n2 (dry run)" 0 "$BIN" map --ublk "$D/ng0n2" --dry-run -o json
ident=$(sed -n 's/^  "identity": "\(.*\)",$/\1/p' "$root/out")
[ -n "$ident" ] && ok "... read" || bad "no identity in: $(head -5 "$root/out")"
key=$(printf '%s' "$ident" | LD_PRELOAD= python3 -c '
import sys
s = sys.stdin.read()
print("".join(c if c.isalnum() or c in ".-" else "_%02x" % ord(c) for c in s))')
mkdir -m 0700 "$root/run"
printf 'ident=%s\nng=ng0n2\nname=zexp\nnsid=2\ndev_id=5\npid=%s\n' "$ident" $$ >"$root/run/$key.ublk"
chmod 600 "$root/run/$key.ublk"
mkdir -p "$root/sys/block/ublkb5" "$root/sys/class/ublk-char/ublkc5"
exec 9>>"$root/run/$key.lock"
flock -x 9 || bad "cannot take the server's lock"
t "status: zexp alive" 0 "$BIN" status zexp -o json
has "... alive" "$root/out" '"health": "alive"'
t "the namespace node of a served namespace (3)" 3 "$BIN" export "$D/ng0n2" "${go[@]}"
has "... names the mapping to export instead" "$root/err" \
	"ng0n2: is the namespace itself, .* its mapping is zexp \(/dev/ublkb5\): export zexp"
lines "... one line" "$root/err" 1

# ---- the target ---------------------------------------------------------------------------------
t "no nvmet (5)" 5 "$BIN" export zexp "${go[@]}"
has "... says how to load it" "$root/err" "zexp: the kernel's NVMe target is not loaded \(modprobe nvmet nvmet-tcp\)"
mkdir -p "$CFS/subsystems" "$CFS/ports" "$CFS/hosts"
mkdir -p "$CFS/subsystems/$NQN.other/namespaces/1"
echo /dev/ublkb5 >"$CFS/subsystems/$NQN.other/namespaces/1/device_path"
t "the device exported already (4)" 4 "$BIN" export zexp "${go[@]}"
has "... by which subsystem" "$root/err" "/dev/ublkb5 is exported already \($NQN.other\)"
rm -rf "$CFS/subsystems/$NQN.other"
mkdir "$CFS/subsystems/$NQN"
t "the NQN taken (4)" 4 "$BIN" export zexp "${go[@]}"
has "... names the subsystem" "$root/err" "$NQN: an NVMe target subsystem of that name exists"
rmdir "$CFS/subsystems/$NQN"
# a directory tree is no configfs: the attributes do not appear, the
# subsystem cannot be set up and what was made is taken away again
t "a subsystem that cannot be set up (1)" 1 "$BIN" export zexp "${go[@]}"
has "... says so" "$root/err" "zexp: cannot set up subsystem $NQN"
[ -z "$(ls -A "$CFS/subsystems")$(ls -A "$CFS/ports")" ] && ok "... and leaves nothing behind" ||
	bad "left behind: $(ls -R "$CFS")"
t "--remove of a mapping not exported (3)" 3 "$BIN" export --remove zexp
has "... says so" "$root/err" "zexp: /dev/ublkb5 is not exported by the NVMe target"

# ---- --persist: the export unit's file (ZNP_CONF_DIR for /etc/zns-npo2) -----------------
export ZNP_CONF_DIR=$root/etc
conf=$ZNP_CONF_DIR/export-zexp.conf
snap() { { ls -lR "$root/etc" "$CFS" 2>&1; cat "$root"/victim 2>/dev/null; } | md5sum; }
t "--persist: a failed export (1)" 1 "$BIN" export zexp "${go[@]}" --persist
[ ! -e "$conf" ] && [ -z "$(ls -A "$CFS/subsystems")" ] && ok "... writes no export file" ||
	bad "left: $(ls -lR "$root/etc" "$CFS/subsystems" 2>&1 | head -5)"
mkdir -p "$root/etc"
echo 'not to be touched' >"$root/victim"
ln -s "$root/victim" "$conf"
before=$(snap)
t "--persist: the export file is a symbolic link (4)" 4 "$BIN" export zexp "${go[@]}" --persist
has "... names the file and the link" "$root/err" "^[^:]*: zexp: $conf is a symbolic link"
lines "... one line" "$root/err" 1
[ "$(snap)" = "$before" ] && [ -L "$conf" ] && ok "... nothing changed: link, target, configfs" ||
	bad "changed: $(ls -l "$conf"; cat "$root/victim")"
t "--remove --persist: a symbolic link (4)" 4 "$BIN" export zexp --remove --persist
[ "$(snap)" = "$before" ] && [ -L "$conf" ] && ok "... not removed" || bad "changed: $(ls -l "$conf")"
rm "$conf"
mkdir "$conf"
t "--persist: a directory at the file's name (4)" 4 "$BIN" export zexp "${go[@]}" --persist
has "... says so" "$root/err" "zexp: $conf exists and is not a regular file"
rmdir "$conf"
before=$(snap)
t "--persist: an address with a blank (2)" 2 "$BIN" export zexp --nqn "$NQN" --allow-any-host \
	--traddr '10.0.0.1 --allow-any-host' --persist
has "... names it and why" "$root/err" "10.0.0.1 --allow-any-host: cannot be recorded for the export unit"
t "--persist: a service with a quote (2)" 2 "$BIN" export zexp "${go[@]}" --trsvcid "44'20" --persist
[ "$(snap)" = "$before" ] && ok "... nothing written" || bad "changed: $(ls -lR "$root/etc")"
# a file left from an earlier boot, the mapping not exported now: only the file goes
printf 'ZNP_EXPORT_ARGS=--nqn %s --allow-any-host --traddr 10.0.0.1\n' "$NQN" >"$conf"
t "--remove --persist of a mapping not exported: the file goes (0)" 0 "$BIN" export zexp \
	--remove --persist -o json
[ ! -e "$conf" ] && ok "... removed" || bad "still there: $conf"
has "... JSON names the file, no NQN" "$root/out" "\"config\": \"$conf\""
has "... nqn null" "$root/out" '"nqn": null'
t "--remove --persist with neither export nor file (3)" 3 "$BIN" export zexp --remove --persist
has "... says so" "$root/err" "zexp: /dev/ublkb5 is not exported by the NVMe target and has no export file"
t "--persist alone (2)" 2 "$BIN" export zexp --persist
# a name no mapping has (unmapped after it was exported with --persist): only its file
conf2=$ZNP_CONF_DIR/export-zgone.conf
printf 'ZNP_EXPORT_ARGS=--nqn %s --allow-any-host --traddr 10.0.0.1\n' "$NQN" >"$conf2"
before=$(ls -A "$CFS/subsystems" "$CFS/ports")
t "--remove --persist of a name no longer mapped: the file goes (0)" 0 "$BIN" export zgone \
	--remove --persist -o json
[ ! -e "$conf2" ] && ok "... removed" || bad "still there: $conf2"
has "... JSON: no device" "$root/out" '"device": null'
has "... JSON names the file" "$root/out" "\"config\": \"$conf2\""
[ "$(ls -A "$CFS/subsystems" "$CFS/ports")" = "$before" ] && ok "... the target untouched" ||
	bad "target changed: $(ls -R "$CFS")"
printf 'ZNP_EXPORT_ARGS=--nqn %s --allow-any-host --traddr 10.0.0.1\n' "$NQN" >"$conf2"
t "... in text" 0 "$BIN" export zgone --remove --persist
has "... says it is not mapped and names the file" "$root/out" "^zgone is not mapped; forgot $conf2\$"
# with neither mapping nor file, the lookup's own refusal (here: no device-mapper, 5)
t "--remove of a name not mapped (5)" 5 "$BIN" export zgone --remove
want=$(cat "$root/err")
t "--remove --persist of a name with neither mapping nor file (5)" 5 "$BIN" export zgone \
	--remove --persist
[ "$(cat "$root/err")" = "$want" ] && ok "... the lookup's refusal, as without --persist" ||
	bad "said: $(cat "$root/err") (want: $want)"
lines "... one line" "$root/err" 1
ln -s "$root/victim" "$conf2"
t "--remove --persist of a name no longer mapped, its file a symbolic link (4)" 4 "$BIN" \
	export zgone --remove --persist
[ -L "$conf2" ] && [ "$(cat "$root/victim")" = 'not to be touched' ] && ok "... not removed" ||
	bad "changed: $(ls -l "$conf2")"
rm -f "$conf2"
unset ZNP_CONF_DIR

# ---- a server that does not serve -----------------------------------------------------------
exec 9>&-
t "status: zexp dead-quiesced" 0 "$BIN" status zexp -o json
has "... dead-quiesced" "$root/out" '"health": "dead-quiesced"'
t "a mapping whose server is gone (4)" 4 "$BIN" export zexp "${go[@]}"
has "... says why and how to start it" "$root/err" \
	"zexp: its server does not serve \(dead-quiesced\): .*systemctl start zns-npo2-ublk@zexp"
[ -z "$(ls -A "$CFS/subsystems")" ] && ok "... nothing made" || bad "made: $(ls "$CFS/subsystems")"
emu_end export-emu

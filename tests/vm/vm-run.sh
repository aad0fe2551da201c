#!/bin/bash
# Boot a kernel in QEMU (single-threaded TCG) with emulated NVMe/ZNS
# namespaces, run a guest test script in an initramfs, judge the result.
# See tests/vm/README.md for the interface and the guest environment.
set -euo pipefail

VM_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$VM_DIR/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
CACHE=$BUILD/vm
# the kernel `make deps` installs (scripts/deps.sh pins its version)
kver=$(sed -n 's/^KVER=\([0-9.]*\)$/\1/p' "$ROOT/scripts/deps.sh" 2>/dev/null)
STOCK_KVER=${STOCK_KVER:-${kver:-6.12.117}+deb12-amd64}
# or a kernel unpacked in a directory (scripts/stock-kernel.sh): its KVER
# file names it, the image is DIR/lib/modules/KVER/vmlinuz
STOCK_KDIR=${STOCK_KDIR:-}
if [ -n "$STOCK_KDIR" ]; then
	[ -r "$STOCK_KDIR/KVER" ] || { echo "vm-run: $STOCK_KDIR/KVER missing (scripts/stock-kernel.sh)" >&2; exit 2; }
	STOCK_KVER=$(cat "$STOCK_KDIR/KVER")
fi
# Stock kernel modules loaded in the guest (with their modules.dep closure),
# NAME or NAME:param=value[:param=value].
STOCK_MODULES=${STOCK_MODULES:-"configfs nvme null_blk:nr_devices=0 dm-mod"}
# Tools copied with their shared libraries (first match on PATH).
TOOLS="nvme blkzone blkdiscard fio dmsetup mkfs.f2fs fsck.f2fs flock"

usage() {
	cat <<EOF
usage: $0 --kernel stock|BZIMAGE --guest SCRIPT [options]
  --kernel stock|PATH   Debian's stock $STOCK_KVER kernel (+ modules; STOCK_KDIR=DIR: the one
                        unpacked there by scripts/stock-kernel.sh), or a bzImage with drivers built in
  --guest SCRIPT        guest script, run by /init with sh after sourcing tests/vm/guest/lib.sh
  --ns SPEC             ctrl=N,nsid=N,size=1G,lbas=4096[,zoned=1,zsze=96M,zcap=96M,max_open=N,max_active=N][,detached=1]
                        [,ms=N,mset=0|1,pi=0..3,pil=0|1][,zdes=BYTES]
                        (repeatable; one NVMe controller per distinct ctrl; detached=1: in the
                        subsystem but not attached at boot, needs --subsys; ms/mset/pi/pil: the
                        LBA format's metadata bytes, extended LBA, PI type and location; zdes:
                        zone descriptor extension size, zoned.descr_ext_size)
  --subsys CTRL         put controller CTRL in an NVMe subsystem of its own (nvme-subsys, so that
                        Namespace Attachment works; the host sees it as multipath); repeatable
  --preset standard     ctrl0: A 96M/96M, B 128M/96M, C 80M/64M, D conventional; ctrl1: E 48M/48M on 512 B LBAs
  --timeout SEC         whole-run limit, host side (default 300); the guest script gets SEC-30
  --log FILE            console log (default build/vm-logs/<guest>-<time>.log)
  --mem SIZE            guest memory (default 2G)
  --append ARGS         extra kernel command-line arguments
  --add HOST[:GUEST]    extra file for the initramfs (default GUEST path: /usr/bin/<name>)
  --modules "M ..."     extra stock-kernel modules to load (M? only where the kernel has M)
  --net listen=ADDR:PORT|connect=ADDR:PORT[,mac=MAC]
                        a virtio-net NIC (eth0) on a QEMU socket network shared with another run:
                        start the listen side first; --ns may then be left out
  --reboots N           the guest may reboot N times (a node's reboot): QEMU runs without
                        -no-reboot; a guest script that creates /tmp/vm-reboot ends its boot
                        with a reboot instead of a poweroff; each boot prints a GUEST-RESULT
                        line, and the run needs N+1 of them (their counts are added)
  --quiet               do not echo the console on stdout
Exit: 0 pass; 1 failed tests, missing result line, kernel BUG/WARNING/Oops/panic,
or timeout; 2 usage.
EOF
}

die() { echo "vm-run: $*" >&2; exit 2; }

kernel= guest= preset= timeout=300 log= mem=2G append= quiet=0 reboots=0
nsspecs=() adds=() extra_modules= net=
declare -A subsys=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift ;;
	--guest) guest=$2; shift ;;
	--ns) nsspecs+=("$2"); shift ;;
	--preset) preset=$2; shift ;;
	--subsys)
		case "$2" in ''|*[!0-9]*) die "bad --subsys $2" ;; esac
		subsys[$2]=1; shift ;;
	--timeout) timeout=$2; shift ;;
	--log) log=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--add) adds+=("$2"); shift ;;
	--modules) extra_modules=$2; shift ;;
	--net) net=$2; shift ;;
	--quiet) quiet=1 ;;
	--reboots)
		case "$2" in ''|*[!0-9]*) die "bad --reboots $2" ;; esac
		reboots=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
[ -n "$kernel" ] && [ -n "$guest" ] || { usage >&2; exit 2; }
[ -f "$guest" ] || die "guest script $guest not found"
case "$timeout" in ''|*[!0-9]*) die "bad --timeout $timeout" ;; esac

case "$preset" in
'') ;;
standard)
	nsspecs=(
		"ctrl=0,nsid=1,size=1G,lbas=4096,zoned=1,zsze=96M,zcap=96M"
		"ctrl=0,nsid=2,size=1G,lbas=4096,zoned=1,zsze=128M,zcap=96M"
		"ctrl=0,nsid=3,size=1G,lbas=4096,zoned=1,zsze=80M,zcap=64M"
		"ctrl=0,nsid=4,size=256M,lbas=4096"
		"ctrl=1,nsid=1,size=480M,lbas=512,zoned=1,zsze=48M,zcap=48M"
		"${nsspecs[@]}"
	)
	;;
*) die "unknown preset $preset" ;;
esac
[ ${#nsspecs[@]} -gt 0 ] || [ -n "$net" ] || die "no namespaces: give --ns or --preset"

# --net: one virtio-net NIC on a QEMU socket network (two runs, one listens)
netargs=()
if [ -n "$net" ]; then
	sock= mac=
	IFS=, read -ra kvs <<<"$net"
	for kv in "${kvs[@]}"; do
		case "$kv" in
		listen=?*:[0-9]*|connect=?*:[0-9]*) sock=$kv ;;
		mac=??:??:??:??:??:??) mac=${kv#mac=} ;;
		*) die "--net $net: bad $kv" ;;
		esac
	done
	[ -n "$sock" ] || die "--net $net: needs listen=ADDR:PORT or connect=ADDR:PORT"
	# distinct default addresses for the two ends
	[ -n "$mac" ] || case "$sock" in listen=*) mac=52:54:00:00:00:01 ;; *) mac=52:54:00:00:00:02 ;; esac
	netargs=(-netdev "socket,id=n0,$sock" -device "virtio-net-pci,netdev=n0,mac=$mac")
fi

# size with optional K/M/G suffix -> bytes
bytes() {
	local v=$1 n m=1
	case "$v" in
	*[kK]) m=1024; n=${v%?} ;;
	*[mM]) m=$((1024 * 1024)); n=${v%?} ;;
	*[gG]) m=$((1024 * 1024 * 1024)); n=${v%?} ;;
	*) n=$v ;;
	esac
	case "$n" in ''|*[!0-9]*) die "bad size '$v'" ;; esac
	echo $((n * m))
}

if [ "$kernel" = stock ]; then
	kimage=/boot/vmlinuz-$STOCK_KVER
	[ -z "$STOCK_KDIR" ] || kimage=$STOCK_KDIR/lib/modules/$STOCK_KVER/vmlinuz
	[ -r "$kimage" ] || die "$kimage missing: run make deps"
else
	kimage=$kernel
	[ -r "$kimage" ] || die "kernel image $kimage not found"
fi

mkdir -p "$CACHE" "$BUILD/vm-logs"
gname=$(basename "$guest")
[ -n "$log" ] || log=$BUILD/vm-logs/${gname%.sh}-$(date +%Y%m%d-%H%M%S)-$$.log
mkdir -p "$(dirname "$log")"
run=$(mktemp -d "$CACHE/run.XXXXXX")
cleanup() {
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- initramfs -------------------------------------------------------------
# Three concatenated cpio archives: base (busybox, tools, their libraries;
# cached), stock modules (cached), and this run's files.

# copy_elf STAGE FILE: FILE at its real path plus its shared-library closure
copy_elf() {
	local stage=$1 f=$2 lib
	cp -L --parents "$f" "$stage"
	# ldd lines: "libx.so => /path (addr)" or "/lib64/ld-linux... (addr)"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
		case "$lib" in
		"$ROOT"/*)	# our own shared libraries: on the default search path
			cp -L "$lib" "$stage/usr/lib/x86_64-linux-gnu/" ;;
		*)
			[ -e "$stage$lib" ] || cp -L --parents "$lib" "$stage" ;;
		esac
	done
}

mkcpio() { (cd "$1" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) >"$2"; }

tool_paths() {
	local t
	echo "$(command -v busybox)"
	for t in $TOOLS; do
		PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t" || die "$t not installed: run make deps"
	done
}

build_base() {
	local stage=$CACHE/base.stage f a
	rm -rf "$stage"
	mkdir -p "$stage"/{usr/bin,usr/sbin,usr/lib,usr/lib64,bbin,proc,sys,dev,tmp,run,root,mnt,etc,vm/guest}
	ln -s usr/bin "$stage/bin"
	ln -s usr/sbin "$stage/sbin"
	ln -s usr/lib "$stage/lib"
	ln -s usr/lib64 "$stage/lib64"
	cp -L "$(command -v busybox)" "$stage/bbin/busybox"
	for a in $("$stage/bbin/busybox" --list); do
		[ "$a" = busybox ] || ln -s busybox "$stage/bbin/$a"
	done
	ln -s /bbin/busybox "$stage/usr/bin/sh"
	for f in $(tool_paths | tail -n +2); do
		copy_elf "$stage" "$(readlink -f "$f")"
		# keep the name the tool is called by
		[ -e "$stage$f" ] || ln -s "$(readlink -f "$f")" "$stage$f"
	done
	echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
	echo "root:x:0:" >"$stage/etc/group"
	mkdir -p "$stage/etc/nvme"
	mkcpio "$stage" "$CACHE/base.cpio.tmp"
	mv "$CACHE/base.cpio.tmp" "$CACHE/base.cpio"
	rm -rf "$stage"
}

build_modules() {
	local list=$1 out=$2 stage=$CACHE/mod.stage mdir=${STOCK_KDIR:+$STOCK_KDIR}/lib/modules/$STOCK_KVER m dep p
	rm -rf "$stage"
	mkdir -p "$stage/lib/modules"
	: >"$stage/lib/modules/load.list"
	local order=()
	declare -A margs=()
	# resolve_mod NAME: dependencies first (modules.dep lists them)
	resolve_mod() {
		local name=$1 path deps d
		path=$(grep -E "/${name//[-_]/[-_]}\.ko(\.xz|\.zst)?:" "$mdir/modules.dep" | head -1) ||
			{ grep -qsE "/${name//[-_]/[-_]}\.ko" "$mdir/modules.builtin" && return 0; die "module $name not found"; }
		deps=${path#*:}
		path=${path%%:*}
		for d in $deps; do
			d=$(basename "$d")
			resolve_mod "${d%%.ko*}"
		done
		for d in "${order[@]}"; do [ "$d" = "$path" ] && return 0; done
		order+=("$path")
	}
	# NAME or NAME:param=value[:param=value]; NAME? is loaded where the
	# kernel has it (a name one kernel has and another folded into a library)
	for m in $list; do
		if [ "${m%\?}" != "$m" ]; then
			m=${m%\?}
			grep -qsE "/${m//[-_]/[-_]}\.ko" "$mdir/modules.dep" "$mdir/modules.builtin" || {
				echo "vm-run: optional module $m: not in $STOCK_KVER" >&2
				continue
			}
		fi
		resolve_mod "${m%%:*}"
		[ "${m#*:}" = "$m" ] || margs[${m%%:*}]=$(echo "${m#*:}" | tr : ' ')
	done
	for p in "${order[@]}"; do
		m=$(basename "$p")
		case "$m" in
		*.xz) xz -dc "$mdir/$p" >"$stage/lib/modules/${m%.xz}"; m=${m%.xz} ;;
		*.zst) zstd -qdc "$mdir/$p" >"$stage/lib/modules/${m%.zst}"; m=${m%.zst} ;;
		*) cp "$mdir/$p" "$stage/lib/modules/$m" ;;
		esac
		dep=${m%.ko}
		p=${margs[$dep]:-${margs[${dep//_/-}]:-}}
		echo "$m $p" >>"$stage/lib/modules/load.list"
	done
	mkcpio "$stage" "$out.tmp"
	mv "$out.tmp" "$out"
	rm -rf "$stage"
}

{
	flock 9
	base_key=$( (tool_paths | xargs readlink -f | xargs stat -c "%n %s %Y"; declare -f build_base copy_elf tool_paths mkcpio; echo "$TOOLS") | sha1sum | cut -c1-16)
	if [ "$(cat "$CACHE/base.key" 2>/dev/null)" != "$base_key" ] || [ ! -s "$CACHE/base.cpio" ]; then
		echo "vm-run: building base initramfs" >&2
		build_base
		echo "$base_key" >"$CACHE/base.key"
	fi
	modcpio=
	if [ "$kernel" = stock ]; then
		mods="$STOCK_MODULES $extra_modules"
		mkey=$(echo "$STOCK_KDIR $STOCK_KVER $mods" | cat - "$0" | sha1sum | cut -c1-16)
		modcpio=$CACHE/modules-$mkey.cpio
		[ -s "$modcpio" ] || build_modules "$mods" "$modcpio"
	fi
} 9>"$CACHE/.lock"

stage=$run/stage
mkdir -p "$stage"/{vm/guest,usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,etc}
for d in bin sbin lib lib64; do ln -s usr/$d "$stage/$d"; done
cp "$VM_DIR/init" "$stage/init"
chmod 755 "$stage/init"
cp "$VM_DIR/guest/lib.sh" "$stage/vm/lib.sh"
cp "$VM_DIR/../lib/tap.sh" "$stage/vm/tap.sh"
# the guest script's directory (sibling helpers, expected data)
# (files over 1 MiB are left out: results, images)
for f in "$(dirname "$guest")"/*; do
	[ -f "$f" ] || continue
	if [ "$(stat -c %s "$f")" -gt 1048576 ]; then
		echo "vm-run: not packing $f (over 1 MiB)" >&2
		continue
	fi
	cp "$f" "$stage/vm/guest/"
done
# our binaries and helpers
# (linked with liburing when the helper uses it)
gcc_static() { gcc -static -O2 -Wall -o "$2" "$1" $(grep -q '^#include <liburing.h>' "$1" && echo -luring); }
for src in "$VM_DIR"/helpers/*.c; do
	[ -e "$src" ] || continue
	out=$CACHE/bin/$(basename "$src" .c)
	mkdir -p "$CACHE/bin"
	if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
		gcc_static "$src" "$out.tmp.$$" && mv "$out.tmp.$$" "$out"
	fi
	cp "$out" "$stage/usr/bin/"
done
# the binary under test: build/nvme-zns-npo2 (or where meson puts it)
for znp in "${ZNP_BIN:-}" "$BUILD/nvme-zns-npo2"; do
	[ -n "$znp" ] && [ -x "$znp" ] || continue
	znp=$(readlink -f "$znp")
	copy_elf "$stage" "$znp"
	mv "$stage$znp" "$stage/usr/bin/nvme-zns-npo2"
	break
done
for a in ${adds[@]+"${adds[@]}"}; do
	hp=${a%%:*}
	gp=/usr/bin/$(basename "$hp")
	[ "$a" != "$hp" ] && gp=${a#*:}
	[ -e "$hp" ] || die "--add: $hp not found"
	mkdir -p "$stage$(dirname "$gp")"
	if file -L "$hp" 2>/dev/null | grep -q 'dynamically linked'; then
		copy_elf "$stage" "$(readlink -f "$hp")"
		[ "$(readlink -f "$hp")" = "$gp" ] || mv "$stage$(readlink -f "$hp")" "$stage$gp"
	else
		cp -L "$hp" "$stage$gp"
	fi
done
# drop host build paths copied by copy_elf (only their libraries are kept)
rm -rf "${stage:?}$ROOT"

# ---- namespaces ------------------------------------------------------------
qargs=()
declare -A ctrls=()
nsconf="# ctrl nsid size lbas zoned zsze zcap (bytes)"
detached_conf="# ctrl nsid of the namespaces not attached at boot"
i=0
for spec in "${nsspecs[@]}"; do
	ctrl= nsid= size= lbas=4096 zoned=0 zsze= zcap= max_open= max_active= detached=0
	ms= mset= pi= pil= zdes=
	IFS=, read -ra kvs <<<"$spec"
	for kv in "${kvs[@]}"; do
		k=${kv%%=*} v=${kv#*=}
		case "$k" in
		ctrl|nsid|lbas|zoned|max_open|max_active|detached|ms|mset|pi|pil|zdes)
			case "$v" in ''|*[!0-9]*) die "--ns $spec: bad $k" ;; esac
			printf -v "$k" '%s' "$v" ;;
		size|zsze|zcap) printf -v "$k" '%s' "$(bytes "$v")" ;;
		*) die "--ns $spec: unknown key $k" ;;
		esac
	done
	[ -n "$ctrl" ] && [ -n "$nsid" ] && [ -n "$size" ] || die "--ns $spec: ctrl, nsid and size are required"
	[ "$zoned" = 1 ] && [ -z "$zsze" ] && die "--ns $spec: zoned needs zsze"
	[ "$zoned" = 1 ] && [ -z "$zcap" ] && zcap=$zsze
	[ "$zoned" = 1 ] || { zsze=0; zcap=0; }
	[ "$detached" = 1 ] && [ -z "${subsys[$ctrl]:-}" ] && die "--ns $spec: detached needs --subsys $ctrl"
	img=$run/c${ctrl}n${nsid}.img
	truncate -s "$size" "$img"
	if [ -z "${ctrls[$ctrl]:-}" ]; then
		ctrls[$ctrl]=1
		if [ -n "${subsys[$ctrl]:-}" ]; then
			qargs+=(-device "nvme-subsys,id=subsys$ctrl,nqn=znsnpo2-s$ctrl")
			qargs+=(-device "nvme,id=nvme$ctrl,serial=znsnpo2-c$ctrl,subsys=subsys$ctrl")
		else
			qargs+=(-device "nvme,id=nvme$ctrl,serial=znsnpo2-c$ctrl")
		fi
	fi
	# discard=unmap: DSM deallocate really deallocates (reads back zeros, as on drives with DLFEAT)
	qargs+=(-drive "file=$img,if=none,id=d$i,format=raw,cache=unsafe,discard=unmap")
	dev="nvme-ns,drive=d$i,bus=nvme$ctrl,nsid=$nsid,logical_block_size=$lbas,physical_block_size=$lbas"
	if [ "$zoned" = 1 ]; then
		dev+=",zoned=true,zoned.zone_size=$zsze,zoned.zone_capacity=$zcap"
		[ -n "$max_open" ] && dev+=",zoned.max_open=$max_open"
		[ -n "$max_active" ] && dev+=",zoned.max_active=$max_active"
		[ -n "$zdes" ] && dev+=",zoned.descr_ext_size=$zdes"
	fi
	[ "$zoned" = 1 ] || [ -z "$zdes" ] || die "--ns $spec: zdes needs zoned=1"
	[ -n "$ms" ] && dev+=",ms=$ms"
	[ -n "$mset" ] && dev+=",mset=$mset"
	[ -n "$pi" ] && dev+=",pi=$pi"
	[ -n "$pil" ] && dev+=",pil=$pil"
	if [ "$detached" = 1 ]; then
		dev+=",detached=on"
		detached_conf+=$'\n'"$ctrl $nsid"
	fi
	qargs+=(-device "$dev")
	nsconf+=$'\n'"$ctrl $nsid $size $lbas $zoned $zsze $zcap"
	i=$((i + 1))
done
for c in "${!subsys[@]}"; do
	[ -n "${ctrls[$c]:-}" ] || die "--subsys $c: no --ns on controller $c"
done
# subsystems before controllers before their namespaces on the command line
cargs=() nargs=()
for ((j = 0; j < ${#qargs[@]}; j += 2)); do
	case "${qargs[j + 1]}" in
	nvme-subsys,*) cargs=("${qargs[j]}" "${qargs[j + 1]}" ${cargs[@]+"${cargs[@]}"}) ;;
	nvme,*) cargs+=("${qargs[j]}" "${qargs[j + 1]}") ;;
	*) nargs+=("${qargs[j]}" "${qargs[j + 1]}") ;;
	esac
done

echo "$nsconf" >"$stage/vm/ns.conf"
echo "$detached_conf" >"$stage/vm/ns.detached"
gtimeout=$((timeout > 60 ? timeout - 30 : timeout / 2))
cat >"$stage/vm/env" <<EOF
VM_GUEST='$gname'
VM_GUEST_TIMEOUT=$gtimeout
VM_KERNEL='$( [ "$kernel" = stock ] && echo stock || echo bzimage)'
export VM_GUEST VM_GUEST_TIMEOUT VM_KERNEL
EOF
mkcpio "$stage" "$run/run.cpio"
cat "$CACHE/base.cpio" ${modcpio:+"$modcpio"} "$run/run.cpio" >"$run/initrd.cpio"

# ---- boot (firmware terminal escapes and CRs are stripped from the log) ------------------------------------------------------------------
echo "vm-run: booting $( [ "$kernel" = stock ] && echo "stock $STOCK_KVER" || echo "$kimage") with $gname, log $log" >&2
start=$SECONDS
set +e
if [ "$quiet" = 1 ]; then out=/dev/null; else out=/dev/stdout; fi
timeout -k 5 "$timeout" qemu-system-x86_64 \
	-machine q35 -accel tcg,thread=single -cpu max -smp 2 -m "$mem" \
	-nodefaults -no-user-config -nographic -serial stdio $([ "$reboots" = 0 ] && echo -no-reboot) \
	-kernel "$kimage" -initrd "$run/initrd.cpio" \
	-append "console=ttyS0 quiet panic=-1 oops=panic rdinit=/init $append" \
	${cargs[@]+"${cargs[@]}"} ${nargs[@]+"${nargs[@]}"} ${netargs[@]+"${netargs[@]}"} </dev/null 2>&1 |
	sed -u -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1b[a-zA-Z]//g' | tee "$log" >"$out"
rc=${PIPESTATUS[0]}
set -e
elapsed=$((SECONDS - start))

# ---- verdict ---------------------------------------------------------------
fail=()
[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && fail+=("timed out after ${timeout}s")
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && fail+=("qemu exited with status $rc")
bad=$(grep -v -e 'Kernel command line' "$log" |
	grep -E 'BUG:|WARNING:|Oops|[Pp]anic' | grep -v 'panic=' | head -5 || true)
[ -n "$bad" ] && fail+=("kernel trouble in the console log: $(echo "$bad" | head -1)")
result=$(grep -a '^GUEST-RESULT: ' "$log" | tail -1 || true)
if [ "$reboots" != 0 ]; then
	# one line per boot: N+1 of them, their counts added
	nboots=$(grep -ac '^GUEST-RESULT: ' "$log" || true)
	[ "$nboots" = $((reboots + 1)) ] || fail+=("$nboots boot(s) gave a GUEST-RESULT line, not $((reboots + 1))")
	[ -z "$result" ] || result=$(grep -a '^GUEST-RESULT: ' "$log" | sed -E 's/GUEST-RESULT: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' |
		awk '{ p += $1; f += $2 } END { printf "GUEST-RESULT: %d passed, %d failed", p, f }')
fi
if [ -z "$result" ]; then
	fail+=("no GUEST-RESULT line")
else
	nfail=$(echo "$result" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	[ "$nfail" = 0 ] || fail+=("$nfail guest test(s) failed")
	npass=$(echo "$result" | sed -E 's/GUEST-RESULT: ([0-9]+) passed.*/\1/')
	[ "$npass" -gt 0 ] || fail+=("no guest test passed")
fi
if [ ${#fail[@]} -eq 0 ]; then
	echo "vm-run: PASS $gname: ${result#GUEST-RESULT: } (${elapsed}s), log $log" >&2
	exit 0
fi
for f in "${fail[@]}"; do echo "vm-run: FAIL $gname: $f" >&2; done
grep -a '^not ok' "$log" | sed 's/^/vm-run:   /' >&2 || true
echo "vm-run: console log kept in $log" >&2
exit 1

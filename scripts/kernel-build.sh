#!/bin/bash
# Build the patched test kernel (`make kernel`): unpack Debian's
# linux-source-7.3 (fetched by scripts/kernel-source-7.3.sh), apply
# kernel-patches/series and then kernel-patches/xarray/series with git am,
# merge scripts/kernel.config over tinyconfig, build bzImage with ccache.
#
#   scripts/kernel-build.sh              both series -> build/kernel/bzImage
#   scripts/kernel-build.sh --base       unpatched base  -> build/kernel-base/bzImage
#                                        (same config; for bench/kernel-perf.sh)
#   scripts/kernel-build.sh --no-xarray  npo2 series only -> build/kernel-npo2/bzImage
#                                        (same config; for bench/kernel-xarray.sh)
#
# Nothing is rebuilt when the source version, the series, the config fragment
# and this script are unchanged and the bzImage exists. A changed series is
# applied to a clean tree (git reset to the base commit), so only the files
# the patches touch are recompiled.
#
# Environment: BUILD (default build), JOBS (default nproc), KSRC_TAR (the
# linux-source-7.3 tarball, default the one kernel-source-7.3.sh prints),
# CCACHE_DIR (ccache's default when unset).
# Besides bzImage, each output directory holds config (the .config built),
# applied (one line per applied patch), build.log and src (the git tree).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# the version the series is written against; kernel-source-7.3.sh pins
# the same version and the SHA-256 of its package
KSRC_PKG=linux-source-7.3
KSRC_VERSION=7.3.4-1~bpo13+1
KVER=7.3.4
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
FRAGMENT=$ROOT/scripts/kernel.config
PATCHES=$ROOT/kernel-patches

mode=patched
case "${1:-}" in
'') ;;
--base) mode=base ;;
--no-xarray) mode=npo2 ;;
-h|--help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "kernel: unknown option $1 (use --base, --no-xarray or nothing)" >&2; exit 2 ;;
esac

# kernel-source-7.3.sh (make deps runs it) checks the .deb's SHA-256 and
# records the version next to the tarball; it downloads only when missing
if [ -z "${KSRC_TAR:-}" ]; then
	KSRC_TAR=$(BUILD=$BUILD "$ROOT/scripts/kernel-source-7.3.sh") ||
		{ echo "kernel: scripts/kernel-source-7.3.sh failed" >&2; exit 1; }
fi

if [ "$mode" = base ]; then
	OUT=$ROOT/$BUILD/kernel-base
elif [ "$mode" = npo2 ]; then
	OUT=$ROOT/$BUILD/kernel-npo2
else
	OUT=$ROOT/$BUILD/kernel
fi
SRC=$OUT/src
LOG=$OUT/build.log

die() { echo "kernel: $*" >&2; exit 1; }
say() { echo "kernel: $*"; }

[ -r "$KSRC_TAR" ] || die "$KSRC_TAR missing: run make deps"
# not installed: the version kernel-source-7.3.sh wrote next to the tarball
have=$(cat "$(dirname "$KSRC_TAR")/VERSION" 2>/dev/null || true)
[ "$have" = "$KSRC_VERSION" ] ||
	die "$KSRC_TAR is '${have:-of unknown version}', the series is written for $KSRC_VERSION"
for t in gcc make bc bison flex ccache git; do
	command -v "$t" >/dev/null || die "$t not installed: run make deps"
done

# read_series DIR: append the patches listed in DIR/series (paths relative
# to kernel-patches/)
series=()
read_series() {
	local dir=$1 pre=${1#"$PATCHES"} p n=${#series[@]}
	pre=${pre#/}
	[ -r "$dir/series" ] || die "$dir/series missing"
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		p=${pre:+$pre/}$p
		[ -r "$PATCHES/$p" ] || die "patch $p listed in kernel-patches/${pre:+$pre/}series is missing"
		series+=("$p")
	done <"$dir/series"
	[ ${#series[@]} -gt "$n" ] || die "kernel-patches/${pre:+$pre/}series lists no patches"
}
# the npo2 series, then the nvme host xarray series on top of it
[ "$mode" = base ] || read_series "$PATCHES"
[ "$mode" = patched ] && read_series "$PATCHES/xarray"

stamp=$( {
	echo "$KSRC_PKG $KSRC_VERSION $mode"
	# contents and names relative to the checkout: the same inputs give the
	# same stamp in every clone or worktree
	for f in "$FRAGMENT" "$ROOT/scripts/kernel-build.sh"; do
		echo "${f#"$ROOT"/} $(sha256sum <"$f")"
	done
	for p in ${series[@]+"${series[@]}"}; do echo "$p $(sha256sum <"$PATCHES/$p")"; done
} | sha256sum | cut -c1-32)

if [ -s "$OUT/bzImage" ] && [ "$(cat "$OUT/stamp" 2>/dev/null)" = "$stamp" ]; then
	say "$OUT/bzImage is up to date ($mode, ${#series[@]} patches)"
	exit 0
fi
mkdir -p "$OUT"
rm -f "$OUT/stamp"

# Fixed build identity: reproducible images and ccache hits for init/version.
export KBUILD_BUILD_TIMESTAMP="$KVER" KBUILD_BUILD_USER=zns-npo2 KBUILD_BUILD_HOST=qemu
export KCONFIG_NOTIMESTAMP=1 CCACHE_BASEDIR=$ROOT
# git am / commit in the private source tree, whatever the user's config says
export GIT_AUTHOR_NAME=kernel-build GIT_AUTHOR_EMAIL=kernel-build@localhost
export GIT_COMMITTER_NAME=kernel-build GIT_COMMITTER_EMAIL=kernel-build@localhost
export GIT_AUTHOR_DATE="2024-01-01T00:00:00Z" GIT_COMMITTER_DATE="2024-01-01T00:00:00Z"
# never let git find the project repository above the source tree
export GIT_CEILING_DIRECTORIES=$OUT
g() { git -C "$SRC" -c core.autocrlf=false -c gc.auto=0 -c advice.detachedHead=false "$@"; }
BASE=refs/tags/base

# ---- source tree: unpacked once, the base committed as tag "base" ----------
# a tree of another base (an older source version) is unpacked again
base_subject="Linux $KVER ($KSRC_PKG $KSRC_VERSION)"
if [ ! -d "$SRC/.git" ] || ! g rev-parse -q --verify $BASE >/dev/null 2>&1 ||
	[ "$(g log -1 --format=%s $BASE 2>/dev/null)" != "$base_subject" ]; then
	say "unpacking $KSRC_TAR into $SRC (once)"
	rm -rf "$SRC" "$OUT/src.tmp"
	mkdir -p "$OUT/src.tmp"
	tar -xf "$KSRC_TAR" -C "$OUT/src.tmp"
	mv "$OUT/src.tmp/$KSRC_PKG" "$SRC"
	rmdir "$OUT/src.tmp"
	grep -q "^SUBLEVEL = ${KVER##*.}\$" "$SRC/Makefile" || die "$KSRC_TAR is not Linux $KVER"
	say "recording the pristine tree (git)"
	g init -q -b pristine
	# Debian's top-level .gitignore ignores everything: force-add the tree
	g add -f -A .
	g commit -q -m "$base_subject"
	g tag base
fi

# ---- patches: clean tree at base, then git am the series -------------------
say "resetting $SRC to the pristine base"
g am --abort >/dev/null 2>&1 || true
# files created by the previously applied series: Debian's .gitignore hides
# them from git clean, and git am refuses to create files that exist
added=$(g diff --name-only --diff-filter=A $BASE HEAD 2>/dev/null || true)
g checkout -q --detach $BASE
g reset -q --hard $BASE
for f in $added; do rm -f "$SRC/$f"; done
if [ ${#series[@]} -gt 0 ]; then
	say "applying ${#series[@]} patches ($mode: ${PATCHES#"$ROOT"/}/series$([ "$mode" = patched ] && echo " + xarray/series"))"
	for p in "${series[@]}"; do
		g am -q --whitespace=nowarn "$PATCHES/$p" >/dev/null 2>"$OUT/am.err" || {
			cat "$OUT/am.err" >&2
			g am --abort >/dev/null 2>&1 || true
			die "patch $p does not apply to $KVER"
		}
		echo "  applied $p"
	done
fi

# ---- config ----------------------------------------------------------------
say "configuring: tinyconfig + scripts/kernel.config"
make -s -C "$SRC" tinyconfig >/dev/null
(cd "$SRC" && ./scripts/kconfig/merge_config.sh -m -Q .config "$FRAGMENT" >/dev/null)
make -s -C "$SRC" olddefconfig >/dev/null
# every =y of the fragment must survive (catches typos and missing deps);
# options this tree does not define (a later part of the series) are skipped
missing='' absent=''
for l in $(grep -E '^CONFIG_[A-Z0-9_]+=y' "$FRAGMENT"); do
	grep -qx "$l" "$SRC/.config" && continue
	sym=${l%=y}
	if grep -rqsx --include='Kconfig*' "config ${sym#CONFIG_}" "$SRC"; then
		missing+=" $sym"
	else
		absent+=" $sym"
	fi
done
[ -z "$missing" ] || die "config options not enabled (dependency missing?):$missing"
[ -z "$absent" ] || say "options not defined by this tree, ignored:$absent"

# ---- build -----------------------------------------------------------------
total=$(cat "$OUT/objcount" 2>/dev/null || echo 1300)
say "building bzImage with ccache, $JOBS jobs (log: $LOG); a cold build takes ~15 min on 2 cores"
start=$SECONDS
set +e
n=0
# progress: one line per 100 compiled files; errors as they happen
while IFS= read -r line; do
	printf '%s\n' "$line" >>"$LOG"
	case "$line" in
	"  CC "*)
		n=$((n + 1))
		[ $((n % 100)) -eq 0 ] &&
			say "  $n files compiled (~$((n * 100 / total))%), $((SECONDS - start)) s"
		;;
	*error:*|*"Error "[0-9]*) echo "$line" ;;
	esac
done < <(: >"$LOG"; nice -n 10 make -C "$SRC" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" bzImage 2>&1
	echo "make-exit-status $?")
set -e
rc=$(tail -1 "$LOG" | sed -n 's/^make-exit-status //p')
[ "$rc" = 0 ] || { tail -30 "$LOG" >&2; die "build failed (exit ${rc:-?}), full log in $LOG"; }
[ "$n" -gt 500 ] && echo "$n" >"$OUT/objcount"
cp "$SRC/arch/x86/boot/bzImage" "$OUT/bzImage.tmp"
mv "$OUT/bzImage.tmp" "$OUT/bzImage"
cp "$SRC/.config" "$OUT/config"
g log --format='%h %s' $BASE..HEAD >"$OUT/applied"
echo "$stamp" >"$OUT/stamp"
say "built $OUT/bzImage ($(stat -c %s "$OUT/bzImage") bytes, $n files compiled, $((SECONDS - start)) s)"
ccache -s 2>/dev/null | grep -iE 'hits|cache size' | head -3 | sed 's/^/kernel:   ccache /' || true

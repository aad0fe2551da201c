#!/bin/bash
# Check every patch of kernel-patches/series on its own: apply the patches one
# at a time to a second tree (a git worktree of build/kernel/src at the
# pristine base, configured like `make kernel`), run scripts/checkpatch.pl
# --strict on each patch and build bzImage incrementally after each one.
# Slow (one incremental kernel build per patch, ccache helps): not part of
# `make test`; the result goes into the cover letter.
#
#   scripts/kernel-check-series.sh [--no-build] [--series DIR [--on-base]]
#
# --series DIR checks the series in DIR (DIR/series, e.g. kernel-patches/xarray)
# on top of the whole of kernel-patches/series, which is applied (and built)
# first without checks; with --on-base DIR is checked on the pristine base.
# Result table: build/kernel-check/result.txt (result-NAME.txt for
# --series DIR, NAME the last part of DIR). Exit 0 if every patch applies,
# builds and is checkpatch-clean (no errors, warnings or checks).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
NPO2=$ROOT/kernel-patches
PATCHES=$NPO2
SRC=$ROOT/$BUILD/kernel/src
OUT=$ROOT/$BUILD/kernel-check
TREE=$OUT/src
dobuild=1 onbase=0
while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) dobuild=0 ;;
	--series) PATCHES=$(cd "${2:?--series needs a directory}" && pwd) || exit 2; shift ;;
	--on-base) onbase=1 ;;
	*) echo "check-series: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
# the series this one is applied on top of (none for kernel-patches itself)
prereq=()
if [ "$PATCHES" != "$NPO2" ] && [ $onbase = 0 ]; then
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		prereq+=("$NPO2/$p")
	done <"$NPO2/series"
fi

die() { echo "check-series: $*" >&2; exit 1; }
say() { echo "check-series: $*"; }

# the pristine tree and the config come from `make kernel`
[ -f "$BUILD/kernel/config" ] && [ -d "$SRC/.git" ] && git -C "$SRC" rev-parse -q --verify refs/tags/base >/dev/null 2>&1 ||
	{ bash scripts/kernel-build.sh || die "make kernel failed"; }

export KBUILD_BUILD_TIMESTAMP=6.12.117 KBUILD_BUILD_USER=zns-npo2 KBUILD_BUILD_HOST=qemu
export KCONFIG_NOTIMESTAMP=1
# never let git find the project repository above the check tree
export GIT_CEILING_DIRECTORIES=$OUT
export GIT_AUTHOR_NAME=kernel-check GIT_AUTHOR_EMAIL=kernel-check@localhost
export GIT_COMMITTER_NAME=kernel-check GIT_COMMITTER_EMAIL=kernel-check@localhost
g() { git -C "$TREE" -c gc.auto=0 -c advice.detachedHead=false "$@"; }

# the config of `make kernel`, completed for the options the tree has now
# (options added by a later patch are enabled once that patch is applied)
configure() {
	cp "$BUILD/kernel/config" "$TREE/.config"
	make -s -C "$TREE" olddefconfig </dev/null >/dev/null
}

# stdin from /dev/null: kconfig must never read answers from anywhere
build() {
	nice -n 10 make -s -C "$TREE" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" bzImage \
		</dev/null >"$OUT/build.log" 2>&1
}

mkdir -p "$OUT"
if [ ! -e "$TREE/.git" ]; then
	say "creating the check tree $TREE (git worktree at base)"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$TREE" refs/tags/base || die "worktree add failed"
fi
g am --abort >/dev/null 2>&1 || true
added=$(g diff --name-only --diff-filter=A refs/tags/base HEAD 2>/dev/null || true)
g checkout -q --detach refs/tags/base && g reset -q --hard refs/tags/base || die "cannot reset $TREE"
for f in $added; do rm -f "$TREE/$f"; done
configure || die "olddefconfig failed"

for p in ${prereq[@]+"${prereq[@]}"}; do
	g am -q "$p" >/dev/null 2>&1 || { g am --abort >/dev/null 2>&1; die "prerequisite $(basename "$p") does not apply"; }
done
[ ${#prereq[@]} -eq 0 ] || configure || die "olddefconfig failed"
if [ $dobuild = 1 ]; then
	if [ ${#prereq[@]} -gt 0 ]; then
		say "building the base tree + kernel-patches/series (${#prereq[@]} patches, incremental, ccache)"
	else
		say "building the base tree (incremental, ccache)"
	fi
	build || { tail -20 "$OUT/build.log"; die "the starting tree does not build"; }
fi

res=$OUT/result.txt
[ "$PATCHES" = "$NPO2" ] || res=$OUT/result-$(basename "$PATCHES")$([ $onbase = 1 ] && echo -base).txt
say "checking $PATCHES/series on $([ ${#prereq[@]} -gt 0 ] && echo "kernel-patches/series" || echo "the pristine base")"
printf '%-4s %-9s %-10s %-12s %s\n' "#" apply build checkpatch patch >"$res"
patches=()
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	patches+=("$p")
done <"$PATCHES/series"
fail=0 i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	cp_res=$(perl "$TREE/scripts/checkpatch.pl" --strict --no-tree -q --terse \
		"$PATCHES/$p" 2>&1 | grep -cE ': (ERROR|WARNING|CHECK):')
	[ "$cp_res" -eq 0 ] && cp_txt=clean || { cp_txt="$cp_res issues"; fail=1; }
	if g am -q "$PATCHES/$p" >/dev/null 2>&1; then
		ap=ok
	else
		g am --abort >/dev/null 2>&1
		ap=FAILED fail=1
	fi
	bt=skipped
	if [ $dobuild = 1 ] && [ $ap = ok ]; then
		start=$SECONDS
		if configure && build; then
			bt="ok $((SECONDS - start))s"
		else
			bt=FAILED fail=1
			cp "$OUT/build.log" "$OUT/build-$i.log"
		fi
	fi
	printf '%-4s %-9s %-10s %-12s %s\n' "$i" "$ap" "$bt" "$cp_txt" "$p" | tee -a "$res"
	[ $ap = ok ] || break
done
if [ $fail = 0 ]; then
	[ $dobuild = 1 ] && what="apply, build" || what="apply (build skipped)"
	say "all $i patches $what and are checkpatch --strict clean"
else
	say "problems found, see $res"
fi
exit $fail

#!/bin/bash
# Check every patch of kernel-patches/series on its own: apply the patches one
# at a time to a second tree (a git worktree of build/kernel/src at the
# pristine base, configured like `make kernel`), run scripts/checkpatch.pl
# --strict on each patch, check the bisect rule on the tree and build bzImage
# incrementally after each one. Slow (one incremental kernel build per
# patch, ccache helps): not part of `make test`; the result goes into the
# cover letter.
#
#   scripts/kernel-check-series.sh [--no-build] [--skip-base] [--series DIR [--on-base]]
#
# --series DIR checks the series in DIR (DIR/series, e.g. kernel-patches/xarray)
# on top of the whole of kernel-patches/series, which is applied (and built)
# first without checks; with --on-base DIR is checked on the pristine base.
#
# --skip-base: do not build the unpatched tree first (Debian's own tree, which
# `scripts/kernel-build.sh --base` builds); the first build is then the tree
# with patch 1, mostly ccache hits after `make kernel` when patch 1 is the
# header change of the series.
#
# Bisect rule: no commit lets a zoned device with a non-power-of-2 (npo2) zone
# size into a code path that still assumes a power of 2. After each patch the
# tree is checked mechanically: a path is "open" to npo2 devices once the
# refusal that kept them out (a known line of the 7.3.4 base) is gone, and an
# open path must not contain any of the known power-of-2 masks and shifts of
# the zone size of the 7.3.4 base (the inventory below); a consumer that is
# meant to refuse npo2 devices must contain its refusal once they can exist.
# The pristine tree must hold every line of the inventory (a stale inventory
# would check nothing).
#
# Result table: build/kernel-check/result.txt (result-NAME[-base].txt for
# --series DIR, NAME the last part of DIR). Exit 0 if every patch applies,
# builds, keeps the bisect rule and is checkpatch-clean (no errors, warnings
# or checks).
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
dobuild=1 dobase=1 onbase=0
while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) dobuild=0 ;;
	--skip-base) dobase=0 ;;
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

export KBUILD_BUILD_TIMESTAMP=7.3.4 KBUILD_BUILD_USER=zns-npo2 KBUILD_BUILD_HOST=qemu
export KCONFIG_NOTIMESTAMP=1 CCACHE_BASEDIR=$ROOT
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

# ---- bisect rule ------------------------------------------------------------
# has FILE STRING: the tree's FILE contains the fixed STRING
has() { grep -qF -- "$2" "$TREE/$1"; }
# unguarded FILE STRING: STRING occurs on a line whose previous line is not a
# power-of-2 test (the fast paths the series keeps are guarded that way)
unguarded() {
	awk -v s="$2" 'index($0, s) && !index(prev, "is_power_of_2") { f = 1 } { prev = $0 }
		END { exit !f }' "$TREE/$1"
}
# gates: a path is closed while its refusal (a line of the 7.3.4 base) is there
closed_block() { has block/blk-zoned.c 'if (!zone_sectors || !is_power_of_2(zone_sectors)) {'; }
closed_nvme() { grep -A2 -F 'if (!is_power_of_2(zi->zone_size)) {' "$TREE/drivers/nvme/host/zns.c" | grep -qF 'invalid zone size'; }
closed_nullb() { has drivers/block/null_blk/main.c '!is_power_of_2(dev->zone_size)'; }
closed_dm() { has drivers/md/dm-table.c 'if (!zone_sectors || !is_power_of_2(zone_sectors))'; }
# npo2 zoned devices exist once the block layer and one driver accept them
npo2_exists() { ! closed_block && { ! closed_nvme || ! closed_nullb; }; }
# the known po2 idioms of the 7.3.4 base: gate|file|mode|string[|unless]
# (mode: has = fixed string anywhere, unguarded = not after a po2 test;
# unless: not a violation while the file refuses npo2 devices with that line).
# 7.3 already counts the zones of a disk with a division and checks dm
# table alignment and native zone append offsets with the block layer
# helpers: the 6.12 sites there are gone from the base.
PO2_SITES='
block|include/linux/blkdev.h|unguarded|sector >> ilog2(disk->queue->limits.chunk_sectors)
block|include/linux/blkdev.h|unguarded|return sector & (bdev_zone_sectors(bdev) - 1);
block|fs/zonefs/super.c|has|s_zone_sectors_shift
block|fs/zonefs/trace.h|has|s_zone_sectors_shift
block|fs/f2fs/super.c|has|nr_sectors & (zone_sectors - 1)
block|drivers/nvme/target/zns.c|has|sect & (zone_sectors - 1)
block|drivers/nvme/target/zns.c|has|& (bdev_zone_sectors(req->ns->bdev) - 1)
block|drivers/nvme/target/zns.c|has|get_capacity(bd_disk) & (bdev_zone_sectors(ns->bdev) - 1)
nvme|drivers/nvme/host/zns.c|has|>> ilog2(ns->head->zsze)
nvme|drivers/nvme/host/zns.c|has|~(ns->head->zsze - 1)
nullb|drivers/block/null_blk/zoned.c|unguarded|sect >> ilog2(dev->zone_size_sects)
nullb|drivers/block/null_blk/zoned.c|has|round_up(dev_capacity_sects, dev->zone_size_sects)
nullb|drivers/block/null_blk/zoned.c|has|dev->size & (dev->zone_size - 1)
dm|drivers/md/dm.c|has|ti->len >> ilog2(zone_sectors)
'
# consumers that must refuse npo2 devices once they exist: file|string
PO2_REFUSALS='
drivers/md/dm-zoned-target.c|ti->error = "Zone size is not a power of 2";
fs/btrfs/zoned.c|if (!is_power_of_2(zone_sectors))
'
# print the violations of the bisect rule in the tree (none: empty output)
bisect_check() {
	local gate file mode str unless open
	while IFS='|' read -r gate file mode str unless; do
		[ -n "$gate" ] || continue
		[ -n "$unless" ] && has "$file" "$unless" && continue
		case $gate in
		block) npo2_exists && open=1 || open=0 ;;
		*) npo2_exists && ! "closed_$gate" && open=1 || open=0 ;;
		esac
		[ $open = 1 ] || continue
		if [ "$mode" = unguarded ]; then
			unguarded "$file" "$str" && echo "$file: '$str' on a path open to npo2 ($gate)"
		else
			has "$file" "$str" && echo "$file: '$str' on a path open to npo2 ($gate)"
		fi
	done <<<"$PO2_SITES"
	npo2_exists || return 0
	while IFS='|' read -r file str; do
		[ -n "$file" ] || continue
		has "$file" "$str" || echo "$file: refusal '$str' missing while npo2 devices exist"
	done <<<"$PO2_REFUSALS"
}
# print the lines of the inventory the pristine tree lacks (none: empty)
inventory_check() {
	local gate file mode str unless
	while IFS='|' read -r gate file mode str unless; do
		[ -n "$gate" ] || continue
		has "$file" "$str" || echo "$file: '$str' not in the base"
	done <<<"$PO2_SITES"
	for gate in block nvme nullb dm; do
		"closed_$gate" || echo "the $gate gate is open on the base"
	done
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
stale=$(inventory_check)
[ -z "$stale" ] || { echo "$stale" >&2; die "the bisect inventory does not match the base tree"; }

for p in ${prereq[@]+"${prereq[@]}"}; do
	g am -q "$p" >/dev/null 2>&1 || { g am --abort >/dev/null 2>&1; die "prerequisite $(basename "$p") does not apply"; }
done
[ ${#prereq[@]} -eq 0 ] || configure || die "olddefconfig failed"
if [ $dobuild = 1 ] && { [ $dobase = 1 ] || [ ${#prereq[@]} -gt 0 ]; }; then
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
printf '%-4s %-9s %-10s %-12s %-8s %s\n' "#" apply build checkpatch bisect patch >"$res"
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
	bs=-
	if [ $ap = ok ]; then
		bisect_check >"$OUT/bisect-$i.txt"
		if [ -s "$OUT/bisect-$i.txt" ]; then
			bs=FAILED fail=1
			sed "s/^/check-series: patch $i: /" "$OUT/bisect-$i.txt" >&2
		else
			bs=ok
			rm -f "$OUT/bisect-$i.txt"
		fi
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
	printf '%-4s %-9s %-10s %-12s %-8s %s\n' "$i" "$ap" "$bt" "$cp_txt" "$bs" "$p" | tee -a "$res"
	[ $ap = ok ] || break
done
if [ $fail = 0 ]; then
	[ $dobuild = 1 ] && what="apply, build" || what="apply (build skipped)"
	say "all $i patches $what, keep the bisect rule and are checkpatch --strict clean"
else
	say "problems found, see $res"
fi
exit $fail

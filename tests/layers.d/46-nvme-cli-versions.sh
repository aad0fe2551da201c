#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 46: the same plugin source grafted into the newer nvme-cli people run,
# built offline from the vendor tarballs (scripts/vendor.sh): 2.13 (Debian 13,
# libnvme 1.13 as subproject), 2.16 (last 2.x, libnvme 1.16.2), 3.0-rc1
# (libnvme 3 in its tree). Each is built once (its own build directory,
# ccache) and gets layer 45's host checks (tests/nvme-cli/host-checks.sh)
# through its own completion files. An unknown nvme-cli version must be
# refused with a one-line error naming it.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
fail=0
summary=()
for v in 2.13 2.16 3.0-rc1; do
	echo "=== nvme-cli $v"
	start=$SECONDS
	if ! bash scripts/build-nvme-cli.sh --version="$v"; then
		summary+=("$v: build FAILED ($((SECONDS - start)) s)")
		fail=1
		continue
	fi
	built=$((SECONDS - start))
	start=$SECONDS
	bash tests/nvme-cli/host-checks.sh "build/nvme-cli-$v/nvme" "build/nvme-cli-$v/tree" "nvme-cli-$v" >"build/nvme-cli-$v/host-checks.log" 2>&1
	rc=$?
	cat "build/nvme-cli-$v/host-checks.log"
	summary+=("$v: build ${built} s, $(tail -n1 "build/nvme-cli-$v/host-checks.log") ($((SECONDS - start)) s)")
	[ $rc = 0 ] || fail=1
done

# A tree the graft does not know: one line naming the version, exit 2, tree untouched.
echo "=== unknown nvme-cli version"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t/plugins"
printf "project('nvme-cli', ['c'],\n    version: '2.11',\n)\n" >"$tmp/t/meson.build"
: >"$tmp/t/plugin.h"
: >"$tmp/t/plugins/meson.build"
cp -a "$tmp/t" "$tmp/orig"
out=$(bash plugins/zns-npo2/graft.sh "$tmp/t" 2>&1)
rc=$?
if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && grep -q 'nvme-cli 2\.11' <<<"$out" &&
	diff -r "$tmp/orig" "$tmp/t" >/dev/null; then
	summary+=("unknown version: refused (\"$out\")")
else
	summary+=("unknown version: NOT refused properly (exit $rc: $out)")
	fail=1
fi
out=$(bash scripts/build-nvme-cli.sh "$tmp/t" 2>&1)
rc=$?
if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && grep -q 'nvme-cli 2\.11' <<<"$out" &&
	diff -r "$tmp/orig" "$tmp/t" >/dev/null; then
	summary+=("NVME_CLI_SRC of nvme-cli 2.11: refused (\"$out\")")
else
	summary+=("NVME_CLI_SRC of nvme-cli 2.11: NOT refused properly (exit $rc: $out)")
	fail=1
fi
out=$(bash scripts/build-nvme-cli.sh --version=2.99 2>&1)
rc=$?
if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && grep -q 'nvme-cli 2\.99' <<<"$out"; then
	summary+=("NVME_CLI_VERSION=2.99: refused (\"$out\")")
else
	summary+=("NVME_CLI_VERSION=2.99: NOT refused properly (exit $rc: $out)")
	fail=1
fi

# The graft follows the library: a project shaped like zns-npo2 gains a room
# (src/newroom/, a library linking threads and liburing, an executable of its
# own); znp-introspect.py must list its sources and dependencies, and
# neither executable's main().
echo "=== graft introspection follows new library code"
p=$tmp/proj
mkdir -p "$p/src/core" "$p/src/newroom"
echo 'int core_f(void) { return 1; }' >"$p/src/core/core.c"
echo 'int room_f(void) { return 2; }' >"$p/src/newroom/room.c"
echo 'int main(void) { return 0; }' >"$p/src/newroom/server-main.c"
echo 'int main(void) { return 0; }' >"$p/main.c"
cat >"$p/meson.build" <<'MESON'
project('zns-npo2', 'c', version : '9.9')
subdir('src')
executable('nvme-zns-npo2', 'main.c', link_with : [libcore])
MESON
cat >"$p/src/meson.build" <<'MESON'
libcore = static_library('core', 'core/core.c')
subdir('newroom')
MESON
cat >"$p/src/newroom/meson.build" <<'MESON'
deps = [dependency('threads'), dependency('liburing')]
libroom = static_library('room', 'room.c', dependencies : deps, c_args : '-DZNP_HAVE_ROOM')
executable('room-server', 'server-main.c', link_with : [libroom, libcore], dependencies : deps)
MESON
if meson setup "$p/build" "$p" >"$tmp/proj.log" 2>&1 &&
	python3 plugins/zns-npo2/znp-introspect.py "$p/build" "$p/src" "$tmp/proj.list" >"$tmp/proj.meson" 2>>"$tmp/proj.log"; then
	if [ "$(sort "$tmp/proj.list" | tr '\n' ' ')" = "core/core.c newroom/room.c " ] &&
		grep -q "znp_ext_deps = .*'threads'" "$tmp/proj.meson" &&
		grep -q "znp_ext_deps = .*'liburing'" "$tmp/proj.meson" &&
		grep -q "'-DZNP_HAVE_ROOM'" "$tmp/proj.meson" &&
		grep -q "'znp/newroom'" "$tmp/proj.meson"; then
		summary+=("introspection: a new room's sources, -D switch, include directory, threads and liburing picked up; executables left out")
	else
		summary+=("introspection: NOT following a new room: $(tr '\n' ' ' <"$tmp/proj.list") / $(grep -E 'ext_deps|inc_dirs|c_args' "$tmp/proj.meson" | tr '\n' ' ')")
		fail=1
	fi
else
	summary+=("introspection: setup of the sample project failed: $(tail -n 3 "$tmp/proj.log" | tr '\n' ' ')")
	fail=1
fi

# The upstream series (plugins/zns-npo2/upstream/make-series.sh): nvme-cli's
# commit shape, applies with git am to a pristine 3.0-rc1, carries exactly the
# plugin directory that was built and tested above, and configures with the
# -Dplugins choice.
echo "=== upstream series for nvme-cli 3.0-rc1"
series=$PWD/build/nvme-cli-upstream
start=$SECONDS
if bash plugins/zns-npo2/upstream/make-series.sh "$series" >"$tmp/series.log" 2>&1; then
	sfail=
	mapfile -t pf < <(ls "$series"/000[1-9]-*.patch)
	[ ${#pf[@]} = 3 ] || sfail+=" ${#pf[@]} patches, want 3;"
	for f in "${pf[@]}"; do
		grep -Eq '^Subject: \[PATCH [0-9]/3\] [a-z0-9/-]+: [a-z]' "$f" || sfail+=" $(basename "$f"): subject not 'area: change';"
		grep -q '^Signed-off-by: ' "$f" || sfail+=" $(basename "$f"): no Signed-off-by;"
	done
	. scripts/vendor.sh
	mkdir -p "$tmp/am"
	tar -xzf "$(znp_vendor_tarball nvme-cli-3.0-rc1.tar.gz)" -C "$tmp/am" --strip-components=1
	(cd "$tmp/am" && git init -q . && git add -A &&
		git -c user.name=t -c user.email=t@t commit -q -m base &&
		git -c user.name=t -c user.email=t@t am -q "${pf[@]}") >"$tmp/am.log" 2>&1 ||
		sfail+=" git am failed: $(tail -n 2 "$tmp/am.log" | tr '\n' ' ');"
	# ublk_cmd.h: the kernel UAPI header the zns-npo2 build generated, which
	# the graft adds and an upstream patch cannot carry (the plugin then uses
	# the system's <linux/ublk_cmd.h>)
	diff -r -x ublk_cmd.h "$tmp/am/plugins/zns-npo2" build/nvme-cli-3.0-rc1/tree/plugins/zns-npo2 >"$tmp/d" 2>&1 ||
		sfail+=" plugins/zns-npo2 differs from the tested graft: $(head -c 200 "$tmp/d");"
	if meson setup "$tmp/am/.build" "$tmp/am" --wrap-mode=nodownload -Dplugins=zns,zns-npo2 \
		-Ddocs=false -Dtests=false -Dexamples=false -Dpython=disabled >"$tmp/setup.log" 2>&1; then
		grep -q "zns-npo2" <(meson introspect --targets "$tmp/am/.build") ||
			sfail+=" -Dplugins=zns-npo2 configures no zns-npo2 target;"
	else
		sfail+=" meson setup of the patched tree failed: $(tail -n 3 "$tmp/setup.log" | tr '\n' ' ');"
	fi
	if [ -z "$sfail" ]; then
		summary+=("upstream series: $(ls "$series" | tr '\n' ' ')applies, matches the graft, configures ($((SECONDS - start)) s)")
	else
		summary+=("upstream series: FAILED:$sfail")
		fail=1
	fi
else
	summary+=("upstream series: make-series.sh failed: $(tail -n 3 "$tmp/series.log" | tr '\n' ' ')")
	fail=1
fi

echo "--- summary"
printf '# %s\n' "${summary[@]}"
echo "46-nvme-cli-versions: $([ $fail = 0 ] && echo pass || echo FAILED)"
exit $fail

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 46: the same plugin source grafted into the newer nvme-cli people run,
# built offline from the vendor tarballs (scripts/vendor.sh): 2.13 (Debian 13,
# libnvme 1.13 as subproject), 2.16 (last 2.x, libnvme 1.16.2), 3.0-rc1
# (libnvme 3 in its tree), master (plain-C command registration, libnvme in
# its tree). Each is built once (its own build directory, ccache), must be
# recognised by the graft with the registration style it has (X-macros up to
# 3.0-rc1, plain C on master) and gets layer 45's host checks
# (tests/nvme-cli/host-checks.sh) through its own completion files. An
# unknown nvme-cli version and a tree registering commands some other way
# must be refused with a one-line error naming the version.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
fail=0
summary=()
declare -A want_style=([2.13]=xmacro [2.16]=xmacro [3.0-rc1]=xmacro [master]=plain)
for v in 2.13 2.16 3.0-rc1 master; do
	echo "=== nvme-cli $v"
	start=$SECONDS
	if ! bash scripts/build-nvme-cli.sh --version="$v"; then
		summary+=("$v: build FAILED ($((SECONDS - start)) s)")
		fail=1
		continue
	fi
	built=$((SECONDS - start))
	# the pristine vendor tree: how it registers commands, read from its files
	desc=$(bash plugins/zns-npo2/graft.sh --describe "build/nvme-cli-$v/src" 2>&1)
	if [ "$desc" != "$v ${want_style[$v]}" ]; then
		summary+=("$v: registration NOT recognised as ${want_style[$v]}: $desc")
		fail=1
	fi
	start=$SECONDS
	bash tests/nvme-cli/host-checks.sh "build/nvme-cli-$v/nvme" "build/nvme-cli-$v/tree" "nvme-cli-$v" >"build/nvme-cli-$v/host-checks.log" 2>&1
	rc=$?
	cat "build/nvme-cli-$v/host-checks.log"
	summary+=("$v: build ${built} s, ${desc#* } registration, $(tail -n1 "build/nvme-cli-$v/host-checks.log") ($((SECONDS - start)) s)")
	[ $rc = 0 ] || fail=1
done

# A tree the graft does not know: one line naming the version, exit 2, tree untouched.
echo "=== unknown nvme-cli version"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t/plugins"
printf "project('nvme-cli', ['c'],\n    version: '2.11',\n)\n" >"$tmp/t/meson.build"
: >"$tmp/t/plugin.h"
: >"$tmp/t/define_cmd.h"
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
# A tree whose plugins register neither through define_cmd.h nor through
# plugin_add_group(): refused by the graft and the build, named, untouched.
rm "$tmp/t/define_cmd.h" "$tmp/orig/define_cmd.h"
echo 'void register_extension(struct plugin *plugin);' >"$tmp/t/plugin.h"
cp "$tmp/t/plugin.h" "$tmp/orig/plugin.h"
for tool in plugins/zns-npo2/graft.sh scripts/build-nvme-cli.sh; do
	out=$(bash "$tool" "$tmp/t" 2>&1)
	rc=$?
	if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && grep -q 'nvme-cli 2\.11, whose command registration' <<<"$out" &&
		diff -r "$tmp/orig" "$tmp/t" >/dev/null; then
		summary+=("$(basename "$tool"): unrecognised registration refused (\"$out\")")
	else
		summary+=("$(basename "$tool"): unrecognised registration NOT refused properly (exit $rc: $out)")
		fail=1
	fi
done
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
# commit shape, applies with git am to a pristine master, carries exactly the
# plugin directory that was built and tested above, builds with
# -Dplugins=zns,zns-npo2 against master's own libnvme, and passes nvme-cli's
# checkpatch rules (.checkpatch.conf, 80 columns; checkpatch.pl from the
# kernel source) on every patch, the library copy in znp/ included: the copy
# is the tested library laid out by format-copy.py (same C tokens, same
# comment words as the graft's znp/).
echo "=== upstream series for nvme-cli master"
series=$PWD/build/nvme-cli-upstream
# the patched tree at a fixed path (ccache hits on the next run), rebuilt
# from the pristine snapshot every time
am=$series/tree
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
	rm -rf "$am"
	mkdir -p "$am"
	tar -xzf "$(znp_vendor_tarball nvme-cli-master-e117ee680.tar.gz)" -C "$am" --strip-components=1
	(cd "$am" && git init -q . && git add -A &&
		git -c user.name=t -c user.email=t@t commit -q -m base &&
		git -c user.name=t -c user.email=t@t am -q "${pf[@]}") >"$tmp/am.log" 2>&1 ||
		sfail+=" git am failed: $(tail -n 2 "$tmp/am.log" | tr '\n' ' ');"
	# ublk_cmd.h: the kernel UAPI header the zns-npo2 build generated, which
	# the graft adds and an upstream patch cannot carry (the plugin then uses
	# the system's <linux/ublk_cmd.h>, 6.6 or later)
	diff -r -x ublk_cmd.h -x znp "$am/plugins/zns-npo2" build/nvme-cli-master/tree/plugins/zns-npo2 >"$tmp/d" 2>&1 ||
		sfail+=" plugins/zns-npo2 differs from the tested graft: $(head -c 200 "$tmp/d");"
	# znp/: the same files, each the graft's but for its layout
	diff -r -q -x ublk_cmd.h "$am/plugins/zns-npo2/znp" build/nvme-cli-master/tree/plugins/zns-npo2/znp |
		grep -v '^Files .* differ$' >"$tmp/d"
	[ -s "$tmp/d" ] && sfail+=" plugins/zns-npo2/znp has other files than the tested graft: $(head -c 200 "$tmp/d");"
	grep -q ' differ$' < <(diff -r -q "$am/plugins/zns-npo2/znp/meson.build" build/nvme-cli-master/tree/plugins/zns-npo2/znp/meson.build) &&
		sfail+=" znp/meson.build differs from the tested graft;"
	python3 plugins/zns-npo2/upstream/format-copy.py compare build/nvme-cli-master/tree/plugins/zns-npo2/znp \
		"$am/plugins/zns-npo2/znp" >"$tmp/cmp" 2>&1 ||
		sfail+=" the library copy is not the tested library modulo layout: $(head -n 2 "$tmp/cmp" | tr '\n' ' ');"
	cp build/src/ublk_cmd.h "$am/plugins/zns-npo2/znp/"	# Debian 12's is 6.1
	bstart=$SECONDS
	if meson setup "$am/.build" "$am" --wrap-mode=nodownload -Dplugins=zns,zns-npo2 \
		-Ddocs=false -Dtests=false -Dexamples=false -Dpython=disabled \
		--default-library=static >"$tmp/setup.log" 2>&1; then
		if ! nice -n 10 ninja -C "$am/.build" nvme >"$tmp/ninja.log" 2>&1; then
			sfail+=" the patched tree does not build: $(grep -m2 'error' "$tmp/ninja.log" | tr '\n' ' ');"
		elif ! "$am/.build/nvme" zns-npo2 version >/dev/null ||
			ldd "$am/.build/nvme" | grep -q 'libnvme'; then
			sfail+=" the patched nvme has no zns-npo2 or links a system libnvme;"
		fi
	else
		sfail+=" meson setup of the patched tree failed: $(tail -n 3 "$tmp/setup.log" | tr '\n' ' ');"
	fi
	bsecs=$((SECONDS - bstart))
	cp_pl=$(bash scripts/checkpatch-path.sh 2>/dev/null) || cp_pl=
	if [ -n "$cp_pl" ]; then
		# nvme-cli's rules: its .checkpatch.conf, read from the tree's top,
		# on the whole series (the library copy: ~100 s of checkpatch)
		(cd "$am" && for f in "${pf[@]}"; do perl "$cp_pl" -q --show-types "$f"; done) \
			>"$tmp/cp.log" 2>&1
		# one line per finding: "TYPE FILE" (the commit message: no FILE)
		awk '/^(ERROR|WARNING|CHECK):/ { if (t) print t, "-"; t = $1; next }
			t && /^#[0-9]+: FILE: / { print t, $3; t = "" }
			END { if (t) print t, "-" }' "$tmp/cp.log" >"$tmp/cp.found"
		# Allowed, as nvme-cli's own files have them: the X-macro include
		# name (#define CMD_INC_FILE plugins/<name>/<name>, COMPLEX_MACRO)
		# and a plugin's subcommand list in the generated bash completion.
		allowed='^ERROR:COMPLEX_MACRO: plugins/zns-npo2/zns-npo2\.h:|^WARNING:LONG_LINE_STRING: completions/bash-nvme-completion\.sh:'
		# In the library copy, kernel rules that do not hold for user
		# space, each where the library needs it (what a signal handler
		# sets or reads is a lock-free C11 atomic, never volatile); -ENOSYS
		# from io_uring_setup(), which is the "no such system call" that
		# checkpatch keeps ENOSYS for.
		znp=': plugins/zns-npo2/znp/'
		allowed+="|^WARNING:ENOSYS${znp}aio/async\.c:"
		found=$(grep -Evc "$allowed" "$tmp/cp.found")
		known=$(grep -Ec "$allowed" "$tmp/cp.found")
		inside=$(grep -c " ${znp#: }" "$tmp/cp.found")
		cp_note="checkpatch: $found findings (+$known allowed, $inside of them in the library copy)"
		[ "$found" = 0 ] || sfail+=" checkpatch: $(grep -Ev "$allowed" "$tmp/cp.found" | head -4 | tr '\n' ' ');"
	else
		sfail+=" no checkpatch.pl (scripts/checkpatch-path.sh: linux-source-7.3, make deps);"
	fi
	if [ -z "$sfail" ]; then
		summary+=("upstream series: $(cd "$series" && ls 000[1-9]-*.patch | tr '\n' ' ')applies to master, matches the graft, builds with -Dplugins=zns,zns-npo2 against master's libnvme (${bsecs} s), $cp_note ($((SECONDS - start)) s)")
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Graft the zns-npo2 plugin into an nvme-cli source tree (2.3, 2.13, 2.16,
# 3.0-rc1, master):
#
#   plugins/zns-npo2/graft.sh NVME_CLI_TREE [ZNP_BUILD_DIR]
#   plugins/zns-npo2/graft.sh --describe NVME_CLI_TREE
#
# 1. reads how the tree registers plugin commands, from its files: the
#    X-macros of cmd.h/define_cmd.h (2.x to 3.0-rc1) or plain C, struct
#    command objects handed to plugin_add_group() (declared in plugin.h:
#    master); a tree with neither is refused in one line naming it;
# 2. picks nvme-cli's side: nvme-cli/VERSION.patch for an X-macro tree (the
#    tree's meson project version), nvme-cli/master.patch for a plain-C tree
#    (master still calls itself 3.0-rc1); a version without a patch is
#    refused with a one-line error naming it. --describe prints that name and
#    the registration style ("3.0-rc1 xmacro", "master plain") and exits;
# 3. copies this directory's glue (zns-npo2.[ch], zns-npo2-compat.h,
#    meson.build) to NVME_CLI_TREE/plugins/zns-npo2/; the glue picks the
#    registration style itself, from the same files (zns-npo2-compat.h);
# 4. copies the zns-npo2 library to NVME_CLI_TREE/plugins/zns-npo2/znp/, as the
#    zns-npo2 build ZNP_BUILD_DIR (default build/) describes it: the sources of
#    every library meson builds from src/, their include directories and -DZNP_
#    switches (meson introspect), the external dependencies the executables
#    linking them use (their link lines, named as meson found them), all
#    headers, the headers the build generated; and writes znp/meson.build
#    listing them;
# 5. applies the patch (nvme-cli's side: the plugin's subdir and dependencies
#    in meson, `nvme help <plugin>`, completions) unless the tree already has
#    it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
describe=0
if [ "${1:-}" = --describe ]; then
	describe=1
	shift
fi
tree=${1:?usage: graft.sh [--describe] NVME_CLI_TREE [ZNP_BUILD_DIR]}
bdir=${2:-$root/build}

if ! { [ -f "$tree/meson.build" ] && [ -f "$tree/plugins/meson.build" ] &&
	{ [ -f "$tree/plugin.h" ] || [ -f "$tree/src/plugin.h" ]; }; }; then
	echo "graft: $tree: not an nvme-cli source tree" >&2
	exit 2
fi
version=$(bash "$here/nvme-cli-version.sh" "$tree")
if [ -f "$tree/define_cmd.h" ] || [ -f "$tree/src/define_cmd.h" ]; then
	style=xmacro
	id=$version
elif grep -qs '^void plugin_add_group(' "$tree/plugin.h" "$tree/src/plugin.h"; then
	style=plain
	id=master
else
	echo "graft: $tree is nvme-cli $version, whose command registration the graft does not recognise (neither define_cmd.h X-macros nor plugin_add_group() in plugin.h)" >&2
	exit 2
fi
patchfile=$here/nvme-cli/$id.patch
[ -f "$patchfile" ] || {
	known=$(find "$here/nvme-cli" -name '*.patch' -printf '%f\n' | sed 's/\.patch$//' | sort -V | tr '\n' ' ')
	echo "graft: $tree is nvme-cli $version, which the graft does not know (known: ${known% })" >&2
	exit 2
}
if [ $describe = 1 ]; then
	echo "$id $style"
	exit 0
fi
[ -f "$bdir/meson-info/intro-targets.json" ] || {
	echo "graft: $bdir: not a configured zns-npo2 build directory (run make)" >&2
	exit 2
}

dest=$tree/plugins/zns-npo2
mkdir -p "$dest/znp"
install -C -m 0644 "$here/zns-npo2.c" "$here/zns-npo2.h" "$here/zns-npo2-compat.h" \
	"$here/meson.build" "$dest/"

# Replace znp/ wholesale, but keep mtimes of unchanged files (incremental builds).
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
python3 "$here/znp-introspect.py" "$bdir" "$root/src" "$stage/list" >"$stage/meson.build"
mapfile -t srcs <"$stage/list"
rm "$stage/list"
(cd "$root/src" && cp -p --parents "${srcs[@]}" "$stage/")
(cd "$root/src" && find . -name '*.h' -exec cp -p --parents {} "$stage/" \;)
# headers the zns-npo2 build generates (the zoned ublk UAPI, taken from the
# kernel source by scripts/ublk-uapi.sh): beside the library's own
for h in "$bdir"/src/*.h; do
	if [ -f "$h" ]; then cp -p "$h" "$stage/"; fi
done
rsync -r --checksum --delete "$stage/" "$dest/znp/"

if patch -d "$tree" -p1 -R -s -f --dry-run <"$patchfile" >/dev/null 2>&1; then
	echo "graft: $tree already carries nvme-cli/$id.patch"
else
	patch -d "$tree" -p1 -s -N <"$patchfile" || {
		echo "graft: nvme-cli/$id.patch does not apply to $tree (a modified nvme-cli $id?)" >&2
		exit 1
	}
fi
echo "graft: plugins/zns-npo2 grafted into nvme-cli $id ($style registration) in $tree (${#srcs[@]} library sources)"

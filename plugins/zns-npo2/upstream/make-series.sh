#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The zns-npo2 plugin as a patch series for nvme-cli master (the vendor
# snapshot at e117ee680: plain-C command registration, libnvme in its tree),
# in nvme-cli's own shape (see its CONTRIBUTING.md):
#
#   plugins/zns-npo2/upstream/make-series.sh OUTDIR [ZNP_BUILD_DIR]
#
#   0001 plugin: list a plugin's commands for 'nvme help <plugin>'
#   0002 build: let plugins link their own libraries
#   0003 plugins/zns-npo2: add plugin ... (the glue, the zns-npo2 library as
#        the zns-npo2 build lists it, laid out in nvme-cli's 80 columns by
#        format-copy.py, the -Dplugins choice, man pages in
#        nvme-cli's asciidoc generated from the command table, the plugin's
#        entries in the generated completion files, as the graft adds them)
#
# Each commit is made on the vendor nvme-cli master tree in a scratch git
# repository, signed off by the caller's git identity (git var
# GIT_COMMITTER_IDENT), and written with git format-patch to OUTDIR.
# Needs `make` and `make nvme-cli NVME_CLI_VERSION=master` first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:?usage: make-series.sh OUTDIR [ZNP_BUILD_DIR]}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bdir=$(cd "${2:-$root/build}" && pwd)
nvme=$root/build/nvme-cli-master/nvme
[ -x "$nvme" ] || {
	echo "make-series: $nvme missing (make nvme-cli NVME_CLI_VERSION=master)" >&2
	exit 2
}
ident=$(git var GIT_COMMITTER_IDENT 2>/dev/null | sed 's/ [0-9]* [-+][0-9]*$//') || ident=
[ -n "$ident" ] || ident="zns-npo2 developers <zns-npo2@invalid>"
name=${ident% <*} mail=${ident##*<}
mail=${mail%>}
# shellcheck source=/dev/null
. "$root/scripts/vendor.sh"
tarball=$(znp_vendor_tarball nvme-cli-master-e117ee680.tar.gz)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t=$work/nvme-cli
mkdir -p "$t"
tar -xzf "$tarball" -C "$t" --strip-components=1
cd "$t"
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$mail GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$mail
export GIT_AUTHOR_DATE='2026-12-01T12:00:00Z' GIT_COMMITTER_DATE='2026-12-01T12:00:00Z'
git init -q -b master .
git add -A
git commit -q -m "nvme-cli master e117ee680"

edit() { python3 "$here/edit-tree.py" "$t" "$1"; }
edit help
git commit -q -a -s -F "$here/0001.msg"
edit plugin-deps
git commit -q -a -s -F "$here/0002.msg"

# 0003: the plugin directory as the graft builds it, then nvme-cli's side.
dest=plugins/zns-npo2
mkdir -p "$dest/znp"
install -m 0644 "$here/../zns-npo2.c" "$here/../zns-npo2.h" "$here/../zns-npo2-compat.h" \
	"$here/../meson.build" "$dest/"
python3 "$here/../znp-introspect.py" "$bdir" "$root/src" "$work/list" >"$dest/znp/meson.build"
mapfile -t srcs <"$work/list"
(cd "$root/src" && cp --parents "${srcs[@]}" "$t/$dest/znp/")
(cd "$root/src" && find . -name '*.h' -exec cp --parents {} "$t/$dest/znp/" \;)
# nvme-cli's 80 columns: the copy laid out by format-copy.py with the
# kernel's .clang-format (the source package checkpatch.pl comes from), then
# proved to be the source token for token
style=$(bash "$root/scripts/checkpatch-path.sh")
style=${style%/scripts/checkpatch.pl}/.clang-format
python3 "$here/format-copy.py" format "$style" "$dest/znp"
python3 "$here/format-copy.py" compare "$root/src" "$dest/znp"
edit plugin
python3 "$here/gen-docs.py" "$root/build/nvme-zns-npo2" Documentation >"$work/pages"
python3 "$here/edit-tree.py" "$t" docs "$work/pages"
# completions: the hunks the graft applies (nvme-cli/master.patch), which the
# host checks drive; regenerating the files with generate-completions.py from
# this build's `nvme utils dump-command-metadata` would rewrite ~20000 lines
# that have nothing to do with the plugin
awk '/^--- a\//{ p = ($2 ~ /^a\/completions\//) } p' "$here/../nvme-cli/master.patch" >"$work/compl.patch"
patch -s -p1 <"$work/compl.patch"
git add -A
git commit -q -s -F "$here/0003.msg"

rm -f "$out"/000[1-9]-*.patch
git format-patch -q -n -3 -o "$out" >/dev/null
ls "$out"/000[1-9]-*.patch

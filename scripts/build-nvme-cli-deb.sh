#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make nvme-cli-deb: Debian 12's own nvme-cli source package, rebuilt with
# the zns-npo2 plugin added as one more quilt patch, so that `nvme zns-npo2`
# is one `apt install` (or `dpkg -i`) away.
#   build-nvme-cli-deb.sh [--no-lintian]
# Debian's source comes from `apt-get source nvme-cli` through the private
# apt configuration of scripts/debsrc.sh (fetched once, kept in
# build/nvme-cli/dl/ with scripts/build-nvme-cli.sh). The plugin is grafted
# (plugins/zns-npo2/graft.sh, the library as a release build of this tree
# describes it: no test hooks) into a copy of that source, and the difference
# becomes debian/patches/zns-npo2-plugin.patch (DEP-3 header) at the end of
# debian/patches/series; dpkg-buildpackage applies it like Debian's own.
# debian/changelog gets an entry whose version is Debian's plus +znpo2.1
# (sorts above Debian's, so apt prefers it), debian/control the plugin's
# build dependencies. Two changes beside the plugin: the man pages are the
# ones nvme-cli's release tarball ships (docs-build=false: no asciidoc and
# xmlto, which rebuild the same pages from the same sources for minutes),
# and the test-only build profile is used (Debian disables the tests
# anyway). Result: build/nvme-cli-deb/nvme-cli_*+znpo2.1_*.deb; lintian
# errors fail.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
SUFFIX=+znpo2.1
lintian=1
[ "${1:-}" = --no-lintian ] && lintian=0
out=$root/build/nvme-cli-deb

# shellcheck source=scripts/debsrc.sh
. scripts/debsrc.sh
src=$(znp_debsrc_fetch "$root/build/nvme-cli/apt" "$root/build/nvme-cli/dl" nvme-cli build-nvme-cli-deb)
[ -f "$src/debian/changelog" ] && [ -f "$src/debian/patches/series" ] || {
	echo "build-nvme-cli-deb: $src: not Debian's nvme-cli source package (no debian/patches/series)" >&2
	exit 1
}
dver=$(cd "$src" && dpkg-parsechangelog -S Version)
ver=$dver$SUFFIX
upver=${dver%-*}

# the library as a release build describes it (graft.sh reads meson
# introspection and the generated headers)
zb=$out/znp-build
mkdir -p "$out"
if [ ! -f "$zb/build.ninja" ]; then
	meson setup "$zb" --prefix=/usr -Dtest_hooks=false -Ddocs=disabled -Dfuzz=false >"$out/znp-setup.log" 2>&1 || {
		cat "$out/znp-setup.log" >&2
		exit 1
	}
fi
meson configure "$zb" -Dtest_hooks=false >/dev/null
nice -n 10 ninja -C "$zb" src/ublk_cmd.h >"$out/znp-ninja.log" 2>&1 || {
	cat "$out/znp-ninja.log" >&2
	exit 1
}

znpver=$(meson introspect --projectinfo "$zb" | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-unstable}")

# the patch: Debian's tree (its own patches applied) against the same
# tree with the plugin grafted
work=$out/work
rm -rf "$work" "$out"/nvme-cli_* "$out"/nvme-cli-dbgsym_*
mkdir -p "$work"
rsync -a --exclude=/.pc "$src/" "$work/a/"
rsync -a --exclude=/.pc "$src/" "$work/b/"
bash plugins/zns-npo2/graft.sh "$work/b" "$zb" >"$out/graft.log"
patch=$work/zns-npo2-plugin.patch
{
	cat <<EOF
Description: zns-npo2 plugin: nvme zns-npo2 for NVMe ZNS namespaces with
 non-power-of-2 zone sizes
 The plugin's glue (plugins/zns-npo2/) and the zns-npo2 library it runs
 (plugins/zns-npo2/znp/), as zns-npo2 $znpver grafts them; nvme-cli's
 side: the plugin in meson, \`nvme help zns-npo2\`, the bash and zsh
 completions.
Author: zns-npo2 maintainers <maintainers@users.noreply.a-seed-374fb967.example>
Forwarded: not-needed
Last-Update: $(date -u +%Y-%m-%d)
---
EOF
	# (no time stamps: the patch depends on the sources only)
	(cd "$work" && diff -Naur --exclude=debian a b) | sed -E 's/^((---|\+\+\+) [^\t]*)\t.*/\1/' || [ $? = 1 ]
} >"$patch"
pkg=$out/nvme-cli-$upver
rm -rf "$pkg"
rsync -a "$src/" "$pkg/"
cp "$patch" "$pkg/debian/patches/zns-npo2-plugin.patch"
echo zns-npo2-plugin.patch >>"$pkg/debian/patches/series"

# changelog, build dependencies, rules
maint=$(sed -n 's/^Maintainer: //p' debian/control)
{
	cat <<EOF
nvme-cli ($ver) $suite; urgency=medium

  * Add the zns-npo2 plugin (debian/patches/zns-npo2-plugin.patch):
    \`nvme zns-npo2\` for NVMe ZNS namespaces with non-power-of-2 zone sizes.
  * Build-depend on what the plugin links: liburing-dev, libdevmapper-dev.
  * Install the man pages of the release tarball (docs-build=false) instead
    of rebuilding them; drop asciidoc and xmlto from Build-Depends.

 -- $maint  $(date -R -u)

EOF
	cat "$src/debian/changelog"
} >"$pkg/debian/changelog"
python3 - "$pkg/debian/control" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
head, sep, rest = s.partition("\nBuild-Depends:\n")
deps, sep2, tail = rest.partition("\nRules-Requires-Root")
lines = [l for l in deps.split("\n") if l.strip() not in ("asciidoc,", "xmlto,")]
lines += [" libdevmapper-dev,", " liburing-dev,"]
s = head + sep + "\n".join(lines) + sep2 + tail
# the plugin's man pages and nvme-zns-npo2's completion, which nvme's loads
s = re.sub(r"(\nPackage: nvme-cli\n(?:.+\n)*?)(Description:)", r"\1Suggests:\n zns-npo2,\n\2", s, count=1)
open(p, "w").write(s)
EOF
sed -i 's/-Ddocs-build=true/-Ddocs-build=false/' "$pkg/debian/rules"
grep -q -- '-Ddocs-build=false' "$pkg/debian/rules" || {
	echo "build-nvme-cli-deb: $pkg/debian/rules: no -Ddocs-build=true to turn off (a different Debian nvme-cli?)" >&2
	exit 1
}

(cd "$pkg" && DEB_BUILD_PROFILES=nocheck DEB_BUILD_OPTIONS=nocheck nice -n 10 dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	echo "build-nvme-cli-deb: dpkg-buildpackage failed, log $out/build.log" >&2
	exit 1
}
deb=$(ls "$out"/nvme-cli_"$ver"_*.deb)
echo "build-nvme-cli-deb: $deb"
if [ "$lintian" = 1 ]; then
	lintian --fail-on error "$out"/nvme-cli_"$ver"_*.changes
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer: the Debian package. `make deb` (dpkg-buildpackage -us -uc -b in a
# copy of the tracked tree, then lintian: errors fail), and the package
# holds exactly the files a plain `meson setup --prefix=/usr` +
# `meson install --destdir` lands (man pages compressed by dh_compress;
# the package adds only its copyright, changelog and /etc/zns-npo2/);
# `make nvme-cli-deb`: Debian's nvme-cli with the plugin as a quilt patch,
# lintian errors fail, Debian's version plus +znpo2.1, the packaged nvme
# lists the command table's commands in `nvme help zns-npo2`.
set -uo pipefail
cd "$(dirname "$0")/../.."
L=89-deb
start=$SECONDS
fails=0
bad() { echo "not ok - $*"; fails=$((fails + 1)); }
good() { echo "ok - $*"; }

t=$SECONDS
if bash scripts/build-deb.sh; then good "make deb, lintian without errors ($((SECONDS - t)) s)"; else bad "make deb"; fi
ver=$(dpkg-parsechangelog -S Version)
deb=$(ls build/deb/zns-npo2_"$ver"_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "$L: no package built" >&2; exit 1; }

t=$SECONDS
m=build/deb-meson
rm -rf "$m"
if nice -n 10 meson setup "$m" --prefix=/usr -Ddocs=enabled >"$m.log" 2>&1 &&
	nice -n 10 ninja -C "$m" >>"$m.log" 2>&1 &&
	DESTDIR="$PWD/$m/dest" meson install -C "$m" --no-rebuild >>"$m.log" 2>&1; then
	good "meson install --destdir ($((SECONDS - t)) s)"
else
	bad "meson setup/install, log $m.log"
fi
(cd "$m/dest" && find . ! -type d | sed 's|^\./|/|' | LC_ALL=C sort) >"$m/meson.files"
dpkg-deb -c "$deb" >"$m/deb.list"
awk '$1 !~ /^d/ { print $6 }' "$m/deb.list" | sed 's|^\./|/|' |
	grep -v -e '^/usr/share/doc/zns-npo2/changelog.gz$' -e '^/usr/share/doc/zns-npo2/copyright$' |
	sed 's|^\(/usr/share/man/.*\)\.gz$|\1|' | LC_ALL=C sort >"$m/deb.files"
if diff -u "$m/meson.files" "$m/deb.files" >"$m/files.diff"; then
	good "package files = meson install files ($(wc -l <"$m/deb.files") files)"
else
	bad "package and meson install differ (- meson, + package):"
	sed 's/^/#   /' "$m/files.diff"
fi
# Debian 12's paths
for f in /lib/systemd/system/zns-npo2-restore.service /lib/systemd/system/zns-npo2-ublk@.service \
	/lib/udev/rules.d/69-zns-npo2.rules /lib/udev/rules.d/61-zns-npo2-ublk.rules /usr/bin/nvme-zns-npo2 \
	/usr/share/man/man1/nvme-zns-npo2-map.1 /usr/share/bash-completion/completions/nvme-zns-npo2 \
	/usr/share/zsh/site-functions/_nvme-zns-npo2; do
	grep -qxF "$f" "$m/deb.files" && good "package has $f" || bad "package lacks $f"
done
grep -qE '^d.* \./etc/zns-npo2/$' "$m/deb.list" && good "package owns /etc/zns-npo2/" || bad "package lacks /etc/zns-npo2/"

# ---- nvme-cli with the plugin (make nvme-cli-deb) ----
t=$SECONDS
if bash scripts/build-nvme-cli-deb.sh; then good "make nvme-cli-deb, lintian without errors ($((SECONDS - t)) s)"; else bad "make nvme-cli-deb"; fi
c=build/nvme-cli-deb
dsrc=$(find build/nvme-cli/dl -mindepth 1 -maxdepth 1 -type d -name 'nvme-cli-*' | head -1)
dver=$(cd "$dsrc" && dpkg-parsechangelog -S Version)
cli=$(ls "$c"/nvme-cli_"$dver"+znpo2.1_*.deb 2>/dev/null | head -1)
if [ -n "$cli" ]; then
	good "the package's version is Debian's $dver plus +znpo2.1 ($(basename "$cli"))"
	dpkg --compare-versions "$dver+znpo2.1" gt "$dver" && good "$dver+znpo2.1 sorts above $dver" || bad "$dver+znpo2.1 does not sort above $dver"
	tree=$(ls -d "$c"/nvme-cli-*/ | head -1)
	# Debian's patches as they were, then the plugin's
	expect_series=$( (cat "$dsrc/debian/patches/series"; echo zns-npo2-plugin.patch) | grep -v '^#')
	[ "$(grep -v '^#' "$tree/debian/patches/series")" = "$expect_series" ] &&
		good "debian/patches/series: Debian's $(grep -vc '^#' "$dsrc/debian/patches/series") patches, then zns-npo2-plugin.patch" ||
		bad "debian/patches/series is not Debian's plus zns-npo2-plugin.patch"
	for h in Description Author Forwarded Last-Update; do
		grep -q "^$h: " "$tree/debian/patches/zns-npo2-plugin.patch" && good "patch header has $h:" || bad "patch header lacks $h:"
	done
	# (dpkg-source unapplies it again after the build: its log says it)
	grep -qx 'dpkg-source: info: applying zns-npo2-plugin.patch' "$c/build.log" && good "dpkg-source applied zns-npo2-plugin.patch" || bad "zns-npo2-plugin.patch not applied by dpkg-source"
	x=$c/extract
	rm -rf "$x"
	dpkg-deb -x "$cli" "$x"
	dpkg-deb -f "$cli" Depends | grep -q 'liburing2' && good "Depends has liburing2 (the plugin links it)" || bad "Depends lacks liburing2: $(dpkg-deb -f "$cli" Depends)"
	# the command table as the standalone binary lists it, in nvme's help
	cmds() { sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p' | grep -vxE 'help|version' | LC_ALL=C sort | tr '\n' ' '; }
	want=$(build/deb-meson/nvme-zns-npo2 help 2>&1 | cmds)
	got=$("$x/usr/sbin/nvme" help zns-npo2 2>&1 | cmds)
	[ -n "$want" ] && [ "$got" = "$want" ] && good "packaged nvme help zns-npo2 lists the table's commands ($want)" ||
		bad "packaged nvme help zns-npo2: '$got', want '$want'"
	v=$("$x/usr/sbin/nvme" version 2>&1 | head -1)
	# the upstream version (Debian's 2.4+really2.3 is nvme-cli 2.3)
	u=${dver%-*}
	u=${u#*really}
	[[ $v == "nvme version $u "* ]] && good "packaged nvme is nvme-cli $u: $v" || bad "packaged nvme version: '$v', want nvme-cli $u"
else
	bad "no build/nvme-cli-deb/nvme-cli_$dver+znpo2.1_*.deb"
fi
echo "$L: $fails failed, $((SECONDS - start)) s"
[ $fails = 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer: the Debian package. `make deb` (dpkg-buildpackage -us -uc -b in a
# copy of the tracked tree, then lintian: errors fail), and the package
# holds exactly the files a plain `meson setup --prefix=/usr` +
# `meson install --destdir` lands (man pages compressed by dh_compress;
# the package adds only its copyright, changelog and /etc/zns-npo2/).
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
echo "$L: $fails failed, $((SECONDS - start)) s"
[ $fails = 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Each room of src/ has one public header; the command layer and the
# nvme-cli plugin include only those (and the command layer's own), the
# umbrella znp.h covers every one of them, and the private headers of
# dev/ are included by the library alone.
set -uo pipefail
src=${1:?usage: headers.sh SRCDIR PLUGINDIR}
plugin=${2:?}
public="core.h dev.h zone.h aio.h dm.h ublk.h svc.h"
fail=0
bad() { echo "not ok - $*"; fail=1; }

for h in $public; do
	grep -q "^#include \"$h\"" "$src/znp.h" || bad "znp.h does not include $h"
done
# a room header that is not the room's public face is private to the library
private=$(cd "$src" && ls core/*.h dev/*.h zone/*.h aio/*.h dm/*.h ublk/*.h svc/*.h | xargs -n1 basename)
for h in $public; do private=$(echo "$private" | grep -vx "$h"); done
for f in "$src"/cli/*.[ch] "$plugin"/*.[ch]; do
	while read -r h; do
		echo "$private" | grep -qx "$h" && bad "${f#"$src"/} includes non-public header $h"
	done < <(sed -n 's/^#include "\(.*\)"/\1/p' "$f")
done
for h in sysfs.h nsinfo.h backend.h; do
	for f in $(grep -l "^#include \"$h\"" -r "$src" --include='*.[ch]'); do
		case "$f" in
		"$src"/dev/*|"$src"/zone/*) ;;
		*) bad "${f#$src/} includes the private header $h" ;;
		esac
	done
done
# source paths named in comments of the sources and the plugin glue exist
root=$(cd "$src/.." && pwd)
while IFS=: read -r f m; do
	[ -e "$root/$m" ] || bad "${f#"$root"/} names $m, which does not exist"
done < <(grep -roE '\b(src|lib)/[A-Za-z0-9_/.-]+\.(c|h|md)\b' "$src" "$plugin" --include='*.[ch]')
[ $fail -eq 0 ] && echo "ok - the command layer and plugin include only public headers"
exit $fail

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Each room of src/ has one public header; the command layer and the
# nvme-cli plugin include only those (and the command layer's own), the
# umbrella znp.h covers every one of them, and the private headers of
# dev/ are included by the library alone. The #include lines of each
# room's files point only along the allowed room-to-room edges below (no
# cycles); the matrix of edges found is printed.
set -uo pipefail
src=${1:?usage: headers.sh SRCDIR PLUGINDIR}
plugin=${2:?}
public="core.h dev.h zone.h aio.h dm.h ublk.h svc.h map.h"
fail=0
bad() { echo "not ok - $*"; fail=1; }

for h in $public; do
	grep -q "^#include \"$h\"" "$src/znp.h" || bad "znp.h does not include $h"
done
# a room header that is not the room's public face is private to the library
private=$(cd "$src" && ls core/*.h dev/*.h zone/*.h aio/*.h dm/*.h ublk/*.h svc/*.h map/*.h | xargs -n1 basename)
for h in $public; do private=$(echo "$private" | grep -vx "$h"); done
for f in "$src"/cli/*.[ch] "$plugin"/*.[ch]; do
	while read -r h; do
		echo "$private" | grep -qx "$h" && bad "${f#"$src"/} includes non-public header $h"
	done < <(sed -n 's/^#include "\(.*\)"/\1/p' "$f")
done
for h in sysfs.h nsinfo.h backend.h; do
	for f in $(grep -l "^#include \"$h\"" -r "$src" --include='*.[ch]'); do
		case "$f" in
		"$src"/dev/*|"$src"/zone/*|"$src"/aio/*) ;;
		*) bad "${f#$src/} includes the private header $h" ;;
		esac
	done
done
# ---- room-to-room edges ----------------------------------------------------
# The rooms, bottom first, and the rooms each may include: edges point down.
# A new edge is a design change: add it here (and to the room's meson.build
# dependencies) only when it points down, never to make a cycle.
rooms="core dev zone aio dm svc ublk map cli"
declare -A allow=(
	[core]=""
	[dev]="core"
	[zone]="core dev"
	[aio]="core dev zone"
	[dm]="core dev"
	[svc]="core dev"
	[ublk]="core dev zone"
	[map]="core dev zone aio dm svc ublk"
	[cli]="core dev zone aio dm svc ublk map"
)
# the table itself points down: each allowed room comes earlier in $rooms
below=""
for r in $rooms; do
	for t in ${allow[$r]}; do
		case " $below " in *" $t "*) ;; *) bad "edge table: $r -> $t does not point down" ;; esac
	done
	below="$below $r"
done
# which room each header of src/ belongs to; znp.h stands for the rooms it includes
declare -A room_of umbrella
for d in "$src"/*/; do
	r=$(basename "$d")
	[ -n "${allow[$r]+set}" ] || { bad "src/$r/ is a room the edge table does not know"; continue; }
	for h in "$d"*.h; do [ -e "$h" ] && room_of[$(basename "$h")]=$r; done
done
for h in $(sed -n 's/^#include "\(.*\)".*/\1/p' "$src/znp.h"); do
	umbrella[${room_of[$h]:-?}]=1
done
declare -A edge
for r in $rooms; do
	[ -d "$src/$r" ] || continue
	for f in "$src/$r"/*.[ch]; do
		[ -e "$f" ] || continue
		while read -r h; do
			if [ "$h" = znp.h ]; then
				to="${!umbrella[*]}"
			else
				to=${room_of[$h]:-}
			fi
			for t in $to; do
				[ "$t" = "$r" ] && continue
				edge[$r,$t]=$(( ${edge[$r,$t]:-0} + 1 ))
				case " ${allow[$r]} " in
				*" $t "*) ;;
				*) bad "${f#"$src"/} includes $h: $r -> $t is not an allowed edge" ;;
				esac
			done
		done < <(sed -n 's/^#include "\(.*\)".*/\1/p' "$f")
	done
	# the room's library declares no room outside its allowed ones
	mb="$src/$r/meson.build"
	[ -f "$mb" ] || continue
	for t in $(grep -o 'znp_[a-z]*_dep' "$mb" | sed 's/^znp_//; s/_dep$//' | sort -u); do
		[ "$t" = "$r" ] && continue
		case " ${allow[$r]} " in
		*" $t "*) ;;
		*) bad "src/$r/meson.build depends on $t: not an allowed edge" ;;
		esac
	done
done
# the matrix: #include lines from the row's room into the column's room
# ("-": none; "!": not allowed)
printf '# %-5s' 'from'
for t in $rooms; do printf ' %5s' "$t"; done
echo
for r in $rooms; do
	[ -d "$src/$r" ] || continue
	printf '# %-5s' "$r"
	for t in $rooms; do
		n=${edge[$r,$t]:-}
		case " ${allow[$r]} " in
		*" $t "*) c=${n:--} ;;
		*) c=${n:+!$n}; c=${c:--} ;;
		esac
		[ "$t" = "$r" ] && c=.
		printf ' %5s' "$c"
	done
	echo
done
[ $fail -eq 0 ] && echo "ok - #include lines follow the allowed room-to-room edges (no cycles)"

# source paths named in comments of the sources and the plugin glue exist
root=$(cd "$src/.." && pwd)
while IFS=: read -r f m; do
	[ -e "$root/$m" ] || bad "${f#"$root"/} names $m, which does not exist"
done < <(grep -roE '\b(src|lib)/[A-Za-z0-9_/.-]+\.(c|h|md)\b' "$src" "$plugin" --include='*.[ch]')
[ $fail -eq 0 ] && echo "ok - the command layer and plugin include only public headers"
exit $fail

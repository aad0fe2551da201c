#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 40: man pages, completions and plugin glue against the command table
# (meson suite `docs`: drift test and its self-test, real bash and zsh
# completion), the built man pages, and `meson install` into a staging dir.
set -uo pipefail
cd "$(dirname "$0")/../.."
fail=0
step() { echo "--- $*"; }
bad() { echo "not ok - $*"; fail=1; }

step "meson test --suite docs"
meson test -C build --suite docs --print-errorlogs || fail=1

step "man pages built for every command of the table"
cmds=$(build/nvme-zns-npo2 help | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
[ -n "$cmds" ] || bad "no commands from nvme-zns-npo2 help"
for page in nvme-zns-npo2 $(printf 'nvme-zns-npo2-%s\n' $cmds); do
	f=build/Documentation/$page.1
	if [ ! -s "$f" ] || [ ! -s "build/Documentation/$page.html" ]; then
		bad "$page: $f or its HTML not built"
	elif ! grep -q '^\.SH "EXIT STATUS"' "$f"; then
		bad "$page: no EXIT STATUS section in the roff output"
	elif command -v man >/dev/null && ! MANWIDTH=80 man -l "$f" >/dev/null 2>&1; then
		bad "$page: man -l cannot render it"
	else
		echo "ok - $page(1)"
	fi
done

step "meson install (DESTDIR staging)"
dest=$PWD/build/install-test
rm -rf "$dest"
if DESTDIR=$dest meson install -C build --no-rebuild >build/install-test.log 2>&1; then
	prefix=$(meson introspect build --buildoptions | python3 -c \
		'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
	root=$dest$prefix
	for f in bin/nvme-zns-npo2 share/man/man1/nvme-zns-npo2.1 \
		share/bash-completion/completions/nvme-zns-npo2 share/zsh/site-functions/_nvme-zns-npo2; do
		[ -e "$root/$f" ] && echo "ok - installs $f" || bad "does not install $prefix/$f"
	done
	for c in $cmds; do
		[ -e "$root/share/man/man1/nvme-zns-npo2-$c.1" ] || bad "does not install nvme-zns-npo2-$c.1"
	done
	for d in systemd udev; do
		if [ -d "$d" ]; then
			n=$(find "$dest" -path "*$d*" -type f | wc -l)
			[ "$n" -gt 0 ] && echo "ok - installs $n $d file(s)" || bad "$d/ exists but nothing is installed from it"
		fi
	done
else
	cat build/install-test.log
	bad "meson install failed"
fi

[ $fail -eq 0 ] && echo "40-docs: pass" || echo "40-docs: FAILED"
exit $fail

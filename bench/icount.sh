# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the VM benchmarks (from the repository root); not a benchmark.

# icount_path DIR OPTS: a PATH for tests/vm/vm-run.sh whose first
# qemu-system-x86_64 is a wrapper in DIR adding "-icount OPTS": guest time
# then advances with the guest instructions executed, so IOPS count the work
# per I/O and do not depend on the load of the host. OPTS "off": the PATH
# unchanged (host time).
icount_path() {
	local real dir
	if [ "$2" = off ]; then
		echo "$PATH"
		return 0
	fi
	real=$(command -v qemu-system-x86_64) || { echo "qemu-system-x86_64 not found" >&2; return 1; }
	mkdir -p "$1" && dir=$(cd "$1" && pwd) || return 1
	printf '#!/bin/sh\nexec %s -icount %s "$@"\n' "$real" "$2" >"$dir/qemu-system-x86_64" &&
		chmod +x "$dir/qemu-system-x86_64" || return 1
	echo "$dir:$PATH"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The drift test must catch drift: copies of the man pages and plugin glue,
# each broken in one way, must each make drift.py fail naming the problem.
#   drift-selftest.sh NVME_ZNS_NPO2 SOURCE_ROOT
set -uo pipefail
exe=$1 root=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exe" __table >"$tmp/table.json" || exit 1
fails=0 n=0

# mutate NAME EXPECTED-MESSAGE-REGEX COMMAND...: run COMMAND in a fresh copy
mutate() {
	local name=$1 want=$2
	shift 2
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/plugins"
	cp -r "$root/Documentation" "$tmp/t/"
	cp -r "$root/plugins/zns-npo2" "$tmp/t/plugins/"
	(cd "$tmp/t" && "$@") || { echo "not ok - $name: mutation failed"; fails=$((fails + 1)); return; }
	n=$((n + 1))
	if python3 "$here/drift.py" "$tmp/table.json" "$tmp/t" >"$tmp/out" 2>&1; then
		echo "not ok $n - $name: drift.py passed"
		fails=$((fails + 1))
	elif ! grep -Eq -- "$want" "$tmp/out"; then
		echo "not ok $n - $name: drift.py failed without /$want/:"
		sed 's/^/#   /' "$tmp/out"
		fails=$((fails + 1))
	else
		echo "ok $n - $name"
	fi
}

mkdir -p "$tmp/u/plugins"
cp -r "$root/Documentation" "$tmp/u/"
cp -r "$root/plugins/zns-npo2" "$tmp/u/plugins/"
n=1
if python3 "$here/drift.py" "$tmp/table.json" "$tmp/u" >"$tmp/out" 2>&1; then
	echo "ok 1 - an unmodified copy passes"
else
	echo "not ok 1 - an unmodified copy fails:"
	sed 's/^/#   /' "$tmp/out"
	fails=1
fi
mutate "option removed from a page" "option --count of report is not documented" \
	sed -i '/^\*-c\* _N_, \*--count\*=_N_::/,+2d' Documentation/nvme-zns-npo2-report.adoc
mutate "wrong placeholder" "argument documented as NUM" \
	sed -i 's/^\*-s\* _LBA_, \*--start-lba\*=_LBA_::/*-s* _NUM_, *--start-lba*=_NUM_::/' Documentation/nvme-zns-npo2-report.adoc
mutate "option the command lacks" "documents --bogus" \
	sed -i 's/^== OPTIONS$/== OPTIONS\n\n*--bogus*::\n\tNot an option.\n/' Documentation/nvme-zns-npo2-check.adoc
mutate "missing short spelling" "documents all as" \
	sed -i 's/^\*-a\*, \*--all\*, \*--select-all\*::/*--all*, *--select-all*::/' Documentation/_zone-op.adoc
mutate "page missing" "check: no man page" rm Documentation/nvme-zns-npo2-check.adoc
mutate "stale page" "no command frobnicate" cp Documentation/nvme-zns-npo2-list.adoc Documentation/nvme-zns-npo2-frobnicate.adoc
mutate "NAME differs from the table" "NAME is" \
	sed -i 's/^nvme-zns-npo2-list - .*/nvme-zns-npo2-list - list things/' Documentation/nvme-zns-npo2-list.adoc
mutate "plugin ENTRY missing" "ENTRY\(\) commands" sed -i '/ENTRY("close"/d' plugins/zns-npo2/zns-npo2.h
mutate "plugin help text differs" "help of open is" sed -i 's/"explicitly open zones"/"open zones"/' plugins/zns-npo2/zns-npo2.h
mutate "bash list in the patch differs" "bash subcommands" \
	sed -i 's/^\(+\t*\[zns-npo2\]="list report\)/\1 extra/' plugins/zns-npo2/nvme-cli/3.0-rc1.patch
echo "drift-selftest: $n cases, $fails failed"
[ $fails -eq 0 ]

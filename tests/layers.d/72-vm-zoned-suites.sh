#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 72: the risky zoned paths of the kernel series, on the
# patched kernel in QEMU (single-threaded TCG).
#   zoned-paths.sh  Zone Append carried by the block layer to an npo2 NVMe
#                   namespace (nvmet loop exporting its block device), zone
#                   write plugging with 8-16 writes in flight per zone (fio
#                   zbd, io_uring and libaio, block sizes that do not divide
#                   the zone size, verify) on npo2 null_blk and the npo2 NVMe
#                   namespace, nvmet exporting an npo2 null_blk whose size is
#                   not a multiple of its zone size.
#   suites.sh       blktests' zbd group and zonefs-tools' test suite, built
#                   unmodified from their source snapshots
#                   (scripts/build-suites.sh), on an npo2 null_blk, the npo2
#                   NVMe namespace and a dm-po2zone mapping, each beside a po2
#                   null_blk of the same size, and on a po2 NVMe namespace;
#                   the result of every test on every target must equal the
#                   table in kernel-patches/TEST-RESULTS.md (a skip is
#                   "notrun", never a pass).
#   the po2 control suites.sh on the po2 targets (nullb-po2, nullb-po2cap,
#                   nvme-po2) on Debian's stock 7.x kernel, the series' base
#                   without the series (scripts/stock-kernel.sh 7): every
#                   result must equal the patched kernel's for the same test
#                   and target (check-results.py --control).
# The three suite boots run in parallel (QEMU TCG runs single-threaded: one
# core each; on two cores the control adds about half a boot's time to the
# layer, where running it after a patched boot would add a whole one);
# SUITES_SERIAL=1 runs them one after the other (one VM at a time).
# Needs build/kernel/bzImage (make kernel), the stock 7.x kernel with its
# configuration (scripts/stock-kernel.sh 7, fetched if missing) and the
# suites' source snapshots (ZNP_VENDOR, see scripts/build-suites.sh):
# missing ones fail the layer.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/layer.sh

layer_patched_kernel 72-vm-zoned-suites || exit 1
bash scripts/build-suites.sh || { echo "72-vm-zoned-suites: FAILED: the external suites could not be built" >&2; exit 1; }
out=build/vm-suites
mkdir -p "$out"
gcc -static -O2 -Wall -Wextra -Werror -o "$out/zonectl" tests/vm/patched/helpers/zonectl.c || exit 1

# what the suites need beyond the harness' tools: bash and the GNU/util-linux
# tools they call with options busybox lacks, kmod as modinfo/depmod
adds=()
for t in bash getopt column stat dd realpath timeout date mktemp sort cut tr head tail wc \
	seq truncate sync uniq basename dirname readlink id env cat cp mv rm ls mkdir ln \
	grep sed xargs find tee touch du df blockdev losetup mount umount findmnt lsblk awk gzip; do
	p=$(PATH=/usr/bin:/bin:/usr/sbin:/sbin command -v "$t") || { echo "72-vm-zoned-suites: $t missing (make deps)" >&2; exit 1; }
	adds+=(--add "$(readlink -f "$p"):/usr/bin/$t")
done
# zgrep is a /bin/sh script: busybox ash would run its own gzip applet, which
# does not pass uncompressed files through; let bash run it
sed '1s|^#!.*|#!/usr/bin/bash|' "$(command -v zgrep)" >"$out/zgrep" && chmod 755 "$out/zgrep" || exit 1
adds+=(--add "$out/zgrep:/usr/bin/zgrep")
# the guest runs as root; zonefs-tests calls sudo in a few cases
printf '#!/usr/bin/bash\nexec "$@"\n' >"$out/sudo" && chmod 755 "$out/sudo" || exit 1
adds+=(--add "$out/sudo:/usr/bin/sudo")
kmod=$(command -v kmod) || { echo "72-vm-zoned-suites: kmod missing (make deps)" >&2; exit 1; }
adds+=(--add "$kmod:/usr/sbin/modinfo" --add "$kmod:/usr/sbin/depmod" --add "$kmod:/usr/sbin/modprobe"
	--add "$kmod:/usr/sbin/rmmod" --add "$kmod:/usr/sbin/lsmod")
# the configuration and builtin module lists of the image booted, which
# scripts/kernel-build.sh leaves beside it (ZNP_PATCHED_KERNEL may name
# another build than build/kernel)
kdir=$(dirname "$img")
for f in "$kdir/config" "$kdir/src/modules.builtin" "$kdir/src/modules.builtin.modinfo"; do
	[ -s "$f" ] || { echo "72-vm-zoned-suites: $f missing (not a tree of scripts/kernel-build.sh?)" >&2; exit 1; }
done
# the stock kernel of the control and its configuration (linux-base-KVER)
skdir=$(layer_stock_kdir 72-vm-zoned-suites 7) || exit 1
skver=$(cat "$skdir/KVER")
for f in config modules.builtin modules.builtin.modinfo; do
	[ -s "$skdir/lib/modules/$skver/$f" ] ||
		{ echo "72-vm-zoned-suites: $skdir/lib/modules/$skver/$f missing (scripts/stock-kernel.sh 7)" >&2; exit 1; }
done
sadds=(--add "$skdir/lib/modules/$skver/config:/vm/kconfig"
	--add "$skdir/lib/modules/$skver/modules.builtin:/vm/modules.builtin"
	--add "$skdir/lib/modules/$skver/modules.builtin.modinfo:/vm/modules.builtin.modinfo")
padds=(--add "$kdir/config:/vm/kconfig"
	--add "$kdir/src/modules.builtin:/vm/modules.builtin"
	--add "$kdir/src/modules.builtin.modinfo:/vm/modules.builtin.modinfo")
adds+=(--add "$out/zonectl"
	--add "build/suites/blktests.tar:/vm/blktests.tar"
	--add "build/suites/zonefs-tools.tar:/vm/zonefs-tools.tar"
	--add "build/suites/zonefs-tools/src/mkzonefs:/usr/bin/mkzonefs"
	--add "build/suites/blkzone-npo2/blkzone:/opt/blkzone-npo2/blkzone")

fail=0
start=$SECONDS
layer_boot 72-vm-zoned-suites zoned-paths build/vm-logs/zoned-paths.log \
	--kernel "$img" --guest tests/vm/suites/zoned-paths.sh --quiet \
	--append "null_blk.nr_devices=0" --timeout 600 \
	--add "$out/zonectl" --ns ctrl=0,nsid=1,size=96M,lbas=4096,zoned=1,zsze=12M,zcap=12M || fail=1
echo "72-vm-zoned-suites: zoned-paths boot took $((SECONDS - start)) s"

[ -n "${SUITES_SKIP_EXTERNAL:-}" ] && { echo "72-vm-zoned-suites: SUITES_SKIP_EXTERNAL set: external suites NOT run" >&2; exit 1; }
# the npo2 namespace of boot a, the po2 one of boot b and of the control
ns_npo2=ctrl=0,nsid=1,size=48M,lbas=4096,zoned=1,zsze=6M,zcap=6M
ns_po2=ctrl=1,nsid=1,size=48M,lbas=4096,zoned=1,zsze=8M,zcap=8M
start=$SECONDS
suites_vm() {
	layer_boot 72-vm-zoned-suites "suites $1" "build/vm-logs/suites-$2.log" \
		--kernel "$img" --guest tests/vm/suites/suites.sh --quiet --mem 2G \
		--append "null_blk.nr_devices=0 znp.suites=$1" --timeout "${SUITES_TIMEOUT:-1500}" \
		"${adds[@]}" "${padds[@]}" --ns "$3" >"$out/suites-$2.report"
}
# the po2 control: Debian's stock kernel, its modules (zonefs too: the
# patched image has it built in), the po2 targets
suites_control() {
	STOCK_KDIR=$skdir layer_boot 72-vm-zoned-suites "po2 control, stock $skver" \
		build/vm-logs/suites-control.log \
		--kernel stock --modules zonefs --guest tests/vm/suites/suites.sh --quiet --mem 2G \
		--append "znp.suites=nullb-po2,nullb-po2cap,nvme-po2" --timeout "${SUITES_TIMEOUT:-1500}" \
		"${adds[@]}" "${sadds[@]}" --ns "$ns_po2" >"$out/suites-control.report"
}
if [ -n "${SUITES_SERIAL:-}" ]; then
	suites_vm nullb-npo2,nullb-po2,nvme-npo2 a "$ns_npo2" || fail=1
	suites_vm po2zone,nullb-po2cap,nvme-po2 b "$ns_po2" || fail=1
	suites_control || fail=1
else
	suites_vm nullb-npo2,nullb-po2,nvme-npo2 a "$ns_npo2" &
	pa=$!
	suites_vm po2zone,nullb-po2cap,nvme-po2 b "$ns_po2" &
	pb=$!
	suites_control &
	pc=$!
	wait $pa || fail=1
	wait $pb || fail=1
	wait $pc || fail=1
fi
cat "$out/suites-a.report" "$out/suites-b.report" "$out/suites-control.report"
echo "72-vm-zoned-suites: suites boots took $((SECONDS - start)) s"

# the table of the run against the expected one
python3 tests/vm/suites/check-results.py build/vm-logs/suites-a.log,build/vm-logs/suites-b.log \
	kernel-patches/TEST-RESULTS.md "$out/results.md" || fail=1
# the po2 control against the patched run and the table
python3 tests/vm/suites/check-results.py --control build/vm-logs/suites-control.log \
	build/vm-logs/suites-a.log,build/vm-logs/suites-b.log \
	kernel-patches/TEST-RESULTS.md "$out/po2-control.md" || fail=1
exit $fail

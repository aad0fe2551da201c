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
#                   null_blk of the same size; the result of every test on
#                   every target must equal the table in
#                   kernel-patches/TEST-RESULTS.md (a skip is "notrun", never
#                   a pass).
# Needs build/kernel/bzImage (make kernel) and the suites' source snapshots
# (ZNP_VENDOR, see scripts/build-suites.sh): missing ones fail the layer.
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
adds+=(--add "$out/zonectl"
	--add "$kdir/config:/vm/kconfig"
	--add "$kdir/src/modules.builtin:/vm/modules.builtin"
	--add "$kdir/src/modules.builtin.modinfo:/vm/modules.builtin.modinfo"
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
# two boots in parallel (QEMU TCG runs single-threaded: one core each)
start=$SECONDS
suites_vm() {
	layer_boot 72-vm-zoned-suites "suites $1" "build/vm-logs/suites-$2.log" \
		--kernel "$img" --guest tests/vm/suites/suites.sh --quiet --mem 2G \
		--append "null_blk.nr_devices=0 znp.suites=$1" --timeout "${SUITES_TIMEOUT:-1500}" \
		"${adds[@]}" --ns ctrl=0,nsid=1,size=48M,lbas=4096,zoned=1,zsze=6M,zcap=6M >"$out/suites-$2.report"
}
suites_vm nullb-npo2,nullb-po2,nvme-npo2 a &
pa=$!
suites_vm po2zone,nullb-po2cap b &
pb=$!
wait $pa || fail=1
wait $pb || fail=1
cat "$out/suites-a.report" "$out/suites-b.report"
echo "72-vm-zoned-suites: suites boots took $((SECONDS - start)) s"

# the table of the run against the expected one
python3 tests/vm/suites/check-results.py build/vm-logs/suites-a.log,build/vm-logs/suites-b.log \
	kernel-patches/TEST-RESULTS.md "$out/results.md" || fail=1
exit $fail

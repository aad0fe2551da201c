#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# NVMe/TCP export vs the local ublk device: two QEMU VMs on Debian's stock
# 6.12 on a QEMU socket network, as in layer 47. The storage node serves
# its npo2 namespace (768 MiB, 48 MiB zones) with `map --ublk` and exports
# the mapping with `export` over NVMe/TCP; the host connects with
# `nvme connect -t tcp`. The same fio workloads (bench/tcp-fio-guest.sh: 4 KiB
# random read iodepth 16 over zone 0, 128 KiB sequential write iodepth 4
# and 1 over zones 1..) run on the node's /dev/ublkbN before the export (round
# a), on the host's remote namespace, and on the node again after (round
# b). Printed: each figure and remote / local, where local is the mean of
# the node's two rounds, so the remote run sits between them in time.
#
#   bash bench/tcp-bench.sh            # about 4 min on 2 cores
# env: TCP_BENCH_RUNTIME seconds per fio run (10).
# Host time (no -icount): the two guests talk in real time, and each
# guest's clock under -icount would run at its own instruction rate.
# Under TCG each VM runs on one host thread: what the remote figure costs
# is the wire (virtio-net over a socket netdev), nvme-tcp and nvmet on top
# of the ublk path, all emulated; compare the ratio, not the IOPS. The
# exit status is non-zero only when the bench could not run or a run
# failed (no target is set for the ratio).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
runtime=${TCP_BENCH_RUNTIME:-10}
[ -x build/nvme-zns-npo2 ] || { echo "tcp-bench: build/nvme-zns-npo2 not built (run make)" >&2; exit 1; }
mkdir -p build/bench build/vm-logs
stamp=$(date +%Y%m%d-%H%M%S)
nlog=build/vm-logs/tcp-bench-$stamp-node.log hlog=build/vm-logs/tcp-bench-$stamp-host.log
. tests/vm/layer.sh
common=(--add tests/vm/ublk-tcp/common.sh:/vm/guest/tcp-common.sh
	--append "no_timer_check TB_RUNTIME=$runtime" --timeout $((900 + 12 * runtime)) --quiet --mem 1G)
node=(--kernel stock --guest bench/tcp-node-guest.sh "${common[@]}"
	--ns ctrl=0,nsid=1,size=768M,lbas=4096,zoned=1,zsze=48M,zcap=48M
	--modules "ublk_drv nvmet nvmet-tcp virtio_net" --log "$nlog")
host=(--kernel stock --guest bench/tcp-host-guest.sh "${common[@]}"
	--modules "nvme-tcp virtio_net" --log "$hlog")
layer_pair node host
nrc=$pair_lrc hrc=$pair_crc
[ $nrc -eq 0 ] || echo "tcp-bench: the node's run failed (log $nlog)" >&2
[ $hrc -eq 0 ] || echo "tcp-bench: the host's run failed (log $hlog)" >&2
raw=build/bench/tcp-bench.raw
for l in "$nlog" "$hlog"; do
	sed -n '/^### BEGIN tcp-bench/,/^### END tcp-bench/p' "$l" 2>/dev/null | grep '^tcpb '
done >"$raw"
python3 - "$raw" "$runtime" <<'PY' | tee build/bench/tcp-bench.txt
import sys
v = {}
for line in open(sys.argv[1]):
    _, where, w, r, iops, kib, ms = line.split()
    if where == "wire":
        v[(where, w)] = iops
        continue
    v[(where, w, r)] = (int(iops), int(kib))
print(f"NVMe/TCP export of a map --ublk mapping vs its local ublk device: stock 6.12 node and host,")
print(f"QEMU TCG, host time, fio {sys.argv[2]} s per run; local = mean of the node's rounds a and b")
print(f"{'workload':<22}{'local a':>12}{'local b':>12}{'remote':>12}{'remote/local':>14}")
bad = 0
names = {"randread": "4k randread", "seqwrite": "128k seqwrite", "seqwrite1": "128k write qd1"}
for w, unit, i, fmt in (("randread", "IOPS", 0, lambda x: f"{x:.0f}"),
                        ("seqwrite", "MiB/s", 1, lambda x: f"{x / 1024:.1f}"),
                        ("seqwrite1", "MiB/s", 1, lambda x: f"{x / 1024:.1f}")):
    a, b, rem = (v.get(k) for k in (("local", w, "a"), ("local", w, "b"), ("remote", w, "a")))
    if not (a and b and rem):
        print(f"{names[w]:<22}no result")
        bad = 1
        continue
    loc = (a[i] + b[i]) / 2
    print(f"{names[w] + ' ' + unit:<22}{fmt(a[i]):>12}{fmt(b[i]):>12}{fmt(rem[i]):>12}"
          f"{rem[i] / loc if loc else 0:>14.2f}")
print(f"the wire (host to node): ping RTT {v.get(('wire', 'rtt-ms'), '?')} ms, "
      f"one TCP stream {v.get(('wire', 'stream-MiB/s'), '?')} MiB/s")
sys.exit(bad)
PY
prc=${PIPESTATUS[0]}
[ $nrc -eq 0 ] && [ $hrc -eq 0 ] && [ "$prc" -eq 0 ]

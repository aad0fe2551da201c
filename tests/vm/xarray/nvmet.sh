# Patched kernel: namespace churn on an NVMe-oF (loop) controller with 42+
# namespaces while fio runs on the namespaces that stay. The target's
# namespaces are added and removed through configfs; after every step the
# host's namespaces (sysfs), `nvme list` and `nvme-zns-npo2 list` must match
# what configfs holds. Namespaces come and go by change notices (the host
# rescans by itself), explicit `nvme ns-rescan` and the sysfs
# rescan_controller attribute. One namespace is removed under running I/O.
# Backing devices: null_blk from the kernel command line (nullb0..nullb43,
# 1 GiB each, not memory backed) and two zoned null_blk made here.
. /vm/guest/xlib.sh
CFS=/sys/kernel/config/nvmet
NQN=nqn.2014-08.org.zns-npo2:xarray-churn
SER=znpxarray01
SUB=$CFS/subsystems/$NQN

# backing device of each NSID we use: 1-40 -> nullb0-39, 41 -> npo2 zoned,
# 42 -> po2 zoned, 100/513/1024 -> nullb40-42 (sparse NSIDs; the target
# reports 1024 as its highest NSID)
backing() {
	case "$1" in
	41) echo xz96 ;;
	42) echo xz128 ;;
	100) echo nullb40 ;;
	513) echo nullb41 ;;
	1024) echo nullb42 ;;
	*) echo "nullb$(($1 - 1))" ;;
	esac
}

ns_add() { # NSID...
	local n
	for n in "$@"; do
		mkdir "$SUB/namespaces/$n" &&
			echo "/dev/$(backing "$n")" >"$SUB/namespaces/$n/device_path" &&
			echo 1 >"$SUB/namespaces/$n/enable" || return 1
	done
}

# disables run in parallel: each waits for an RCU grace period and for the
# namespace's I/O, and the host gets overlapping change notices
ns_del() { # NSID...
	local n pids=
	for n in "$@"; do
		echo 0 >"$SUB/namespaces/$n/enable" &
		pids="$pids $!"
	done
	wait $pids	# only these: fio runs in the background too
	for n in "$@"; do
		[ "$(cat "$SUB/namespaces/$n/enable")" = 0 ] && rmdir "$SUB/namespaces/$n" || return 1
	done
}

# geometry of the backing devices, "NAME SIZE ZONE" (bytes), read once
geometry() {
	local b z
	for b in $(ls /sys/block | grep -E '^(nullb[0-9]+|xz96|xz128)$'); do
		z=0
		[ "$(cat "/sys/block/$b/queue/zoned")" = none ] ||
			z=$(($(cat "/sys/block/$b/queue/chunk_sectors") * 512))
		echo "$b $(($(cat "/sys/block/$b/size") * 512)) $z"
	done >/tmp/geometry
}

# what configfs holds: "NSID SIZE ZONE" of every enabled namespace, the
# geometry from its backing device
configured() {
	grep -H . "$SUB"/namespaces/*/enable "$SUB"/namespaces/*/device_path 2>/dev/null |
		awk -F: 'FNR == NR { split($0, f, " "); g[f[1]] = $0; next }
		{
			# PATH:VALUE, and the NQN in PATH has colons of its own
			match($0, /:[^:]*$/)
			p = substr($0, 1, RSTART - 1); v = substr($0, RSTART + 1)
			n = p; sub(/\/[a-z_]+$/, "", n); sub(/^.*\//, "", n)
			if (p ~ /enable$/) en[n] = v; else { sub(/^.*\//, "", v); dev[n] = v }
		}
		END {
			for (n in en) if (en[n] == 1) {
				split(g[dev[n]], f, " ")
				print n, f[2], f[3]
			}
		}' /tmp/geometry - | sort -n
}

# step LABEL: wait for the host to follow configfs, then compare every view
step() {
	local want
	want=$(configured)
	vm_log "step: $1 ($(echo "$want" | wc -l) namespaces configured)"
	settle "$CTRL" "$want" 60 ||
		not_ok "$1: host followed configfs within 60 s" "$(kern_ns "$CTRL" | tr '\n' ' ')"
	check_views "$1" "$CTRL" "$SER" "$want"
}

seq_list() { # FIRST LAST
	local i=$1
	while [ "$i" -le "$2" ]; do echo "$i"; i=$((i + 1)); done
}

# ---- target: 42 namespaces on one subsystem, loop port ----------------------
nb=$(mk_nullb xz96 zoned=1 zone_size=96 size=1152 blocksize=4096 memory_backed=1) &&
	[ "$nb" = xz96 ] || not_ok "zoned null_blk xz96 (96 MiB zones)"
nb=$(mk_nullb xz128 zoned=1 zone_size=128 size=1024 blocksize=4096 memory_backed=1) &&
	[ "$nb" = xz128 ] || not_ok "zoned null_blk xz128 (128 MiB zones)"
expect_eq "44 null_blk devices from the command line" "$(ls -d /sys/block/nullb[0-9]* | wc -l)" 44
geometry
expect_eq "geometry of 46 backing devices" "$(wc -l </tmp/geometry)" 46
mkdir "$CFS/ports/1" && echo loop >"$CFS/ports/1/addr_trtype"
mkdir "$SUB" && echo 1 >"$SUB/attr_allow_any_host" && echo "$SER" >"$SUB/attr_serial"
expect_ok "configfs: namespaces 1-42 enabled" ns_add $(seq_list 1 42)
ln -s "$SUB" "$CFS/ports/1/subsystems/$NQN"
expect_ok "host: connect over loop" sh -c "echo transport=loop,nqn=$NQN >/dev/nvme-fabrics"
CTRL=
for c in /sys/class/nvme/nvme*; do
	[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && CTRL=${c##*/}
done
[ -n "$CTRL" ] && ok "host: loop controller is $CTRL" || { not_ok "host: loop controller found"; exit 0; }
step "initial 42 namespaces"

# head disk (what fio opens) of an NSID
head_of() {
	local d
	for d in /sys/block/nvme*n*; do
		case "${d##*/}" in *c*n*) continue ;; esac
		[ "$(cat "$d/device/subsysnqn" 2>/dev/null)" = "$NQN" ] &&
			[ "$(cat "$d/nsid")" = "$1" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}

# ---- fio on the namespaces that stay: the first 4 and the last 4 of 1-40 ------
jobs=
for n in 1 2 3 4 37 38 39 40; do
	d=$(head_of "$n") || not_ok "head disk of NSID $n"
	jobs="$jobs --name=ns$n --filename=$d"
done
fio --ioengine=io_uring --direct=1 --bs=4k --rw=randrw --iodepth=4 --size=256M \
	--time_based --runtime=900 --rate_iops=50 --output-format=terse --terse-version=3 \
	$jobs >/tmp/fio-stay.txt 2>/tmp/fio-stay.err &
fio_pid=$!

# one namespace removed while fio writes to it: fio must see its I/O end
# (errors once the namespace is gone, or the end of its 30 s run), not hang
v=$(head_of 8)
fio --ioengine=io_uring --direct=1 --bs=4k --rw=randwrite --iodepth=8 --size=256M \
	--time_based --runtime=30 --name=victim --filename="$v" \
	--output-format=terse --terse-version=3 >/tmp/fio-victim.txt 2>&1 &
victim=$!
sleep 3
expect_ok "configfs: remove NSIDs 5-12 (8 under I/O)" ns_del $(seq_list 5 12)
step "NSIDs 5-12 removed by change notice"
i=0
while kill -0 $victim 2>/dev/null && [ $i -lt 90 ]; do sleep 1; i=$((i + 1)); done
if kill -0 $victim 2>/dev/null; then
	not_ok "fio on the removed NSID 8 ended" "$(grep -H . /proc/$victim/task/*/wchan 2>/dev/null | head -3)"
	kill -9 $victim
else
	ok "fio on the removed NSID 8 ended ($v gone: $(cat /tmp/fio-victim.txt | grep -o 'error=[^,]*' | head -1))"
fi
wait $victim 2>/dev/null
vm_log "head disks of the subsystem: $(for d in /sys/block/nvme*n*; do echo "${d##*/}=$(cat $d/nsid)"; done | tr '\n' ' ')"

expect_ok "configfs: remove NSIDs 15 17 19 21 and the npo2 zoned 41" ns_del 15 17 19 21 41
step "scattered NSIDs and the npo2 zoned namespace removed"
expect_ok "nvme ns-rescan /dev/$CTRL" nvme ns-rescan "/dev/$CTRL"
step "after nvme ns-rescan (nothing changed)"
expect_ok "configfs: add back 5-12 15 17 19 21 41" ns_add $(seq_list 5 12) 15 17 19 21 41
step "removed namespaces added back"
expect_ok "sysfs rescan_controller" sh -c "echo 1 >/sys/class/nvme/$CTRL/rescan_controller"
step "after rescan_controller (nothing changed)"
expect_ok "configfs: remove NSIDs 13-28 (a range of 16)" ns_del $(seq_list 13 28)
step "NSIDs 13-28 removed"
expect_ok "configfs: add sparse NSIDs 100 513 1024" ns_add 100 513 1024
step "sparse NSIDs added"
expect_ok "configfs: add back 13-28" ns_add $(seq_list 13 28)
expect_ok "configfs: remove the po2 zoned 42" ns_del 42
step "13-28 back, 42 gone"
expect_ok "nvme ns-rescan /dev/$CTRL" nvme ns-rescan "/dev/$CTRL"
step "after a second nvme ns-rescan"

# ---- the I/O that never stopped -------------------------------------------
# fio runs until it is stopped (SIGINT: the jobs end and report normally)
if kill -0 $fio_pid 2>/dev/null; then
	ok "fio on the remaining namespaces was running through every step"
	kill -INT $fio_pid
else
	not_ok "fio on the remaining namespaces was running through every step" "$(cat /tmp/fio-stay.err)"
fi
wait $fio_pid
vm_log "fio exit status after SIGINT: $?"
fio_ok "fio on NSIDs 1-4 and 37-40" /tmp/fio-stay.txt 8
vm_log "fio: $(awk -F';' '{ r += $8; w += $49 } END { print r " read + " w " write IOPS" }' /tmp/fio-stay.txt)"

# ---- disconnect: every namespace of the controller goes away ----------------
expect_ok "nvme disconnect" nvme disconnect -n "$NQN"
i=0
while [ -e "/sys/class/nvme/$CTRL" ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "controller $CTRL gone after disconnect" "$(ls -d /sys/class/nvme/$CTRL 2>/dev/null)" ""
expect_eq "no namespace of the subsystem left in nvme list" "$(cli_ns "$SER")" ""
expect_eq "no 'failed to track namespace' messages" "$(dmesg | grep -c 'failed to track namespace')" 0

# The server of A is SIGKILLed while fio (--zonemode=zbd, io_uring, iodepth
# 8, write + verify) runs on A's ublk device; a new `map --ublk` takes the
# quiesced device back (user recovery); fio's verify must pass. Sourced by
# guest.sh.
#
# ublk_drv fails the requests the dead server had already taken (EIO;
# reissuing them could duplicate appends), so fio is frozen (SIGSTOP) while
# the server is killed: its in-flight I/O completes first. fio resumes
# while the device is quiesced, so its next I/O waits for the new server.

expect_ok "fio: reset A's zones" blkzone reset "$UA"
FIO_ZONES=6
# --thread: the job runs in fio's process, so SIGSTOP freezes it
fio --name=killverify --thread --filename="$UA" --direct=1 --ioengine=io_uring --iodepth=8 \
	--zonemode=zbd --rw=write --bs=64k --size=$((FIO_ZONES * A_ZSZE)) \
	--max_open_zones=4 --verify=crc32c --verify_fatal=1 --do_verify=1 \
	--output=/tmp/fio-kill.out >/dev/null 2>&1 &
FIO=$!
PA=$(server_pid "$UA")
# let it write about two zones' worth
i=0
while [ $i -lt 300 ]; do
	w=$(zone_rows "$UA" | awk '{ s += $4 } END { print s + 0 }')
	[ "$w" -ge $((2 * A_ZSZE / 512)) ] && break
	sleep 0.2
	i=$((i + 1))
done
vm_log "fio wrote $w sectors before the kill"
expect_eq "fio is running" "$(gone $FIO || echo running)" running
kill -STOP $FIO
# the zone write plug keeps dispatching fio's queued writes: wait until the
# device has nothing in flight
i=0 idle=0
while [ $idle -lt 3 ] && [ $i -lt 150 ]; do
	case "$(cat /sys/block/${UA#/dev/}/inflight | tr -s ' ')" in
	*" 0 0"|"0 0") idle=$((idle + 1)) ;;
	*) idle=0 ;;
	esac
	sleep 0.2
	i=$((i + 1))
done
vm_log "in flight before the kill: $(cat /sys/block/${UA#/dev/}/inflight)"
w=$(zone_rows "$UA" | awk '{ s += $4 } END { print s + 0 }')
expect_eq "the kill comes before fio wrote everything ($w of $((FIO_ZONES * A_ZSZE / 512)) sectors)" \
	"$([ "$w" -lt $((FIO_ZONES * A_ZSZE / 512)) ] && echo yes)" yes
kill -KILL "$PA"
i=0
while ! gone "$PA" && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "the server was killed" "$(gone "$PA" && echo gone)" gone
i=0
while [ "$(health "$UA")" != dead-quiesced ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
expect_eq "status: dead-quiesced" "$(health "$UA")" dead-quiesced
expect_eq "the device stayed" "$([ -b "$UA" ] && echo yes)" yes
kill -CONT $FIO
sleep 1
expect_eq "fio waits while no server serves (I/O held, not failed)" "$(gone $FIO || echo waiting)" waiting
expect_ok "a new map --ublk takes the quiesced device back" run_to 90 $Z map --ublk "$A" -o json
cp /tmp/vm-cmd.out /tmp/remap.json
expect_eq "... the same device" "/dev/ublkb$(jget ublk_dev_id /tmp/remap.json)" "$UA"
expect_eq "... reported as recovered" "$(jget recovered /tmp/remap.json)" true
expect_match "... and logged" 'quiesced.*taking it back' "$(cat /tmp/syslog 2>/dev/null)"
PA2=$(jget server_pid /tmp/remap.json)
expect_eq "status: alive, new pid" "$(health "$UA") $(server_pid "$UA")" "alive $PA2"
i=0
while ! gone $FIO && [ $i -lt 600 ]; do sleep 0.5; i=$((i + 1)); done
wait $FIO
rc=$?
expect_eq "fio write + verify across the restart: exit 0" "$rc" 0
expect_match "fio verified what it wrote" 'err= *0' "$(cat /tmp/fio-kill.out)"
grep -E 'err=|WRITE:|READ:' /tmp/fio-kill.out | sed 's/^/#   /'
ns_vs_ublk "$A" "$UA" 4096 "after fio"

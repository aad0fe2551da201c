# Scenarios 1 and 2 (rounds.sh): the server SIGKILLed at random moments
# under each workload, then SIGTERMed under the same workloads (systemd's
# stop/restart); each time a new server started as the unit does takes the
# device back. Then double faults under btrfs: the first new server
# SIGKILLed during its start, a third one takes the device back. Sourced by guest.sh.

scenario KILL btrfs "$CRASH_BTRFS" crash-btrfs
scenario KILL f2fs "$CRASH_F2FS" crash-f2fs
scenario KILL fio "$CRASH_FIO" crash-fio
scenario TERM btrfs "$TERM_BTRFS" restart-btrfs
scenario TERM f2fs "$TERM_F2FS" restart-f2fs
scenario TERM fio "$TERM_FIO" restart-fio
scenario DOUBLE btrfs "$DOUBLE_BTRFS" double-btrfs

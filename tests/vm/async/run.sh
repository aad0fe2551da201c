#!/bin/bash
# Host side of the async VM tests: stock kernel, a 1000-zone npo2 namespace,
# a conventional one and a 512-byte-LBA zoned one; guest script guest.sh.
#   tests/vm/async/run.sh [--kernel stock|BZIMAGE] [--guest tests/vm/async/bench.sh] [vm-run options]
# Exit: vm-run.sh's (0 pass).
set -euo pipefail
cd "$(dirname "$0")/../../.."
BUILD=${BUILD:-build}
mkdir -p "$BUILD/vm-async"
gcc -static -O2 -Wall -o "$BUILD/vm-async/zsend" tests/vm/async/zsend.c
kernel=stock guest=tests/vm/async/guest.sh
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift ;;
	--guest) guest=$2; shift ;;
	*) args+=("$1") ;;
	esac
	shift
done
exec bash tests/vm/vm-run.sh --kernel "$kernel" --guest "$guest" \
	--ns ctrl=0,nsid=1,size=750M,lbas=4096,zoned=1,zsze=768K,zcap=768K \
	--ns ctrl=0,nsid=2,size=64M,lbas=4096 \
	--ns ctrl=1,nsid=1,size=480M,lbas=512,zoned=1,zsze=48M,zcap=48M \
	--ns ctrl=1,nsid=2,size=512M,lbas=4096,zoned=1,zsze=64M,zcap=64M \
	--add "$BUILD/vm-async/zsend" ${args[@]+"${args[@]}"}

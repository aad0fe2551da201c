#!/bin/bash
# Layer 30: loop-device tests as root (async discard through io_uring and the
# BLKDISCARD fallback, safety refusals, error paths, Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec bash tests/loop/run.sh

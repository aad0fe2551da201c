#!/bin/bash
# Layer 10: unit, emulator and CLI tests (meson test, all suites).
set -euo pipefail
cd "$(dirname "$0")/../.."
meson test -C build --print-errorlogs

#!/bin/bash
# Layer 10: unit, emulator and CLI tests (meson test, all suites). A meson
# test that skips (exit 77) makes the layer a skip (exit 77), which
# scripts/run-layers.sh lists and never counts as a pass.
set -euo pipefail
cd "$(dirname "$0")/../.."
# meson's timeouts times 4, as the package build has them (x5): they are
# sized for a quiet machine, and the patched kernel builds beside this layer
meson test -C build --print-errorlogs --timeout-multiplier 4
exec python3 tests/lib/meson-skips.py build

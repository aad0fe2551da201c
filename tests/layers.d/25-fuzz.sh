#!/bin/bash
# Layer 25: build the libFuzzer targets with clang (build-fuzz/) and run
# each one briefly from its seed corpus (tests/fuzz/corpus/): a crash, a
# sanitizer report or a failed invariant fails the layer. Longer runs:
# `make fuzz` (60 s each) or tests/fuzz/run.sh --runs N.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec nice -n 5 bash tests/fuzz/run.sh --time "${ZNP_FUZZ_SMOKE_SECS:-12}"

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""List the meson tests of the last `meson test` run in BUILD that skipped
(exit 77): `meson test` exits 0 on skips, but a skip is not a pass.

Usage: meson-skips.py BUILD. Exit 0: no test skipped; 77: some did (named on
stdout); 1: no test log.
"""
import json
import os
import sys

log = os.path.join(sys.argv[1], 'meson-logs', 'testlog.json')
try:
    runs = [json.loads(ln) for ln in open(log) if ln.strip()]
except OSError as e:
    print('meson-skips: %s: %s' % (log, e.strerror))
    sys.exit(1)
skipped = [r['name'] for r in runs if r.get('result') == 'SKIP']
for name in skipped:
    print('skipped (not passed): %s' % name)
sys.exit(77 if skipped else 0)

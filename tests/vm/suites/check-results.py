#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the external-suite results of a VM run with the expected table.

usage: check-results.py CONSOLE_LOG[,CONSOLE_LOG...] EXPECTED_MD OUT_MD

The console logs hold lines "RESULT suite test target status"
(tests/vm/suites/suites.sh) with status passed, failed or notrun.
EXPECTED_MD (kernel-patches/TEST-RESULTS.md) holds the expected table:
rows "| suite | test | nullb-po2 | nullb-npo2 | nvme-npo2 | nullb-po2cap |
po2zone | note |", cells pass / fail / skip, or "-" for a target the row
is not run on (the suites blktests/blkzone-npo2 and zonefs/blkzone-npo2
rerun what failed on a target with a blkzone whose power-of-2 alignment
checks are fixed). Rules checked:
  - every (suite, test, target) of the run is in the table and equal to it,
    and every row of the table was run (a skip is a skip, never a pass);
  - a row where an npo2 target differs from its po2 control (nullb-npo2 and
    nvme-npo2 against nullb-po2, po2zone against nullb-po2cap) must carry a
    note saying why.
OUT_MD receives the run's table in the same format. Exit 0 when all rules
hold, 1 otherwise (each difference printed on one line).
"""
import re
import sys

TARGETS = ["nullb-po2", "nullb-npo2", "nvme-npo2", "nullb-po2cap", "po2zone"]
CONTROL = {"nullb-npo2": "nullb-po2", "nvme-npo2": "nullb-po2", "po2zone": "nullb-po2cap"}
SUITES = ("blktests", "zonefs", "blktests/blkzone-npo2", "zonefs/blkzone-npo2")
WORD = {"passed": "pass", "failed": "fail", "notrun": "skip"}


def section(text, name):
    m = re.search(r"^### BEGIN %s\n(.*?)^### END %s$" % (name, name), text, re.S | re.M)
    return m.group(1).splitlines() if m else None


def main():
    log, exp_md, out_md = sys.argv[1:4]
    lines = []
    for lg in log.split(","):
        with open(lg, errors="replace") as f:
            lines += [ln[len("RESULT "):] for ln in f.read().splitlines() if ln.startswith("RESULT ")]
    if not lines:
        print("check-results: no RESULT lines in %s" % log)
        return 1
    got = {}
    for ln in lines:
        p = ln.split()
        if len(p) != 4 or p[3] not in WORD or p[2] not in TARGETS:
            print("check-results: bad results line '%s'" % ln)
            return 1
        got[(p[0], p[1], p[2])] = WORD[p[3]]

    exp, notes, order = {}, {}, []
    with open(exp_md) as f:
        for ln in f:
            c = [x.strip() for x in ln.strip().strip("|").split("|")]
            if len(c) != len(TARGETS) + 3 or c[0] not in SUITES:
                continue
            key = (c[0], c[1])
            order.append(key)
            notes[key] = c[-1]
            for t, v in zip(TARGETS, c[2:-1]):
                if v != "-":
                    exp[key + (t,)] = v

    bad = []
    for k, v in sorted(got.items()):
        if k not in exp:
            bad.append("%s %s on %s: %s, not in the expected table" % (k[0], k[1], k[2], v))
        elif exp[k] != v:
            bad.append("%s %s on %s: %s, expected %s" % (k[0], k[1], k[2], v, exp[k]))
    for k, v in sorted(exp.items()):
        if k not in got:
            bad.append("%s %s on %s: expected %s, not run at all" % (k[0], k[1], k[2], v))
    for key in order:
        if "/" in key[0]:
            continue
        for t, ctl in CONTROL.items():
            a, b = exp.get(key + (t,)), exp.get(key + (ctl,))
            if a != b and not notes[key]:
                bad.append("%s %s: %s (%s) differs from %s (%s) without a note" % (key + (t, a, ctl, b)))

    # the run's own table
    keys = sorted({k[:2] for k in got}, key=lambda k: (SUITES.index(k[0]), k[1]))
    with open(out_md, "w") as f:
        f.write("| suite | test | " + " | ".join(TARGETS) + " | note |\n")
        f.write("|---|---|" + "---|" * len(TARGETS) + "---|\n")
        for key in keys:
            f.write("| %s | %s | " % key + " | ".join(got.get(key + (t,), "-") for t in TARGETS)
                    + " | %s |\n" % notes.get(key, ""))
    count = {}
    for v in got.values():
        count[v] = count.get(v, 0) + 1
    print("check-results: %d results (%s); table in %s" % (
        len(got), ", ".join("%d %s" % (n, w) for w, n in sorted(count.items())), out_md))
    for b in bad:
        print("check-results: MISMATCH " + b)
    print("check-results: %d results as expected, %d differences" % (len(got) - len([b for b in bad if " on " in b]), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

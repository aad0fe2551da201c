#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the external-suite results of a VM run with the expected table.

usage: check-results.py CONSOLE_LOG[,CONSOLE_LOG...] EXPECTED_MD OUT_MD
       check-results.py --control CONTROL_LOG CONSOLE_LOG[,...] EXPECTED_MD OUT_MD

The console logs hold lines "RESULT suite test target status"
(tests/vm/suites/suites.sh) with status passed, failed or notrun.
EXPECTED_MD (kernel-patches/TEST-RESULTS.md) holds the expected table:
rows "| suite | test | nullb-po2 | nullb-npo2 | nvme-po2 | nvme-npo2 |
nullb-po2cap | po2zone | note |", cells pass / fail / skip, or "-" for a
target the row is not run on (the suites blktests/blkzone-npo2 and
zonefs/blkzone-npo2 rerun what failed on a target with a blkzone whose
power-of-2 alignment checks are fixed). Rules checked:
  - every (suite, test, target) of the run is in the table and equal to it,
    and every row of the table was run (a skip is a skip, never a pass);
  - a row where an npo2 target differs from its po2 control (nullb-npo2 and
    nvme-npo2 against nullb-po2, po2zone against nullb-po2cap) must carry a
    note saying why.
OUT_MD receives the run's table in the same format. Exit 0 when all rules
hold, 1 otherwise (each difference printed on one line).

--control: CONTROL_LOG is the po2 control, the same script on the po2
targets (nullb-po2, nvme-po2, nullb-po2cap) of the kernel without the
series. Every result of the patched run (CONSOLE_LOG) on a target of the
control must be in the control with the same status, the control must have
no other result, and both must equal the table's cells. OUT_MD receives the
before/after table: counts per suite and target, then test by test.
"""
import re
import sys

TARGETS = ["nullb-po2", "nullb-npo2", "nvme-po2", "nvme-npo2", "nullb-po2cap", "po2zone"]
PO2 = ["nullb-po2", "nvme-po2", "nullb-po2cap"]
CONTROL = {"nullb-npo2": "nullb-po2", "nvme-npo2": "nullb-po2", "po2zone": "nullb-po2cap"}
SUITES = ("blktests", "zonefs", "blktests/blkzone-npo2", "zonefs/blkzone-npo2")
WORD = {"passed": "pass", "failed": "fail", "notrun": "skip"}


def section(text, name):
    m = re.search(r"^### BEGIN %s\n(.*?)^### END %s$" % (name, name), text, re.S | re.M)
    return m.group(1).splitlines() if m else None


def read_results(log):
    """{(suite, test, target): pass|fail|skip} of the RESULT lines of the
    comma-separated console logs, or an error message"""
    lines = []
    for lg in log.split(","):
        with open(lg, errors="replace") as f:
            lines += [ln[len("RESULT "):] for ln in f.read().splitlines() if ln.startswith("RESULT ")]
    if not lines:
        return "no RESULT lines in %s" % log
    got = {}
    for ln in lines:
        p = ln.split()
        if len(p) != 4 or p[3] not in WORD or p[2] not in TARGETS:
            return "bad results line '%s'" % ln
        got[(p[0], p[1], p[2])] = WORD[p[3]]
    return got


def read_expected(exp_md):
    """the expected table: {(suite, test, target): cell}, {(suite, test):
    note}, [(suite, test)] in the table's order"""
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
    return exp, notes, order


def control(ctl_log, log, exp_md, out_md):
    ctl, got = read_results(ctl_log), read_results(log)
    for r in (ctl, got):
        if isinstance(r, str):
            print("check-results: " + r)
            return 1
    exp = read_expected(exp_md)[0]
    tgts = sorted({k[2] for k in ctl}, key=TARGETS.index)
    bad = []
    for t in tgts:
        if t not in PO2:
            bad.append("the control ran on %s, not a po2 target" % t)
    keys = sorted({k for k in got if k[2] in tgts} | set(ctl),
                  key=lambda k: (SUITES.index(k[0]), k[1], TARGETS.index(k[2])))
    for k in keys:
        a, b = ctl.get(k), got.get(k)
        if a != b:
            bad.append("%s %s on %s: stock %s, patched %s" % (k + (a or "not run at all", b or "not run at all")))
        elif exp.get(k) != b:
            bad.append("%s %s on %s: %s on both, the table has %s" % (k + (b, exp.get(k, "no cell"))))

    def counts(res, suite, t):
        return "%d / %d / %d" % tuple(sum(1 for k, v in res.items() if k[0] == suite and k[2] == t and v == w)
                                      for w in ("pass", "fail", "skip"))
    with open(out_md, "w") as f:
        f.write("| suite | target | stock: passed / failed / notrun | patched: passed / failed / notrun |\n")
        f.write("|---|---|---|---|\n")
        for suite in SUITES:
            for t in tgts:
                if any(k[0] == suite and k[2] == t for k in keys):
                    f.write("| %s | %s | %s | %s |\n" % (suite, t, counts(ctl, suite, t), counts(got, suite, t)))
        f.write("\n| suite | test | " + " | ".join("%s stock | %s patched" % (t, t) for t in tgts) + " |\n")
        f.write("|---|---|" + "---|---|" * len(tgts) + "\n")
        for key in sorted({k[:2] for k in keys}, key=lambda k: (SUITES.index(k[0]), k[1])):
            f.write("| %s | %s | " % key + " | ".join("%s | %s" % (ctl.get(key + (t,), "-"), got.get(key + (t,), "-"))
                                                   for t in tgts) + " |\n")
    print("check-results: po2 control: %d results on %s (%s); before/after table in %s" % (
        len(ctl), ", ".join(tgts),
        ", ".join("%d %s" % (sum(1 for v in ctl.values() if v == w), w) for w in ("pass", "fail", "skip")), out_md))
    for b in bad:
        print("check-results: CONTROL MISMATCH " + b)
    print("check-results: po2 control: %d of %d results equal the patched kernel's and the table, %d differences" % (
        len(keys) - len([b for b in bad if " on " in b]), len(keys), len(bad)))
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--control":
        return control(*sys.argv[2:6])
    log, exp_md, out_md = sys.argv[1:4]
    got = read_results(log)
    if isinstance(got, str):
        print("check-results: " + got)
        return 1
    exp, notes, order = read_expected(exp_md)

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

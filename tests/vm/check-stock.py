#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Host-side checks of a stock-kernel VM run (tests/vm/guest/stock.sh).

Reads the console log, takes the '### BEGIN name' / '### END name' sections,
parses every JSON section with Python's json module and checks it against
the QEMU configuration (the 'nsconf' section: what vm-run.sh passed to QEMU)
and against Debian's nvme-cli and util-linux blkzone on the same device.
Prints TAP-style lines and 'HOST-RESULT: N passed, M failed'; exit 1 on any
failure.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmcheck import finish, nsconf, ok, sections  # noqa: E402


def load_json(secs, name):
    if name not in secs:
        ok(False, "section %s present in the log" % name)
        return None
    try:
        return json.loads(secs[name])
    except ValueError as e:
        ok(False, "section %s is valid JSON" % name, e)
        return None


# --- our JSON schema (src/cli/print-json.c) -----------------------------------
# report: {"device", "nsid", "lba_size", "zone_size", "zone_cap", ...,
#          "zone_list": [{"slba", "wp", "cap", "state", "type", "attrs",
#          "attrs_info", "zone", "len"}], "nr_reported"}: the zone keys and
#          state/type strings are nvme-cli's; numbers are LBAs.
# list:   {"namespaces": [{"ctrl", "ng", "block", "block_visible", "nsid",
#          "lba_size", "zone_size", "zone_cap", "nr_zones", "zone_size_po2",
#          ...}], "nr_namespaces"}; only ZNS namespaces are listed.
# check:  {"device", "nsid", "verdict", "exit_code", "zoned", ...}
REPORT_ZONES = "zone_list"
Z_START, Z_WP, Z_CAP, Z_STATE, Z_TYPE = "slba", "wp", "cap", "state", "type"


def our_zones(doc):
    return doc[REPORT_ZONES]


def list_entries(doc):
    return doc["namespaces"]


def main():
    log = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    secs = sections(log)

    # configuration: ctrl nsid size lbas zoned zsze zcap (bytes)
    conf = nsconf(secs)
    ok(len(conf) == 5, "nsconf section lists the 5 namespaces of the standard preset")
    names = {}
    for line in secs.get("layout", "").splitlines():
        f = line.split()
        if len(f) == 6:
            names[f[0]] = dict(ctrl=int(f[1]), nsid=int(f[2]), ctrl_name=f[3],
                               ng=f[4], blk=None if f[5] == "-" else f[5])
    ok(sorted(names) == ["A", "B", "C", "D", "E"], "layout section names A-E")
    if not conf or len(names) != 5:
        return finish()

    def cfg(n):
        return conf[(names[n]["ctrl"], names[n]["nsid"])]

    def expected_zones(n):
        g = cfg(n)
        return [dict(slba=i * g["zsze"], wp=i * g["zsze"], cap=g["zcap"],
                     state="EMPTY") for i in range(g["nzones"])]

    # --- nvme-cli (the oracle) against the configuration ----------------------
    cli = {}
    for n in "ABCE":
        doc = load_json(secs, "nvmecli-" + n)
        if doc is None:
            continue
        zl = doc["zone_list"]
        cli[n] = zl
        exp = expected_zones(n)
        ok(doc["nr_zones"] == len(exp) and len(zl) == len(exp),
           "nvme-cli %s: %d zones as configured" % (n, len(exp)), (doc["nr_zones"], len(zl)))
        ok([{k: z[k] for k in ("slba", "wp", "cap", "state")} for z in zl] == exp,
           "nvme-cli %s: zone i starts at i x %d, capacity %d, empty" %
           (n, cfg(n)["zsze"], cfg(n)["zcap"]))

    # --- our report: configuration, nvme-cli, filters -------------------------
    for n in "ABCE":
        g = cfg(n)
        doc = load_json(secs, "report-" + n)
        if doc is None:
            continue
        zl = our_zones(doc)
        ok(len(zl) == g["nzones"], "report %s: %d zones" % (n, g["nzones"]), len(zl))
        ok(all(z[Z_START] == i * g["zsze"] for i, z in enumerate(zl)),
           "report %s: every zone start = n x %d LBAs" % (n, g["zsze"]))
        ok(all(z[Z_CAP] == g["zcap"] for z in zl),
           "report %s: every capacity = %d LBAs" % (n, g["zcap"]))
        ok(all(z[Z_STATE] == "EMPTY" and z[Z_WP] == z[Z_START] for z in zl),
           "report %s: every zone empty, wp at the start" % n)
        ok(all(isinstance(z[k], int) for z in zl for k in (Z_START, Z_WP, Z_CAP)),
           "report %s: LBAs are JSON numbers" % n)
        if n in cli:
            mine = [(z[Z_START], z[Z_WP], z[Z_CAP], z[Z_STATE], z[Z_TYPE]) for z in zl]
            theirs = [(z["slba"], z["wp"], z["cap"], z["state"], z["type"]) for z in cli[n]]
            ok(mine == theirs, "report %s -o json == nvme zns report-zones -o json, zone by zone" % n,
               next(((a, b) for a, b in zip(mine, theirs) if a != b), (len(mine), len(theirs))))
        starts = [i * g["zsze"] for i in range(g["nzones"])]
        for sec, want, what in (("s3", starts[3:], "--start-lba zone 3"),
                                ("s3mid", starts[3:], "--start-lba inside zone 3"),
                                ("c2", starts[:2], "--count 2"),
                                ("s1c3", starts[1:4], "--start-lba zone 1 --count 3")):
            d = load_json(secs, "report-%s-%s" % (n, sec))
            if d is not None:
                got = [z[Z_START] for z in our_zones(d)]
                ok(got == want, "report %s %s: zones %s" % (n, what, want[:4]), got[:6])

    # state filters, after the guest wrote into zone 1 and closed it
    for n in "ACE":
        g = cfg(n)
        w = 64 * 1024 // g["lbas"] + 7
        z1 = g["zsze"]
        for sec, state in (("imp", "IMP_OPENED"), ("closed", "CLOSED")):
            d = load_json(secs, "report-%s-%s" % (n, sec))
            if d is None:
                continue
            got = [(z[Z_START], z[Z_WP], z[Z_STATE]) for z in our_zones(d)]
            ok(got == [(z1, z1 + w, state)],
               "report %s --state: only zone 1, %s, wp %d" % (n, state, z1 + w), got)

    # zones in mixed states (written, open, closed, full): ours == nvme-cli
    for n in "ABCE":
        mine, theirs = (load_json(secs, "%s-%s-mixed" % (k, n)) for k in ("report", "nvmecli"))
        if mine is None or theirs is None:
            continue
        a = [(z[Z_START], z[Z_WP], z[Z_CAP], z[Z_STATE], z[Z_TYPE]) for z in our_zones(mine)]
        b = [(z["slba"], z["wp"], z["cap"], z["state"], z["type"]) for z in theirs["zone_list"]]
        states = sorted(set(z[3] for z in b))
        ok(a == b and len(states) >= 2,
           "report %s -o json == nvme-cli zone by zone with zones %s" % (n, "/".join(states)),
           next(((x, y) for x, y in zip(a, b) if x != y), (len(a), len(b), states)))
        # --state (and --start-lba) filters against nvme-cli's unfiltered report
        for sec, state, start in (("empty", "EMPTY", 0), ("full", "FULL", 0),
                                  ("closed-s2", "CLOSED", 2 * cfg(n)["zsze"])):
            d = load_json(secs, "report-%s-mixed-%s" % (n, sec))
            if d is None:
                continue
            want = [z[0] for z in b if z[3] == state and z[0] >= start]
            got = [z[Z_START] for z in our_zones(d)]
            ok(got == want and (want or n == "B"),
               "report %s --state %s%s: the %d zones nvme-cli shows %s" %
               (n, state.lower(), " --start-lba zone 2" if start else "", len(want), state), got)

    # --- blkzone on the po2 block device B ------------------------------------
    cond = {"EMPTY": 1, "IMP_OPENED": 2, "EXP_OPENED": 3, "CLOSED": 4,
            "READONLY": 13, "FULL": 14, "OFFLINE": 15}
    for suffix in ("", "-mixed"):
        if "blkzone-B" + suffix not in secs:
            ok(False, "section blkzone-B%s present in the log" % suffix)
            continue
        g = cfg("B")
        spl = g["lbas"] // 512
        bz = []
        for line in secs["blkzone-B" + suffix].splitlines():
            m = re.search(r"start: (0x[0-9a-f]+), len (0x[0-9a-f]+), cap (0x[0-9a-f]+), "
                          r"wptr (0x[0-9a-f]+) .*zcond:\s*(\d+)", line)
            if m:
                s, ln, cap, wp, c = (int(x, 0) for x in m.groups())
                bz.append((s // spl, ln // spl, cap // spl, (s + wp) // spl, c))
        doc = load_json(secs, "report-B" + suffix)
        if doc is None:
            continue
        # blkzone shows the kernel's view: a full zone's wp is its end
        mine = [(z[Z_START], g["zsze"], z[Z_CAP],
                 z[Z_START] + g["zsze"] if z[Z_STATE] == "FULL" else z[Z_WP],
                 cond.get(z[Z_STATE])) for z in our_zones(doc)]
        ok(len(bz) == g["nzones"] and mine == bz,
           "report B%s -o json == blkzone report, zone by zone" % suffix,
           next(((x, y) for x, y in zip(mine, bz) if x != y), (len(mine), len(bz))))

    # --- list -------------------------------------------------------------------
    doc = load_json(secs, "list-json")
    if doc is not None:
        ents = list_entries(doc)
        for n in "ABCE":
            g, lay = cfg(n), names[n]
            e = [x for x in ents if x.get("ng") == lay["ng"].replace("/dev/", "")]
            if not ok(len(e) == 1, "list shows %s (%s) once" % (n, lay["ng"]), ents):
                continue
            e = e[0]
            zs = g["zsze"]
            ok(e["nsid"] == lay["nsid"], "list %s: nsid %d" % (n, lay["nsid"]), e.get("nsid"))
            ok(e["lba_size"] == g["lbas"], "list %s: LBA size %d" % (n, g["lbas"]), e.get("lba_size"))
            ok(e["zone_size"] == zs, "list %s: zone size %d LBAs" % (n, zs), e.get("zone_size"))
            ok(e["zone_cap"] == g["zcap"], "list %s: zone capacity %d LBAs" % (n, g["zcap"]),
               e.get("zone_cap"))
            ok(e["nr_zones"] == g["nzones"], "list %s: %d zones" % (n, g["nzones"]), e.get("nr_zones"))
            ok(e["zone_size_po2"] == (zs & (zs - 1) == 0),
               "list %s: po2 flag %s" % (n, zs & (zs - 1) == 0), e.get("zone_size_po2"))
            ok(e["block_visible"] == (lay["blk"] is not None),
               "list %s: block device %s" % (n, "visible" if lay["blk"] else "hidden"),
               e.get("block_visible"))
            ok(e["ctrl"] == lay["ctrl_name"], "list %s: controller %s" % (n, lay["ctrl_name"]),
               e.get("ctrl"))
        d = [x for x in ents if x.get("ng") == names["D"]["ng"].replace("/dev/", "")]
        ok(not d, "list does not show the conventional D", d)
        ok(doc["nr_namespaces"] == 4 and len(ents) == 4,
           "list shows exactly the 4 ZNS namespaces", doc.get("nr_namespaces"))

    # --- check verdicts ---------------------------------------------------------
    for n, verdict in (("A", "needs-kernel-patches"), ("B", "po2"), ("C", "capacity-lt-size"),
                       ("D", "not-zns"), ("E", "needs-kernel-patches")):
        d = load_json(secs, "check-" + n)
        if d is not None:
            ok(d.get("verdict") == verdict, "check -o json %s: verdict %s" % (n, verdict), d)
            ok(d.get("zoned") == (n != "D"), "check -o json %s: zoned %s" % (n, n != "D"), d)
    return finish()


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers of the host-side checks of a VM console log
(check-stock.py, plugin/check-plugin.py): TAP-style results and the
'### BEGIN name' / '### END name' sections the guest scripts print."""
import re

results = []


def ok(cond, desc, detail=''):
    results.append(bool(cond))
    print(('ok' if cond else 'not ok') + ' %d - %s' % (len(results), desc))
    if not cond and detail:
        print('#   ' + str(detail)[:400])
    return bool(cond)


def sections(log):
    """{name: text} of the log's '### BEGIN name' ... '### END name' sections."""
    out, name, buf = {}, None, []
    for line in log.splitlines():
        m = re.match(r'^### BEGIN (\S+)\s*$', line)
        if m:
            name, buf = m.group(1), []
            continue
        m = re.match(r'^### END (\S+)\s*$', line)
        if m and name == m.group(1):
            out[name] = '\n'.join(buf)
            name = None
        elif name is not None:
            buf.append(line)
    return out


def nsconf(secs):
    """The 'nsconf' section (what vm-run.sh passed to QEMU), one line a
    namespace: ctrl nsid size lbas zoned zsze zcap (bytes).
    Return: {(ctrl, nsid): dict}, zone size and capacity in LBAs."""
    conf = {}
    for line in secs.get('nsconf', '').splitlines():
        if line.startswith('#') or not line.strip():
            continue
        c, n, size, lbas, zoned, zsze, zcap = map(int, line.split())
        conf[(c, n)] = dict(size=size, lbas=lbas, zoned=zoned,
                            zsze=zsze // lbas if zoned else 0,
                            zcap=zcap // lbas if zoned else 0,
                            nzones=size // zsze if zoned else 0, zsze_bytes=zsze)
    return conf


def finish():
    """Print 'HOST-RESULT: N passed, M failed'; Return: the exit status."""
    failed = results.count(False)
    print('HOST-RESULT: %d passed, %d failed' % (len(results) - failed, failed))
    return 1 if failed or not results else 0

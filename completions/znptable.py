# SPDX-License-Identifier: GPL-2.0-or-later
"""The command table of nvme-zns-npo2 (`nvme-zns-npo2 __table`), as read by
the completion generator (gen-completions.py) and by the documentation and
completion checks (tests/docs/drift.py, tests/docs/completion.py)."""
import json
import subprocess


def load_table(arg):
    """The table from a JSON file, or dumped by the nvme-zns-npo2 binary."""
    if arg.endswith('.json'):
        with open(arg) as f:
            return json.load(f)
    return json.loads(subprocess.run([arg, '__table'], check=True, capture_output=True,
                                     text=True).stdout)


def options(table):
    """{long name: option} of every option of the table."""
    return {o['long']: o for o in table['options']}


def visible_commands(table):
    """The commands of the table that are not hidden, in table order."""
    return [c for c in table['commands'] if not c['hidden']]


def spellings(o):
    """Every way to write option o: --long, --alias, -s."""
    s = ['--' + o['long']]
    if o.get('alias'):
        s.append('--' + o['alias'])
    if o.get('short'):
        s.append('-' + o['short'])
    return s

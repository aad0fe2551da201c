#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Draw Documentation/zonemap.png, the README's picture: the SVG zone picture
(`nvme-zns-npo2 zonemap --padding --svg`) of an emulated namespace driven into
a known mixed state (tests/lib/zonemix.py), rendered by rsvg-convert.

    scripts/zonemap-picture.py [BUILD_DIR [OUT.png]]   # defaults: build, Documentation/zonemap.png

tests/cli/zonemap.py checks that the committed picture is what this draws.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SRC, 'tests', 'lib'))
import zonemix  # noqa: E402
import znptest  # noqa: E402


def draw(build, out_png, keep_svg=None):
    """Return: None, or the reason it failed."""
    binary = os.path.join(build, 'nvme-zns-npo2')
    emu = os.path.join(build, 'tests', 'emu', 'libznpemu.so')
    mkfake = os.path.join(SRC, 'tests', 'emu', 'mkfake.py')
    with tempfile.TemporaryDirectory(prefix='zonemap-') as root:
        zonemix.setup(root, mkfake)
        errors = zonemix.drive(binary, emu, root)
        if errors:
            return '; '.join(errors)
        svg = os.path.join(root, 'zonemap.svg')
        p = subprocess.run([binary, 'zonemap', 'dev/nvme0n1', '--padding', '--svg', svg],
                           cwd=root, env=znptest.emu_env(emu, root), capture_output=True,
                           text=True, stdin=subprocess.DEVNULL, timeout=60)
        if p.returncode:
            return 'zonemap: exit %d: %s' % (p.returncode, p.stderr)
        if keep_svg:
            shutil.copyfile(svg, keep_svg)
        p = subprocess.run(['rsvg-convert', '--background-color=white', svg, '-o', out_png],
                           capture_output=True, text=True, timeout=60)
        if p.returncode:
            return 'rsvg-convert: exit %d: %s' % (p.returncode, p.stderr)
    return None


if __name__ == '__main__':
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, 'build')
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(SRC, 'Documentation', 'zonemap.png')
    why = draw(os.path.abspath(build), out)
    if why:
        sys.exit('zonemap-picture: ' + why)
    print('zonemap-picture: wrote %s' % out)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""nvme-cli's side of the upstream series (used by make-series.sh).

    edit-tree.py TREE help|plugin-deps|plugin|docs [PAGES]

Each step edits TREE in place and fails when an anchor it needs is not there
exactly once (a changed nvme-cli). Written against nvme-cli master (plain-C
command registration; plugins/meson.build enters plugins/<name>/ for every
selected plugin).
"""
import os
import sys

tree, step = sys.argv[1], sys.argv[2]


def edit(path, old, new):
    p = os.path.join(tree, path)
    s = open(p).read()
    if s.count(old) != 1:
        sys.exit('edit-tree: %s: anchor found %d times: %r' % (path, s.count(old), old[:60]))
    open(p, 'w').write(s.replace(old, new))


if step == 'help':
    edit('src/plugin.c', "\tstruct program *prog = plugin->parent;\n\tchar *str = argv[1];\n\tint i;\n",
         "\tstruct program *prog = plugin->parent;\n\tstruct plugin *extension;\n"
         "\tchar *str = argv[1];\n\tint i;\n")
    anchor = "\tfor (i = 0; plugin->commands[i]; i++) {\n\t\tstruct command *"
    edit('src/plugin.c', anchor,
         "\t/* \"nvme help <plugin>\": the plugin's command overview */\n"
         "\tif (!plugin->name) {\n"
         "\t\tfor (extension = prog->extensions->next; extension;\n"
         "\t\t     extension = extension->next) {\n"
         "\t\t\tif (!strcmp(str, extension->name)) {\n"
         "\t\t\t\tgeneral_help(extension, NULL);\n"
         "\t\t\t\treturn 0;\n\t\t\t}\n\t\t}\n\t}\n\n" + anchor)
elif step == 'plugin-deps':
    edit('plugins/meson.build', "plugin_sources = []\nenabled_plugins = []\n",
         "plugin_sources = []\nenabled_plugins = []\n"
         "# Libraries plugins link, beyond those of nvme itself\nplugin_deps = []\n")
    edit('meson.build', "        libkmod_dep,\n    ]\n", "        libkmod_dep,\n        plugin_deps,\n    ]\n")
elif step == 'plugin':
    edit('plugins/meson.build', "# Libraries plugins link, beyond those of nvme itself\nplugin_deps = []\n",
         "# Libraries plugins link, beyond those of nvme itself\nplugin_deps = []\n"
         "# zns-npo2 needs liburing and libdevmapper: left out, with a warning, without them\n"
         "zns_npo2_required = false\n")
    edit('meson_options.txt', "'transcend', 'utils', 'virtium', 'wdc', 'ymtc', 'zns'],",
         "'transcend', 'utils', 'virtium', 'wdc', 'ymtc', 'zns', 'zns-npo2'],")
elif step == 'docs':
    pages = [l.rstrip('\n').split('\t', 1) for l in open(sys.argv[3]) if l.strip()]
    edit('Documentation/meson.build', "    'nvme-zns-zone-mgmt-send',\n",
         "    'nvme-zns-zone-mgmt-send',\n" + ''.join("    '%s',\n" % n for n, _ in pages))
    edit('Documentation/cmd-plugins.txt',
         "linknvme:nvme-zns-zrwa-flush-zone[1]::\n\tFlush LBAs associated with a ZRWA to a zone\n",
         "linknvme:nvme-zns-zrwa-flush-zone[1]::\n\tFlush LBAs associated with a ZRWA to a zone\n" +
         ''.join("\nlinknvme:%s[1]::\n\t%s\n" % (n, h[0].upper() + h[1:]) for n, h in pages))
else:
    sys.exit('edit-tree: unknown step %s' % step)

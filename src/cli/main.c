// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nvme-zns-npo2: standalone front-end. Everything but argv handling and
 * the environment lives in the command layer shared with the nvme-cli
 * plugin.
 *
 * Environment (test hooks): ZNP_SYSFS_ROOT replaces /sys and ZNP_DEV_ROOT
 * replaces /dev for device discovery, ZNP_PROC_ROOT /proc for the processes
 * that may use a device, so tests can point the tool at a fake sysfs tree
 * and emulated device nodes.
 */
#include <string.h>

#include "cmdtab.h"
#include "exit.h"

int main(int argc, char **argv)
{
	struct znp_cli cli;
	const struct znp_cmd_desc *c;
	struct znp_opts o;
	int ret;

	znp_cli_init(&cli, "nvme-zns-npo2");
	if (argc < 2) {
		znp_cli_help_all(&cli, stderr);
		return ZNP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		znp_cli_help_all(&cli, stdout);
		return znp_cli_close_out(&cli, "help", ZNP_EXIT_OK, true);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		argv[1] = "version";
	c = znp_cmd_find(argv[1]);
	if (!c) {
		znp_cli_err(&cli, argv[1], "unknown command (see '%s help')", cli.prog);
		return ZNP_EXIT_USAGE;
	}
	znp_opts_init(&o);
	ret = znp_cli_parse_argv(&cli, c, argc - 1, argv + 1, &o);
	if (!ret)
		ret = znp_cli_run(&cli, c, &o);
	/* output cut short (a full disk, a closed terminal) must not exit 0 */
	return znp_cli_close_out(&cli, c->name, ret, true);
}

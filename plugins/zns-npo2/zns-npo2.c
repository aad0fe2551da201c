// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nvme-cli glue for zns-npo2: options parsed by nvme-cli's argconfig, built
 * from the zns-npo2 command table, land in the same struct znp_opts through
 * the same znp_opt_set() as in the standalone nvme-zns-npo2, and the same
 * command handler runs. No command logic lives here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "zns-npo2-compat.h"

#include "cmdtab.h"
#include "exit.h"
#include "znp-config.h"

#if ZNP_NVME_XMACRO_REGISTRATION
#define CREATE_CMD	/* define_cmd.h: declarations, commands, the plugin */
#endif
#include "zns-npo2.h"

/* Slots argconfig writes into: one per option, aliases share the slot. */
struct glue_slot {
	const struct znp_opt_desc *d;
	bool flag;
	char *arg;
};

/* argconfig owns -h; nvme-cli users also expect --help and -help. */
static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
		    !strcmp(argv[i], "-help"))
			return true;
	}
	return false;
}

/* struct argconfig_commandline_options has a const member: copy it whole. */
static void add_opt(struct argconfig_commandline_options *ac, const char *name,
		    const struct znp_opt_desc *d, char short_name,
		    struct glue_slot *slot, const char *help)
{
	bool flag = d->kind == ZNP_OK_FLAG;
	const struct argconfig_commandline_options opt = {
		.option = name,
		.short_option = short_name,
		.meta = d->meta,
		.config_type = flag ? CFG_FLAG : CFG_STRING,
		.default_value = flag ? (void *)&slot->flag :
					(void *)&slot->arg,
		.argument_type = flag ? no_argument : required_argument,
		.help = help,
	};

	memcpy(ac, &opt, sizeof(opt));
}

/*
 * nvme's main() turns every non-zero return into exit status 1; the
 * documented exit codes are kept by leaving here directly.
 */
static int glue_exit(int code)
{
	if (code == ZNP_EXIT_OK)
		return 0;
	fflush(stdout);
	fflush(stderr);
	exit(code);
}

/*
 * What argconfig parsed, into @o through znp_opt_set(), and the positional
 * arguments (extra ones are reported by znp_cli_run()).
 * Return: 0 or the exit code after the error line.
 */
static int glue_take(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		     struct znp_opts *o, const struct glue_slot *slots,
		     size_t n, int argc, char **argv)
{
	char what[64];
	size_t i;

	/* extra arguments are kept for znp_cli_run() to report */
	for (i = optind; i < (size_t)argc; i++)
		znp_cli_add_arg(o, argv[i]);
	for (i = 0; i < n; i++) {
		const struct znp_opt_desc *d = slots[i].d;
		const char *why = NULL;

		if (d->id == ZNP_O_HELP || (!slots[i].flag && !slots[i].arg))
			continue;
		if (!znp_opt_set(o, d, slots[i].arg, &why))
			continue;
		snprintf(what, sizeof(what), "--%s", d->long_name);
		return znp_cli_opt_error(cli, c, o, what, slots[i].arg, why);
	}
	return 0;
}

static int glue_run(int argc, char **argv, const char *name)
{
	const struct znp_cmd_desc *c = znp_cmd_find(name);
	struct argconfig_commandline_options *ac;
	struct glue_slot *slots;
	struct znp_opts o;
	struct znp_cli cli;
	size_t n = 0, i, k = 0;
	int code;

	znp_cli_init(&cli, "nvme zns-npo2");
	znp_opts_init(&o);
	if (!c) {
		znp_cli_err(&cli, name, "not in this build's command table");
		return glue_exit(ZNP_EXIT_USAGE);
	}
	while (c->opts[n] != ZNP_O_NR)
		n++;
	slots = calloc(n, sizeof(*slots));
	ac = calloc(2 * n + 1, sizeof(*ac));
	if (!slots || !ac) {
		znp_cli_err(&cli, name, "out of memory");
		free(slots);
		free(ac);
		return glue_exit(ZNP_EXIT_FAILED);
	}

	for (i = 0; i < n; i++) {
		const struct znp_opt_desc *d = znp_opt_by_id(c->opts[i]);

		slots[i].d = d;
		if (d->id == ZNP_O_HELP)
			continue;
		add_opt(&ac[k++], d->long_name, d, d->short_name, &slots[i],
			znp_cmd_opt_help(c, d));
		if (d->alias)
			add_opt(&ac[k++], d->alias, d, 0, &slots[i],
				znp_cmd_opt_help(c, d));
	}

	if (wants_help(argc, argv)) {
		const char *why;

		znp_opt_set(&o, znp_opt_by_id(ZNP_O_HELP), NULL, &why);
	} else {
		code = argconfig_parse(argc, argv, c->help, ac);
		if (ZNP_NVME_PARSE_UNWOUND(code)) {
			/* nvme-cli's own caller wants the return value */
			free(ac);
			free(slots);
			return code;
		}
		if (code)
			code = ZNP_EXIT_USAGE;
		else
			code = glue_take(&cli, c, &o, slots, n, argc, argv);
		if (code)
			goto out;
	}
	code = znp_cli_run(&cli, c, &o);
	/* nvme-cli owns stdout and closes it: flush and check it here */
	code = znp_cli_close_out(&cli, c->name, code, false);
out:
	free(ac);
	free(slots);
	return glue_exit(code);
}

/* Every command: its name says which entry of the command table runs. */
static int glue_cmd(int argc, char **argv, struct command *cmd,
		    struct plugin *plugin)
{
	return glue_run(argc, argv, cmd->name);
}

#if ZNP_NVME_XMACRO_REGISTRATION
/* ENTRY() names one function per command: each is glue_cmd(). */
#define GLUE_CMD(fn)							\
	static int fn(int argc, char **argv, struct command *cmd,	\
		      struct plugin *plugin)				\
		__attribute__((alias("glue_cmd")))

GLUE_CMD(znp_nvme_list);
GLUE_CMD(znp_nvme_report);
GLUE_CMD(znp_nvme_zonemap);
GLUE_CMD(znp_nvme_check);
GLUE_CMD(znp_nvme_open);
GLUE_CMD(znp_nvme_close);
GLUE_CMD(znp_nvme_finish);
GLUE_CMD(znp_nvme_reset);
GLUE_CMD(znp_nvme_offline);
GLUE_CMD(znp_nvme_discard);
GLUE_CMD(znp_nvme_map);
GLUE_CMD(znp_nvme_unmap);
GLUE_CMD(znp_nvme_export);
GLUE_CMD(znp_nvme_status);
#else
/*
 * Plain-C registration (nvme-cli master): a struct command for every
 * visible command of the zns-npo2 command table (help and version are
 * nvme-cli's own), handed to plugin_add_group() before main(); whether a
 * command takes a <device> (nvme-cli's usage line) is the table's word.
 */
static struct plugin glue_plugin = {
	.name = ZNP_NVME_NAME,
	.desc = ZNP_NVME_DESC,
	.version = ZNP_VERSION,
};

static void __attribute__((constructor)) glue_register(void)
{
	struct command **cmds, *cmd;
	size_t i, n = 0;

	cmds = calloc(znp_nr_cmds + 1, sizeof(*cmds));
	cmd = calloc(znp_nr_cmds, sizeof(*cmd));
	if (!cmds || !cmd) {
		free(cmds);
		free(cmd);
		return;
	}
	for (i = 0; i < znp_nr_cmds; i++) {
		const struct znp_cmd_desc *c = &znp_cmds[i];

		if (c->hidden || !strcmp(c->name, "help") ||
		    !strcmp(c->name, "version"))
			continue;
		cmd[n].name = (char *)c->name;
		cmd[n].help = (char *)c->help;
		cmd[n].fn = glue_cmd;
		cmd[n].no_device = c->min_args == 0;
		cmds[n] = &cmd[n];
		n++;
	}
	plugin_add_group(&glue_plugin, NULL, cmds);
	register_extension(&glue_plugin);
}
#endif

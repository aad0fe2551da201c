// SPDX-License-Identifier: GPL-2.0-or-later
/* help, version, usage text and the hidden __table dump. */
#include <string.h>

#include "cmdtab.h"
#include "exit.h"
#include "znp-config.h"

void znp_cli_usage(const struct znp_cli *cli, const struct znp_cmd_desc *c, FILE *f)
{
	fprintf(f, "Usage: %s %s%s%s [OPTIONS]\n\n%s\n\nOptions:\n", cli->prog,
		c->name, *c->args ? " " : "", c->args, c->help);
	for (const enum znp_opt_id *p = c->opts; *p != ZNP_O_NR; p++) {
		const struct znp_opt_desc *d = znp_opt_by_id(*p);
		char spec[80];
		int n;

		if (d->short_name)
			n = snprintf(spec, sizeof(spec), "-%c, --%s", d->short_name,
				     d->long_name);
		else
			n = snprintf(spec, sizeof(spec), "    --%s", d->long_name);
		if (d->alias)
			n += snprintf(spec + n, sizeof(spec) - (size_t)n, ", --%s", d->alias);
		if (d->meta)
			snprintf(spec + n, sizeof(spec) - (size_t)n, "=%s", d->meta);
		fprintf(f, "  %-32s %s", spec, d->help);
		if (d->values && d->kind == ZNP_OK_STATE)
			fprintf(f, "\n  %-32s (%s)", "", d->values);
		fputc('\n', f);
	}
}

void znp_cli_help_all(const struct znp_cli *cli, FILE *f)
{
	fprintf(f, "Usage: %s <command> [<device>] [OPTIONS]\n\n"
		"Tools for NVMe ZNS namespaces whose zone size is not a power of two.\n\n"
		"Commands:\n", cli->prog);
	for (size_t i = 0; i < znp_nr_cmds; i++) {
		if (!znp_cmds[i].hidden)
			fprintf(f, "  %-10s %s\n", znp_cmds[i].name, znp_cmds[i].help);
	}
	fprintf(f, "\nSee '%s help <command>' or '%s <command> --help'.\n",
		cli->prog, cli->prog);
}

int znp_cmd_help(const struct znp_cli *cli, const struct znp_opts *o,
		 struct znp_print *p)
{
	const struct znp_cmd_desc *c;

	if (!o->nargs) {
		znp_cli_help_all(cli, cli->out);
		return ZNP_EXIT_OK;
	}
	c = znp_cmd_find(o->args[0]);
	if (!c || c->hidden) {
		znp_cli_err(cli, o->args[0], "unknown command");
		return ZNP_EXIT_USAGE;
	}
	znp_cli_usage(cli, c, cli->out);
	return ZNP_EXIT_OK;
}

int znp_cmd_version(const struct znp_cli *cli, const struct znp_opts *o,
		    struct znp_print *p)
{
	p->ops->version(p, cli->prog, ZNP_VERSION);
	return ZNP_EXIT_OK;
}

int znp_cmd_table(const struct znp_cli *cli, const struct znp_opts *o,
		  struct znp_print *p)
{
	znp_print_table_json(cli->out, cli->prog);
	return ZNP_EXIT_OK;
}

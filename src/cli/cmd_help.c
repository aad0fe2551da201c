// SPDX-License-Identifier: GPL-2.0-or-later
/* help, version, usage text and the hidden __table dump. */
#include <stdarg.h>
#include <string.h>

#include "cmdtab.h"
#include "exit.h"
#include "znp-config.h"

/* Append to @buf (size @size, *@n used) and clamp: *@n never passes @size - 1. */
__attribute__((format(printf, 4, 5)))
static void spec_add(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*n >= size - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	if (r > 0)
		*n = *n + (size_t)r < size - 1 ? *n + (size_t)r : size - 1;
}

void znp_cli_usage(const struct znp_cli *cli, const struct znp_cmd_desc *c, FILE *f)
{
	fprintf(f, "Usage: %s %s%s%s [OPTIONS]\n\n%s\n\nOptions:\n", cli->prog,
		c->name, *c->args ? " " : "", c->args, c->help);
	for (const enum znp_opt_id *p = c->opts; *p != ZNP_O_NR; p++) {
		const struct znp_opt_desc *d = znp_opt_by_id(*p);
		char spec[80] = "";
		size_t n = 0;

		if (d->short_name)
			spec_add(spec, sizeof(spec), &n, "-%c, --%s", d->short_name, d->long_name);
		else
			spec_add(spec, sizeof(spec), &n, "    --%s", d->long_name);
		if (d->alias)
			spec_add(spec, sizeof(spec), &n, ", --%s", d->alias);
		if (d->meta)
			spec_add(spec, sizeof(spec), &n, "=%s", d->meta);
		fprintf(f, "  %-32s %s", spec, znp_cmd_opt_help(c, d));
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

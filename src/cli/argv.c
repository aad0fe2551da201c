// SPDX-License-Identifier: GPL-2.0-or-later
/* Standalone front-end parser: getopt_long tables built from cmdtab. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmdtab.h"
#include "exit.h"

#define LONG_ONLY_BASE	256

struct parse_err {
	const char *what;	/* "--start-lba" etc. */
	const char *arg;
	const char *why;
	char buf[64];
	char whybuf[192];
};

static int build_tables(const struct znp_cmd_desc *c, struct option *lo,
			char *so, size_t so_len)
{
	size_t ns = 0;
	int nl = 0;

	so[ns++] = ':';		/* report a missing argument as ':' */
	for (const enum znp_opt_id *p = c->opts; *p != ZNP_O_NR; p++) {
		const struct znp_opt_desc *d = znp_opt_by_id(*p);
		int has_arg = d->kind == ZNP_OK_FLAG ? no_argument : required_argument;
		int val = d->short_name ? d->short_name : LONG_ONLY_BASE + (int)d->id;

		lo[nl++] = (struct option){ d->long_name, has_arg, NULL, val };
		if (d->alias)
			lo[nl++] = (struct option){ d->alias, has_arg, NULL, val };
		if (d->short_name && ns + 3 < so_len) {
			so[ns++] = d->short_name;
			if (has_arg == required_argument)
				so[ns++] = ':';
		}
	}
	so[ns] = '\0';
	lo[nl] = (struct option){ NULL, 0, NULL, 0 };
	return nl;
}

/*
 * getopt_long answers '?' for an unknown long option and for a prefix of
 * several alike: name the candidates of an ambiguous @arg ("--st") in
 * @why. Return: true when it is ambiguous.
 */
static bool prefix_of_several(const struct option *lo, const char *arg, char *why, size_t size)
{
	size_t len = strcspn(arg + 2, "="), n;
	int val = -1;
	bool amb = false;

	n = (size_t)snprintf(why, size, "ambiguous option:");
	for (; lo->name; lo++) {
		if (strncmp(lo->name, arg + 2, len))
			continue;
		if (val >= 0 && lo->val != val)
			amb = true;
		val = lo->val;
		if (n < size)
			n += (size_t)snprintf(why + n, size - n, " --%s", lo->name);
	}
	return amb;
}

static const struct znp_opt_desc *desc_for_val(const struct znp_cmd_desc *c, int val)
{
	for (const enum znp_opt_id *p = c->opts; *p != ZNP_O_NR; p++) {
		const struct znp_opt_desc *d = znp_opt_by_id(*p);

		if ((d->short_name && d->short_name == val) ||
		    (!d->short_name && LONG_ONLY_BASE + (int)d->id == val))
			return d;
	}
	return NULL;
}

int znp_cli_parse_argv(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		       int argc, char **argv, struct znp_opts *o)
{
	struct option lo[2 * ZNP_O_NR + 1];
	struct parse_err e = { 0 };
	char so[3 * ZNP_O_NR + 2];
	int opt;

	build_tables(c, lo, so, sizeof(so));
	opterr = 0;
	optind = 0;		/* full re-initialisation (GNU) */
	while ((opt = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct znp_opt_desc *d;
		const char *why;

		if (opt == '?' || opt == ':') {
			if (e.what)
				continue;
			/* a long option is left in argv[optind - 1] */
			if (!strncmp(argv[optind - 1], "--", 2)) {
				snprintf(e.buf, sizeof(e.buf), "%s", argv[optind - 1]);
				e.buf[strcspn(e.buf, "=")] = '\0';
			} else {
				snprintf(e.buf, sizeof(e.buf), "-%c", optopt);
			}
			e.what = e.buf;
			if (opt == ':')
				e.why = "requires an argument";
			else if (optopt && e.buf[1] == '-')
				e.why = "takes no argument";	/* --flag=value */
			else if (e.buf[1] == '-' &&
				 prefix_of_several(lo, argv[optind - 1], e.whybuf, sizeof(e.whybuf)))
				e.why = e.whybuf;
			else
				e.why = "unknown option";
			continue;
		}
		d = desc_for_val(c, opt);
		if (!d)
			continue;
		if (znp_opt_set(o, d, d->kind == ZNP_OK_FLAG ? NULL : optarg, &why) && !e.what) {
			snprintf(e.buf, sizeof(e.buf), "--%s", d->long_name);
			e.what = e.buf;
			e.arg = optarg;
			e.why = why;
		}
	}
	for (int i = optind; i < argc; i++)
		znp_cli_add_arg(o, argv[i]);
	if (!e.what)
		return 0;
	return znp_cli_opt_error(cli, c, o, e.what, e.arg, e.why);
}

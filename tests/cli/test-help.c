// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * help: the clamped appender that builds each option's spec (spec_add(),
 * static, hence cmd_help.c included here; the rest of the command layer
 * comes from the library), usage lines that carry every option of the table
 * whole, and a long program name or command argument reaching the output
 * whole.
 */
#include "cmd_help.c"

#include <stdlib.h>
#include <string.h>

#include "../unit/test.h"

#define CANARY 0x5a

/* The spec the table says an option has (the usage line must hold it whole). */
static void want_spec(const struct znp_opt_desc *d, char *buf, size_t size)
{
	int n;

	if (d->short_name)
		n = snprintf(buf, size, "-%c, --%s", d->short_name, d->long_name);
	else
		n = snprintf(buf, size, "    --%s", d->long_name);
	if (d->alias)
		n += snprintf(buf + n, size - (size_t)n, ", --%s", d->alias);
	if (d->meta)
		snprintf(buf + n, size - (size_t)n, "=%s", d->meta);
}

static void test_spec_add(void)
{
	char big[64], buf[16] = "", *s = malloc(300);
	size_t n = 0;

	/* appends while there is room */
	spec_add(buf, sizeof(buf), &n, "%s", "0123456789");
	CHECK_U64(n, 10);
	CHECK_STR(buf, "0123456789");
	spec_add(buf, sizeof(buf), &n, "%s", "");
	CHECK_U64(n, 10);
	/* the one that does not fit is cut at size - 1, terminated */
	spec_add(buf, sizeof(buf), &n, "-%c, --%s", 'x', "abcdef");
	CHECK_U64(n, 15);
	CHECK_STR(buf, "0123456789-x, -");
	/* once full, nothing more is written and n stays */
	spec_add(buf, sizeof(buf), &n, "%s", "more");
	CHECK_U64(n, 15);
	CHECK_STR(buf, "0123456789-x, -");

	/* a long argument into a short buffer: no byte past size */
	memset(s, 'L', 299);
	s[299] = '\0';
	memset(big, CANARY, sizeof(big));
	n = 0;
	spec_add(big, 16, &n, "    --%s", s);
	CHECK_U64(n, 15);
	CHECK(!memcmp(big, "    --LLLLLLLLL", 15) && big[15] == '\0', "clamped: %.16s", big);
	for (size_t i = 16; i < sizeof(big); i++)
		CHECK(big[i] == CANARY, "byte %zu past the buffer written", i);
	/* a buffer of one byte has no room at all */
	memset(big, CANARY, sizeof(big));
	big[0] = '\0';
	n = 0;
	spec_add(big, 1, &n, "%s", s);
	CHECK_U64(n, 0);
	CHECK(big[0] == '\0' && big[1] == CANARY, "size 1 written");
	free(s);
}

/* Every option line of every command's usage holds its spec whole. */
static void test_usage_specs(void)
{
	struct znp_cli cli;
	size_t longest = 0;

	znp_cli_init(&cli, "nvme-zns-npo2");
	for (size_t i = 0; i < znp_nr_cmds; i++) {
		const struct znp_cmd_desc *c = &znp_cmds[i];
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		znp_cli_usage(&cli, c, f);
		fclose(f);
		for (const enum znp_opt_id *p = c->opts; *p != ZNP_O_NR; p++) {
			const struct znp_opt_desc *d = znp_opt_by_id(*p);
			char spec[256], line[512];

			want_spec(d, spec, sizeof(spec));
			if (strlen(spec) > longest)
				longest = strlen(spec);
			snprintf(line, sizeof(line), "\n  %-32s %s\n", spec, znp_cmd_opt_help(c, d));
			CHECK(strstr(text, line), "%s --help: no line \"%s\"", c->name, spec);
		}
		free(text);
	}
	/* the usage's buffer (80 bytes) holds the longest spec of the table */
	CHECK(longest > 0 && longest < 80, "longest option spec: %zu bytes", longest);
}

/* unmap never asks: its --force says what it does there, not "do not ask". */
static void test_opt_help_override(void)
{
	const struct znp_opt_desc *f = znp_opt_by_id(ZNP_O_FORCE);
	const char *h = znp_cmd_opt_help(znp_cmd_find("unmap"), f);

	CHECK(h != f->help && strstr(h, "in use") && !strstr(h, "ask"), "unmap -f: \"%s\"", h);
	CHECK(znp_cmd_opt_help(znp_cmd_find("reset"), f) == f->help, "reset -f: its own help");
	/* open and close never ask either */
	for (const char *const *n = (const char *const[]){ "open", "close", NULL }; *n; n++) {
		h = znp_cmd_opt_help(znp_cmd_find(*n), f);
		CHECK(strstr(h, "never ask") && !strstr(h, "destroy"), "%s -f: \"%s\"", *n, h);
	}
	/* finish keeps the data: its help does not call it destructive */
	CHECK(!strstr(znp_cmd_find("finish")->help, "destructive"), "finish: \"%s\"",
	      znp_cmd_find("finish")->help);
}

/* A long program name (the front-end's choice) is printed whole. */
static void test_long_prog(void)
{
	char *prog = malloc(5001), *text = NULL, *want = malloc(12000);
	struct znp_cli cli;
	size_t len = 0;
	FILE *f;

	memset(prog, 'p', 5000);
	prog[5000] = '\0';
	znp_cli_init(&cli, prog);
	f = open_memstream(&text, &len);
	znp_cli_usage(&cli, znp_cmd_find("report"), f);
	znp_cli_help_all(&cli, f);
	fclose(f);
	snprintf(want, 12000, "Usage: %s report <device> [OPTIONS]\n", prog);
	CHECK(!strncmp(text, want, strlen(want)), "usage line: %.80s", text);
	snprintf(want, 12000, "Usage: %s <command> [<device>] [OPTIONS]\n", prog);
	CHECK(strstr(text, want), "help line");
	snprintf(want, 12000, "\nSee '%s help <command>' or '%s <command> --help'.\n", prog, prog);
	CHECK(strstr(text, want), "see-also line");
	free(text);
	free(want);
	free(prog);
}

/* help <a 5000-byte name>: one error line with the whole name, exit 2. */
static void test_long_argument(void)
{
	char *name = malloc(5001), *out = NULL, *err = NULL, *want = malloc(6000);
	size_t olen = 0, elen = 0;
	struct znp_cli cli;
	struct znp_opts o;
	int ret;

	memset(name, 'c', 5000);
	name[5000] = '\0';
	znp_cli_init(&cli, "nvme-zns-npo2");
	cli.out = open_memstream(&out, &olen);
	cli.err = open_memstream(&err, &elen);
	znp_opts_init(&o);
	o.args[0] = name;
	o.nargs = 1;
	ret = znp_cmd_help(&cli, &o, NULL);
	fclose(cli.out);
	fclose(cli.err);
	CHECK_INT(ret, ZNP_EXIT_USAGE);
	CHECK_U64(olen, 0);
	snprintf(want, 6000, "nvme-zns-npo2: %s: unknown command\n", name);
	CHECK(err && !strcmp(err, want), "stderr (%zu bytes): %.80s", elen, err ? err : "");
	free(out);
	free(err);
	free(want);
	free(name);
}

int main(void)
{
	test_spec_add();
	test_usage_specs();
	test_opt_help_override();
	test_long_prog();
	test_long_argument();
	return t_done("test-cli-help");
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the standalone command line parser (znp_cli_parse_argv():
 * getopt_long tables built from the command table, and every option's
 * value parser behind znp_opt_set()).
 *
 * Input: the first byte picks the command, the rest is split at NUL bytes
 * into argv. Nothing is run: only parsing, which must either succeed with
 * at most ZNP_MAX_ARGS positional arguments recorded, or fail with the usage
 * exit code after one line on the error stream.
 */
#include "cmdtab.h"
#include "exit.h"
#include "fuzz.h"

#define MAX_ARGV 32

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	const struct znp_cmd_desc *c;
	struct znp_cli cli;
	struct znp_opts o;
	char *argv[MAX_ARGV + 1], *buf, *p, *end;
	int argc = 0, ret;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!znp_nr_cmds)
		return 0;
	c = &znp_cmds[fuzz_take(&in, 1) % znp_nr_cmds];
	buf = fuzz_strdup(in.p, in.n);
	end = buf + in.n;
	argv[argc++] = (char *)c->name;
	for (p = buf; p < end && argc < MAX_ARGV; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	cli = (struct znp_cli){ .prog = "nvme-zns-npo2", .out = sink, .err = sink };
	znp_opts_init(&o);
	ret = znp_cli_parse_argv(&cli, c, argc, argv, &o);
	FUZZ_ASSERT(ret == 0 || ret == ZNP_EXIT_USAGE);
	FUZZ_ASSERT(o.nargs >= 0 && o.nargs <= ZNP_MAX_ARGS);
	for (int i = 0; i < o.nargs; i++)
		FUZZ_ASSERT(o.args[i] != NULL);
	if (znp_opt_given(&o, ZNP_O_STATE))
		FUZZ_ASSERT(o.state >= ZNP_RF_ALL && o.state <= ZNP_RF_OFFLINE);
	if (znp_opt_given(&o, ZNP_O_OUTPUT_FORMAT))
		FUZZ_ASSERT(o.fmt == ZNP_FMT_NORMAL || o.fmt == ZNP_FMT_JSON);
	for (uint32_t id = 0; id < ZNP_O_NR; id++)
		if (znp_opt_given(&o, (enum znp_opt_id)id))
			FUZZ_ASSERT(znp_cmd_has_opt(c, (enum znp_opt_id)id));
	free(buf);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/* Option parsing: value parsers, znp_opt_set(), the getopt_long front-end. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/test.h"
#include "cmdtab.h"
#include "exit.h"

static void u64_ok(const char *s, uint64_t want)
{
	const char *why = NULL;
	uint64_t v = 0;
	int ret = znp_parse_u64(s, &v, &why);

	if (ret || v != want) {
		fprintf(stderr, "parse_u64(\"%s\"): ret %d v %llu why %s, want %llu\n",
			s, ret, (unsigned long long)v, why ? why : "-",
			(unsigned long long)want);
		t_failed++;
	}
}

static void u64_bad(const char *s, int want_ret, const char *want_why)
{
	const char *why = NULL;
	uint64_t v = 12345;
	int ret = znp_parse_u64(s, &v, &why);

	if (ret != want_ret || !why || strcmp(why, want_why) || v != 12345) {
		fprintf(stderr, "parse_u64(\"%s\"): ret %d why %s, want %d %s\n",
			s, ret, why ? why : "-", want_ret, want_why);
		t_failed++;
	}
}

static void test_u64(void)
{
	u64_ok("0", 0);
	u64_ok("24576", 24576);
	u64_ok("0x6000", 0x6000);
	u64_ok("0X6000", 0x6000);
	u64_ok("0xffffffffffffffff", UINT64_MAX);
	u64_ok("18446744073709551615", UINT64_MAX);
	u64_ok("010", 10);		/* decimal, not octal */
	u64_ok("1k", 1024);
	u64_ok("1K", 1024);
	u64_ok("1Ki", 1024);
	u64_ok("1KiB", 1024);
	u64_ok("96M", 96ull << 20);
	u64_ok("96MiB", 96ull << 20);
	u64_ok("2G", 2ull << 30);
	u64_ok("3T", 3ull << 40);
	u64_ok("1P", 1ull << 50);
	u64_ok("15E", 15ull << 60);
	u64_ok("1kB", 1000);
	u64_ok("1KB", 1000);
	u64_ok("5MB", 5000000);
	u64_ok("0x10k", 16384);
	u64_ok("18EB", 18000000000000000000ull);

	u64_bad("", -EINVAL, "empty");
	u64_bad(NULL, -EINVAL, "empty");
	u64_bad("-1", -EINVAL, "negative");
	u64_bad("-0", -EINVAL, "negative");
	u64_bad("+1", -EINVAL, "not a number");
	u64_bad(" 1", -EINVAL, "not a number");
	u64_bad("1 ", -EINVAL, "trailing garbage");
	u64_bad("12x", -EINVAL, "unknown suffix");
	u64_bad("1.5", -EINVAL, "trailing garbage");
	u64_bad("0x", -EINVAL, "not a number");
	u64_bad("0xg", -EINVAL, "not a number");
	u64_bad("abc", -EINVAL, "not a number");
	u64_bad("1kk", -EINVAL, "unknown suffix");
	u64_bad("1m", -EINVAL, "unknown suffix");
	u64_bad("18446744073709551616", -ERANGE, "out of range");
	u64_bad("99999999999999999999", -ERANGE, "out of range");
	u64_bad("0x10000000000000000", -ERANGE, "out of range");
	u64_bad("16E", -ERANGE, "out of range");
	u64_bad("17179869184G", -ERANGE, "out of range");
	u64_bad("19EB", -ERANGE, "out of range");
}

static void test_u32(void)
{
	const char *why;
	uint32_t v;

	CHECK(!znp_parse_u32("4294967295", &v, &why) && v == UINT32_MAX);
	CHECK(znp_parse_u32("4294967296", &v, &why) == -ERANGE);
	CHECK(znp_parse_u32("4G", &v, &why) == -ERANGE);
	CHECK(znp_parse_u32("-1", &v, &why) == -EINVAL);
}

static void test_state(void)
{
	static const struct { const char *s; enum znp_state_filter f; } ok[] = {
		{ "empty", ZNP_RF_EMPTY }, { "implicit-open", ZNP_RF_IMP_OPEN },
		{ "explicit-open", ZNP_RF_EXP_OPEN }, { "closed", ZNP_RF_CLOSED },
		{ "read-only", ZNP_RF_READONLY }, { "full", ZNP_RF_FULL },
		{ "offline", ZNP_RF_OFFLINE }, { "all", ZNP_RF_ALL },
		{ "EMPTY", ZNP_RF_EMPTY }, { "IMP_OPENED", ZNP_RF_IMP_OPEN },
		{ "EXP_OPENED", ZNP_RF_EXP_OPEN }, { "READONLY", ZNP_RF_READONLY },
		{ "read_only", ZNP_RF_READONLY }, { "Implicit_Open", ZNP_RF_IMP_OPEN },
		{ "oi", ZNP_RF_IMP_OPEN }, { "fu", ZNP_RF_FULL }, { "ro", ZNP_RF_READONLY },
		{ "0", ZNP_RF_ALL }, { "1", ZNP_RF_EMPTY }, { "5", ZNP_RF_FULL },
		{ "6", ZNP_RF_READONLY }, { "7", ZNP_RF_OFFLINE },
	};
	static const char *const bad[] = {
		"", "opened", "8", "10", "-1", "emptyy", "full ", "implicit open",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	enum znp_state_filter f;
	const char *why;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		f = (enum znp_state_filter)99;
		if (znp_parse_state(ok[i].s, &f, &why) || f != ok[i].f) {
			fprintf(stderr, "parse_state(\"%s\") -> %d\n", ok[i].s, f);
			t_failed++;
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (znp_parse_state(bad[i], &f, &why) != -EINVAL || !why) {
			fprintf(stderr, "parse_state(\"%s\") accepted\n", bad[i]);
			t_failed++;
		}
	}
	/* every canonical name parses back to its filter */
	for (int i = ZNP_RF_ALL; i <= ZNP_RF_OFFLINE; i++)
		CHECK(!znp_parse_state(znp_state_filter_name(i), &f, &why) && (int)f == i);
}

static void test_fmt(void)
{
	enum znp_fmt f;
	const char *why;

	CHECK(!znp_parse_fmt("json", &f, &why) && f == ZNP_FMT_JSON);
	CHECK(!znp_parse_fmt("normal", &f, &why) && f == ZNP_FMT_NORMAL);
	CHECK(znp_parse_fmt("JSON", &f, &why) == -EINVAL);
	CHECK(znp_parse_fmt("binary", &f, &why) == -EINVAL);
	CHECK(znp_parse_fmt("", &f, &why) == -EINVAL);
}

static void test_opt_set(void)
{
	struct znp_opts o;
	const char *why;

	znp_opts_init(&o);
	CHECK(!znp_opt_set(&o, znp_opt_by_long("start-lba"), "0x6000", &why));
	CHECK(o.start_lba == 0x6000 && znp_opt_given(&o, ZNP_O_START_LBA));
	CHECK(!znp_opt_given(&o, ZNP_O_COUNT));
	CHECK(!znp_opt_set(&o, znp_opt_by_long("select-all"), NULL, &why));
	CHECK(o.all && znp_opt_given(&o, ZNP_O_ALL));
	CHECK(znp_opt_set(&o, znp_opt_by_long("force"), "yes", &why) == -EINVAL);
	CHECK(!o.force && !znp_opt_given(&o, ZNP_O_FORCE));
	CHECK(znp_opt_set(&o, znp_opt_by_long("count"), NULL, &why) == -EINVAL);
	CHECK(znp_opt_set(&o, znp_opt_by_long("count"), "12x", &why) == -EINVAL);
	CHECK(!znp_opt_given(&o, ZNP_O_COUNT));
	CHECK(!znp_opt_set(&o, znp_opt_by_long("state"), "full", &why) && o.state == ZNP_RF_FULL);
	CHECK(!znp_opt_set(&o, znp_opt_by_long("output-format"), "json", &why) &&
	      o.fmt == ZNP_FMT_JSON);
	CHECK(!znp_opt_set(&o, znp_opt_by_long("namespace-id"), "3", &why) && o.nsid == 3);
	CHECK(znp_opt_set(&o, znp_opt_by_long("name"), "", &why) == -EINVAL);
	CHECK(!znp_opt_set(&o, znp_opt_by_long("name"), "zns0", &why) &&
	      !strcmp(o.name, "zns0"));
	CHECK(!znp_opt_by_long("nonexistent"));
}

/* The table is self-consistent: ids, unique short/long names per command. */
static void test_table(void)
{
	for (int i = 0; i < ZNP_O_NR; i++) {
		const struct znp_opt_desc *d = &znp_opt_descs[i];

		CHECK((int)d->id == i);
		CHECK(d->long_name && d->help);
		CHECK((d->kind == ZNP_OK_FLAG) == (d->meta == NULL));
		CHECK(znp_opt_by_long(d->long_name) == d);
	}
	for (size_t c = 0; c < znp_nr_cmds; c++) {
		const struct znp_cmd_desc *cmd = &znp_cmds[c];
		uint64_t seen = 0;	/* one bit per option, as znp_opts.given */

		CHECK(znp_cmd_find(cmd->name) == cmd);
		CHECK(cmd->fn && cmd->help && cmd->args);
		CHECK(cmd->min_args <= cmd->max_args && cmd->max_args <= ZNP_MAX_ARGS);
		CHECK(znp_cmd_has_opt(cmd, ZNP_O_HELP));
		for (const enum znp_opt_id *p = cmd->opts; *p != ZNP_O_NR; p++) {
			const struct znp_opt_desc *d = znp_opt_by_id(*p);

			CHECK(!(seen & (UINT64_C(1) << *p)));
			seen |= UINT64_C(1) << *p;
			for (const enum znp_opt_id *q = p + 1; *q != ZNP_O_NR; q++) {
				const struct znp_opt_desc *e = znp_opt_by_id(*q);

				CHECK(!d->short_name || d->short_name != e->short_name);
			}
		}
		/* a rule about an option the command does not take would never fire */
		for (const struct znp_opt_rule *r = cmd->rules; r && (r->when || r->needs ||
		     r->needs_one || r->excludes || r->no_args); r++) {
			uint64_t all = r->when | r->needs | r->needs_one | r->excludes;

			for (int id = 0; id < ZNP_O_NR; id++)
				CHECK(!(all & ZNP_OPT_BIT(id)) || (seen & (UINT64_C(1) << id)),
				      "%s: a rule names --%s, not one of its options", cmd->name,
				      znp_opt_descs[id].long_name);
			CHECK(r->when || r->needs_one || r->min_nargs,
			      "%s: an unconditional rule needs a list", cmd->name);
			CHECK(r->min_nargs <= cmd->max_args, "%s: a rule for %d arguments",
			      cmd->name, r->min_nargs);
		}
		for (const struct znp_exit_override *x = cmd->exits; x && x->ret; x++)
			CHECK(x->ret < 0 && x->code > 0 && x->code < 10, "%s: override %d -> %d",
			      cmd->name, x->ret, x->code);
	}
	CHECK(!znp_cmd_find("nonexistent"));
}

struct argv_case {
	const char *cmd;
	const char *argv[8];
	int want;
	const char *want_err;	/* expected stderr line, NULL: none */
};

static const struct argv_case argv_cases[] = {
	{ "report", { "report", "/dev/ng0n1", "-s", "0x6000", "-c", "2", "-o", "json" }, 0, NULL },
	{ "report", { "report", "-S", "full", "/dev/ng0n1", "--count=3" }, 0, NULL },
	{ "report", { "report", "/dev/ng0n1", "-s", "12x" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: invalid --start-lba '12x': unknown suffix\n" },
	{ "report", { "report", "/dev/ng0n1", "--count", "-1" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: invalid --count '-1': negative\n" },
	{ "report", { "report", "/dev/ng0n1", "-s", "18446744073709551616" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: invalid --start-lba '18446744073709551616': out of range\n" },
	{ "report", { "report", "/dev/ng0n1", "--state", "bogus" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: invalid --state 'bogus': unknown zone state (expected empty, implicit-open, explicit-open, closed, read-only, full or offline)\n" },
	{ "report", { "report", "/dev/ng0n1", "-o", "xml" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: invalid --output-format 'xml': unknown output format (expected normal or json)\n" },
	{ "report", { "report", "/dev/ng0n1", "-s" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: -s: requires an argument\n" },
	{ "report", { "report", "/dev/ng0n1", "--start-lba" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: --start-lba: requires an argument\n" },
	{ "report", { "report", "/dev/ng0n1", "--bogus=1" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: --bogus: unknown option\n" },
	{ "report", { "report", "-x", "/dev/ng0n1" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: -x: unknown option\n" },
	{ "report", { "report", "-a", "/dev/ng0n1" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: -a: unknown option\n" },
	{ "reset", { "reset", "--force=yes", "/dev/ng0n1" }, 2,
	  "nvme-zns-npo2: /dev/ng0n1: --force: takes no argument\n" },
	{ "list", { "list", "-s", "1" }, 2,
	  "nvme-zns-npo2: list: -s: unknown option\n" },
	{ "reset", { "reset", "/dev/ng0n1", "--select-all", "--dry-run", "-f" }, 0, NULL },
};

static void test_argv(void)
{
	struct znp_cli cli = { .prog = "nvme-zns-npo2", .out = stdout };

	for (size_t i = 0; i < sizeof(argv_cases) / sizeof(argv_cases[0]); i++) {
		const struct argv_case *t = &argv_cases[i];
		char *argv[9] = { 0 }, *err = NULL;
		size_t errlen = 0;
		struct znp_opts o;
		int argc = 0, ret;

		while (argc < 8 && t->argv[argc]) {
			argv[argc] = (char *)t->argv[argc];
			argc++;
		}
		cli.err = open_memstream(&err, &errlen);
		znp_opts_init(&o);
		ret = znp_cli_parse_argv(&cli, znp_cmd_find(t->cmd), argc, argv, &o);
		fclose(cli.err);
		if (ret != t->want || strcmp(err, t->want_err ? t->want_err : "")) {
			fprintf(stderr, "argv case %zu: ret %d (want %d), stderr \"%s\"\n",
				i, ret, t->want, err);
			t_failed++;
		}
		free(err);
	}
}

static void test_argv_values(void)
{
	char *argv[] = { "reset", "-s", "96Ki", "/dev/ng0n1", "-c", "0x3", "--select-all",
			 "-f", "--dry-run", "-o", "json", "-v", NULL };
	struct znp_cli cli = { .prog = "nvme-zns-npo2", .out = stdout, .err = stderr };
	struct znp_opts o;

	znp_opts_init(&o);
	CHECK(!znp_cli_parse_argv(&cli, znp_cmd_find("reset"), 12, argv, &o));
	CHECK(o.start_lba == 96 * 1024 && o.count == 3 && o.all && o.force && o.dry_run);
	CHECK(o.fmt == ZNP_FMT_JSON && o.verbose && o.nargs == 1);
	CHECK(!strcmp(o.args[0], "/dev/ng0n1"));
	CHECK(znp_opt_given(&o, ZNP_O_START_LBA) && !znp_opt_given(&o, ZNP_O_STATE));
}

static void test_exit_map(void)
{
	CHECK(znp_exit_from_ret(0) == ZNP_EXIT_OK);
	CHECK(znp_exit_from_ret(-ENOENT) == ZNP_EXIT_UNSUITABLE);
	CHECK(znp_exit_from_ret(-ENOTBLK) == ZNP_EXIT_UNSUITABLE);
	CHECK(znp_exit_from_ret(-ENODEV) == ZNP_EXIT_UNSUITABLE);
	CHECK(znp_exit_from_ret(-EISDIR) == ZNP_EXIT_UNSUITABLE);
	CHECK(znp_exit_from_ret(-EMEDIUMTYPE) == ZNP_EXIT_UNSUITABLE);
	CHECK(znp_exit_from_ret(-EBUSY) == ZNP_EXIT_REFUSED);
	CHECK(znp_exit_from_ret(-EOPNOTSUPP) == ZNP_EXIT_UNSUPPORTED);
	CHECK(znp_exit_from_ret(-EINTR) == ZNP_EXIT_INTERRUPTED);
	CHECK(znp_exit_from_ret(-EIO) == ZNP_EXIT_FAILED);
	CHECK(znp_exit_from_ret(0x4002) == ZNP_EXIT_FAILED);
	/* Invalid Command Opcode: with or without DNR and More, from any command */
	CHECK(znp_exit_from_ret(0x0001) == ZNP_EXIT_UNSUPPORTED);
	CHECK(znp_exit_from_ret(0x4001) == ZNP_EXIT_UNSUPPORTED);
	CHECK(znp_exit_from_ret(0xc001) == ZNP_EXIT_UNSUPPORTED);
	CHECK(znp_exit_from_ret(0x0101) == ZNP_EXIT_FAILED);	/* SCT 1, SC 1: not it */
	CHECK(znp_exit_from_ret(-EEXIST) == ZNP_EXIT_REFUSED);
	CHECK(znp_exit_from_ret(-EINVAL) == ZNP_EXIT_FAILED);
	CHECK(znp_exit_from_ret(-E2BIG) == ZNP_EXIT_FAILED);

	/* the per-command overrides: map's, and none elsewhere */
	struct znp_cli cli = { .prog = "t" };

	CHECK(znp_cli_exit(&cli, -EINVAL) == ZNP_EXIT_FAILED);	/* no command */
	cli.cmd = znp_cmd_find("map");
	CHECK(znp_cli_exit(&cli, -E2BIG) == ZNP_EXIT_UNSUITABLE);
	CHECK(znp_cli_exit(&cli, -EINVAL) == ZNP_EXIT_UNSUITABLE);
	CHECK(znp_cli_exit(&cli, -EBUSY) == ZNP_EXIT_REFUSED);
	CHECK(znp_cli_exit(&cli, 0x4001) == ZNP_EXIT_UNSUPPORTED);
	CHECK(znp_cli_exit(&cli, -EIO) == ZNP_EXIT_FAILED);
	for (size_t c = 0; c < znp_nr_cmds; c++) {
		cli.cmd = &znp_cmds[c];
		CHECK(znp_cli_exit(&cli, 0x4001) == ZNP_EXIT_UNSUPPORTED, "%s", znp_cmds[c].name);
		CHECK(znp_cli_exit(&cli, -ENOENT) == ZNP_EXIT_UNSUITABLE, "%s", znp_cmds[c].name);
		if (strcmp(znp_cmds[c].name, "map"))
			CHECK(znp_cli_exit(&cli, -EINVAL) == ZNP_EXIT_FAILED, "%s",
			      znp_cmds[c].name);
	}
	/* a file named on the command line */
	CHECK(znp_exit_from_arg_ret(-ENOENT) == ZNP_EXIT_USAGE);
	CHECK(znp_exit_from_arg_ret(-ENOTDIR) == ZNP_EXIT_USAGE);
	CHECK(znp_exit_from_arg_ret(-EISDIR) == ZNP_EXIT_USAGE);
	CHECK(znp_exit_from_arg_ret(-EACCES) == ZNP_EXIT_FAILED);
}

/* znp_cli_check_rules() on @argv (argv[0] the command): its exit code, and the error line. */
static int rules(const char *want_line, int argc, char **argv)
{
	const struct znp_cmd_desc *c = znp_cmd_find(argv[0]);
	struct znp_cli cli = { .prog = "t" };
	struct znp_opts o;
	char *line = NULL;
	size_t len = 0;
	int ret;

	cli.err = open_memstream(&line, &len);
	cli.out = cli.err;
	znp_opts_init(&o);
	ret = znp_cli_parse_argv(&cli, c, argc, argv, &o);
	CHECK(!ret, "%s: parse", argv[0]);
	ret = znp_cli_check_rules(&cli, c, &o);
	fclose(cli.err);
	CHECK((want_line == NULL) == (len == 0) && (!want_line || !strcmp(line, want_line)),
	      "%s: error %s, want %s", argv[0], line, want_line ? want_line : "none");
	free(line);
	return ret;
}

#define RULES(want, ...) rules(want, sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *), \
			       (char *[]){ __VA_ARGS__, NULL })

static void test_rules(void)
{
	CHECK(RULES(NULL, "reset", "d", "-s", "0") == 0);
	CHECK(RULES(NULL, "reset", "d", "--all") == 0);
	CHECK(RULES("t: d: missing --start-lba or --all\n", "reset", "d") == ZNP_EXIT_USAGE);
	CHECK(RULES("t: d: --all cannot be combined with --start-lba\n", "open", "d", "-a",
		    "-s", "0", "-c", "1") == ZNP_EXIT_USAGE);
	CHECK(RULES("t: d: --all cannot be combined with --count\n", "close", "d",
		    "--select-all", "-c", "1") == ZNP_EXIT_USAGE);
	CHECK(RULES(NULL, "discard", "d", "-r", "f") == 0);
	CHECK(RULES(NULL, "discard", "d", "--offset", "1", "-l", "2") == 0);
	CHECK(RULES("t: d: --ranges cannot be combined with --offset\n", "discard", "d", "-r",
		    "f", "--offset", "0") == ZNP_EXIT_USAGE);
	CHECK(RULES(NULL, "map", "d", "--ublk", "--foreground", "--queues", "2") == 0);
	CHECK(RULES(NULL, "map", "d", "--name", "n", "--persist") == 0);
	CHECK(RULES(NULL, "map", "--restore") == 0);
	CHECK(RULES("t: d: --queue-depth needs --ublk\n", "map", "d", "-q", "4") ==
	      ZNP_EXIT_USAGE);
	CHECK(RULES("t: d: --foreground needs --ublk\n", "map", "d", "--queues", "2",
		    "--foreground") == ZNP_EXIT_USAGE);	/* the first in table order */
	CHECK(RULES("t: d: --recover needs --ublk-id (the device to take back)\n", "map", "d",
		    "--ublk", "--recover") == ZNP_EXIT_USAGE);
	CHECK(RULES(NULL, "map", "d", "--ublk", "--recover", "--ublk-id", "3") == 0);
	CHECK(RULES("t: map: --restore cannot be combined with --persist (it restores every "
		    "recorded mapping, ublk ones too)\n", "map", "--restore", "-p") ==
	      ZNP_EXIT_USAGE);
	CHECK(RULES("t: d: --restore takes no positional argument ('d' given) (it restores "
		    "every recorded mapping, ublk ones too)\n", "map", "--restore", "d") ==
	      ZNP_EXIT_USAGE);
	/* several devices: one concatenation, named, not recorded, not ublk */
	CHECK(RULES(NULL, "map", "a", "b", "--name", "n") == 0);
	CHECK(RULES(NULL, "map", "a", "--ublk", "--persist") == 0);
	CHECK(RULES("t: a: mapping several devices needs --name\n", "map", "a", "b") ==
	      ZNP_EXIT_USAGE);
	CHECK(RULES("t: a: --persist records one device per mapping: map several devices "
		    "without it\n", "map", "a", "b", "c", "--name", "n", "-p") == ZNP_EXIT_USAGE);
	CHECK(RULES("t: a: --ublk serves one namespace: map several devices without it\n",
		    "map", "a", "b", "--ublk", "--name", "n") == ZNP_EXIT_USAGE);
}

/* More positional arguments than ZNP_MAX_ARGS: the first extra one is kept and named. */
static void test_extra_args(void)
{
	const struct znp_cmd_desc *c = znp_cmd_find("map");
	char *argv[] = { "map", "a", "b", "c", "d", "e", "f", NULL };
	struct znp_cli cli = { .prog = "t" };
	struct znp_opts o;
	char *line = NULL;
	size_t len = 0;

	cli.err = open_memstream(&line, &len);
	cli.out = cli.err;
	znp_opts_init(&o);
	CHECK(!znp_cli_parse_argv(&cli, c, 7, argv, &o));
	CHECK(o.nargs == ZNP_MAX_ARGS && o.extra && !strcmp(o.extra, "e"));
	CHECK(znp_cli_run(&cli, c, &o) == ZNP_EXIT_USAGE);
	fclose(cli.err);
	CHECK(line && !strcmp(line, "t: a: unexpected argument 'e'\n"), "%s", line);
	free(line);
}

int main(void)
{
	test_u64();
	test_u32();
	test_state();
	test_fmt();
	test_opt_set();
	test_table();
	test_argv();
	test_argv_values();
	test_exit_map();
	test_rules();
	test_extra_args();
	return t_done("test-cli-opts");
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command and option table: the single source for the standalone
 * getopt_long parser and its usage(), the nvme-cli plugin glue, shell
 * completions and man pages (`nvme-zns-npo2 __table` dumps it as JSON).
 *
 * To add a command: write `int znp_cmd_<name>(const struct znp_cli *,
 * const struct znp_opts *, struct znp_print *)` in src/cli/cmd_<name>.c,
 * declare it below, and add one entry to znp_cmds[] in cmdtab.c listing its
 * options by id. A new option: a new enum znp_opt_id value (opts.h), a
 * field in struct znp_opts, and one entry in znp_opt_descs[].
 */
#ifndef ZNP_CLI_CMDTAB_H
#define ZNP_CLI_CMDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "opts.h"
#include "print.h"

enum znp_opt_kind {
	ZNP_OK_FLAG,		/* no argument: sets a bool */
	ZNP_OK_U64,		/* znp_parse_u64() */
	ZNP_OK_U32,		/* znp_parse_u32() */
	ZNP_OK_STATE,		/* znp_parse_state() */
	ZNP_OK_FMT,		/* znp_parse_fmt() */
	ZNP_OK_STRING,		/* stored as is (not copied) */
};

struct znp_opt_desc {
	enum znp_opt_id id;
	const char *long_name;
	char short_name;	/* 0: long only */
	const char *alias;	/* second long name (nvme-cli spelling), or NULL */
	const char *meta;	/* argument placeholder ("LBA"); NULL for flags */
	const char *help;
	const char *values;	/* finite value list "a|b|c" for completion, or NULL */
	enum znp_opt_kind kind;
	size_t offset;		/* field in struct znp_opts */
};

struct znp_cmd_desc;

/* Front-end context: what differs between the standalone binary and nvme-cli. */
/* The first error line of a command, for -o json (znp_cli_run()). */
struct znp_cli_error {
	bool set;
	int ret;		/* the library return it reports; 0: not given */
	char subject[256];	/* device, mapping or command the line names */
	char message[768];
};

struct znp_cli {
	const char *prog;	/* "nvme-zns-npo2" or "nvme zns-npo2", for messages */
	struct znp_env env;	/* ZNP_SYSFS_ROOT / ZNP_DEV_ROOT / ZNP_PROC_ROOT, read by the front-end */
	FILE *out;		/* results */
	FILE *err;		/* one-line errors */
	struct znp_cli_error *last;	/* NULL: not kept */
	const struct znp_cmd_desc *cmd;	/* the running command (set by znp_cli_run()) */
};

typedef int znp_cmd_fn(const struct znp_cli *cli, const struct znp_opts *o,
		       struct znp_print *p);

/* A mask of options for struct znp_opt_rule: ZNP_OPT_BIT(ZNP_O_UBLK) | ... */
#define ZNP_OPT_BIT(id)	(UINT64_C(1) << (id))

/*
 * An option dependency, checked by znp_cli_run() before the command runs
 * (a violation is a usage error naming the options involved). When any
 * option of @when is given (@when 0: always) and there are at least
 * @min_nargs positional arguments, every option of @needs must be given
 * too, at least one of @needs_one, none of @excludes, and, with @no_args,
 * no positional argument. Tables end with an all-zero rule.
 */
struct znp_opt_rule {
	uint64_t when;
	int min_nargs;
	uint64_t needs;
	uint64_t needs_one;
	uint64_t excludes;
	bool no_args;
	const char *hint;	/* appended in parentheses, or NULL */
	const char *why;	/* the whole message instead of a generated one, or NULL */
};

/*
 * A command's exception to znp_exit_from_ret(): the library's @ret means
 * @code in this command. Tables end with { 0, 0 }.
 */
struct znp_exit_override {
	int ret;		/* a negative errno */
	int code;		/* enum znp_exit */
};

/* An option whose help differs in one command (unmap's --force). Tables end with { ZNP_O_NR }. */
struct znp_opt_help {
	enum znp_opt_id id;
	const char *help;
};

struct znp_cmd_desc {
	const char *name;
	const char *help;		/* one line */
	const char *args;		/* positional synopsis: "<device>", "[<command>]", "" */
	int min_args;
	int max_args;			/* at most ZNP_MAX_ARGS; more is a usage error */
	znp_cmd_fn *fn;
	const enum znp_opt_id *opts;	/* terminated by ZNP_O_NR */
	const struct znp_opt_rule *rules;	/* option dependencies, or NULL */
	const struct znp_exit_override *exits;	/* or NULL: znp_exit_from_ret() as is */
	const struct znp_opt_help *opt_help;	/* or NULL: every option's own help */
	bool hidden;			/* not in help or completions */
	bool zoned_args;		/* its <device> must be zoned: completions offer only
					 * zoned namespaces (`zoned` in __table) */
};

extern const struct znp_opt_desc znp_opt_descs[ZNP_O_NR];
extern const struct znp_cmd_desc znp_cmds[];
extern const size_t znp_nr_cmds;

const struct znp_cmd_desc *znp_cmd_find(const char *name);
const struct znp_opt_desc *znp_opt_by_id(enum znp_opt_id id);
/* Matches long names and aliases. */
const struct znp_opt_desc *znp_opt_by_long(const char *name);
bool znp_cmd_has_opt(const struct znp_cmd_desc *c, enum znp_opt_id id);
/* The help of option @d in command @c: the command's own (@c->opt_help), else @d->help. */
const char *znp_cmd_opt_help(const struct znp_cmd_desc *c, const struct znp_opt_desc *d);

/**
 * znp_opt_set() - set one option from its string form
 * @o: options being built
 * @d: the option
 * @arg: its argument; NULL for flags (a flag given an argument is an error)
 * @why: on failure, a static reason
 *
 * Both front-ends call this for every option they see, so validation is
 * identical. Marks the option in @o->given.
 * Return: 0 or -EINVAL / -ERANGE.
 */
int znp_opt_set(struct znp_opts *o, const struct znp_opt_desc *d,
		const char *arg, const char **why);

/**
 * znp_cli_init() - front-end context shared by the standalone binary and the
 * nvme-cli plugin: @prog for messages, stdout/stderr, and the test hooks
 * ZNP_SYSFS_ROOT (instead of /sys), ZNP_DEV_ROOT (instead of /dev) and
 * ZNP_PROC_ROOT (instead of /proc) read from the environment (empty values
 * are ignored).
 */
void znp_cli_init(struct znp_cli *cli, const char *prog);

/**
 * znp_cli_opt_error() - print the one-line error for a bad option
 * @o: options with the positional arguments already filled in, so the
 *     message names the device when there is one
 * @what: the option as the user wrote it ("--start-lba", "-s")
 * @arg: its argument, or NULL for "<what>: <why>" (unknown option, ...)
 * @why: the problem
 * Return: ZNP_EXIT_USAGE.
 */
int znp_cli_opt_error(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		      const struct znp_opts *o, const char *what, const char *arg,
		      const char *why);

/**
 * znp_cli_add_arg() - a positional argument, for both front-ends
 *
 * Arguments past ZNP_MAX_ARGS are not kept, but the first of them is
 * (@o->extra), so that znp_cli_run() names it in the usage error.
 */
void znp_cli_add_arg(struct znp_opts *o, const char *arg);

/**
 * znp_cli_check_rules() - the option dependencies of @c->rules
 * Return: 0, or ZNP_EXIT_USAGE after a one-line error naming the options.
 */
int znp_cli_check_rules(const struct znp_cli *cli, const struct znp_cmd_desc *c,
			const struct znp_opts *o);

/**
 * znp_cli_run() - validate positional arguments and option dependencies,
 * then run a command
 * @o: fully parsed options (args[] filled)
 *
 * Prints usage to cli->out for --help. With -o json, a command that fails
 * before printing its document gets one: {"error": {...}} from the first
 * error line (znp_print_ops.error). Return: the exit code.
 */
int znp_cli_run(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		struct znp_opts *o);

/**
 * znp_cli_exit() - the exit code of the running command for a failed
 * library call: its override (cli->cmd->exits) when it has one for @ret,
 * else znp_exit_from_ret(). Every command maps library errors through it.
 */
int znp_cli_exit(const struct znp_cli *cli, int ret);

/**
 * znp_exit_from_arg_ret() - exit code for a file named on the command line
 * (a range list) that cannot be opened: a wrong path (-ENOENT, -ENOTDIR,
 * -EISDIR) is a bad argument (ZNP_EXIT_USAGE); anything else a failure.
 */
int znp_exit_from_arg_ret(int ret);

/**
 * znp_cli_close_out() - check the results stream at exit, as util-linux's
 * close_stdout() does: flush it (and, with @do_close, close it). A write
 * error (ENOSPC, EIO, ...; not EPIPE: the reader left) is reported in one
 * line and turns exit code 0 into ZNP_EXIT_FAILED (another @code is kept).
 * Return: the exit code.
 */
int znp_cli_close_out(const struct znp_cli *cli, const char *subject, int code,
		      bool do_close);

/**
 * znp_cli_parse_argv() - standalone parser: getopt_long built from the table
 * @argv: argv[0] is the command name
 * Return: 0, or an exit code after printing a one-line error.
 */
int znp_cli_parse_argv(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		       int argc, char **argv, struct znp_opts *o);

/* Usage of one command, generated from the table. */
void znp_cli_usage(const struct znp_cli *cli, const struct znp_cmd_desc *c, FILE *f);
/* Command overview. */
void znp_cli_help_all(const struct znp_cli *cli, FILE *f);

/* "<prog>: <subject>: <message>\n" on cli->err. */
void znp_cli_err(const struct znp_cli *cli, const char *subject,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* znp_cli_err() of a failed library call: @ret (-errno, NVMe status) is kept for -o json. */
void znp_cli_err_ret(const struct znp_cli *cli, int ret, const char *subject,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Commands. */
znp_cmd_fn znp_cmd_list;
znp_cmd_fn znp_cmd_report;
znp_cmd_fn znp_cmd_zonemap;	/* cmd_zonemap.c */
znp_cmd_fn znp_cmd_check;
znp_cmd_fn znp_cmd_open;
znp_cmd_fn znp_cmd_close;
znp_cmd_fn znp_cmd_finish;
znp_cmd_fn znp_cmd_reset;
znp_cmd_fn znp_cmd_offline;
znp_cmd_fn znp_cmd_help;
znp_cmd_fn znp_cmd_version;
znp_cmd_fn znp_cmd_table;
znp_cmd_fn znp_cmd_discard;	/* cmd_discard.c (async helper) */
znp_cmd_fn znp_cmd_map;		/* cmd_map.c (map helper) */
znp_cmd_fn znp_cmd_unmap;
znp_cmd_fn znp_cmd_export;
znp_cmd_fn znp_cmd_status;

#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The front-end independent dispatch of the command table (cmdtab.c): one-line
 * errors, option rules and argument counts, running a command, exit codes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"
#include "exit.h"

/*
 * Control characters (a newline, an escape sequence) in an argument echoed
 * back would break the one-line error or drive the terminal: shown as '?'.
 */
static void put_sanitized(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static void cli_verr(const struct znp_cli *cli, int ret, const char *subject,
		     const char *fmt, va_list ap)
{
	char buf[1024], *msg = buf;
	struct znp_cli_error *e = cli->last;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= (int)sizeof(buf)) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, aq);
		else
			msg = buf;	/* truncated, still one line */
	}
	va_end(aq);
	fprintf(cli->err, "%s: ", cli->prog);
	put_sanitized(cli->err, subject);
	fputs(": ", cli->err);
	put_sanitized(cli->err, n < 0 ? fmt : msg);
	fputc('\n', cli->err);
	if (e && !e->set) {
		e->set = true;
		e->ret = ret;
		znp_strlcpy(e->subject, subject, sizeof(e->subject));
		znp_strlcpy(e->message, n < 0 ? fmt : msg, sizeof(e->message));
	}
	if (msg != buf)
		free(msg);
}

void znp_cli_err(const struct znp_cli *cli, const char *subject, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verr(cli, 0, subject, fmt, ap);
	va_end(ap);
}

void znp_cli_err_ret(const struct znp_cli *cli, int ret, const char *subject,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verr(cli, ret, subject, fmt, ap);
	va_end(ap);
}

static const char *env_path(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

void znp_cli_init(struct znp_cli *cli, const char *prog)
{
	static struct znp_cli_error last;	/* one command per process */

	last = (struct znp_cli_error){ .set = false };
	*cli = (struct znp_cli){
		.prog = prog,
		.env = {
			.sysfs_root = env_path("ZNP_SYSFS_ROOT"),
			.dev_root = env_path("ZNP_DEV_ROOT"),
			.proc_root = env_path("ZNP_PROC_ROOT"),
		},
		.out = stdout,
		.err = stderr,
		.last = &last,
	};
}

/* A failed command that printed nothing on stdout: its error, for scripts. */
static void print_error(const struct znp_cli *cli, const struct znp_cmd_desc *c,
			struct znp_print *p, int exit_code)
{
	const struct znp_cli_error *e = cli->last;
	struct znp_error_view v = { .exit_code = exit_code };

	if (e && e->set) {
		v.ret = e->ret;
		v.device = strcmp(e->subject, c->name) ? e->subject : NULL;
		v.message = e->message;
	}
	if (!v.message)
		v.message = "failed";
	p->ops->error(p, &v);
}

int znp_cli_opt_error(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		      const struct znp_opts *o, const char *what, const char *arg,
		      const char *why)
{
	/* Name the device when there is one: the error is about using it. */
	const char *subject = o->nargs && c->max_args && *o->args[0] ? o->args[0] : c->name;

	if (arg)
		znp_cli_err(cli, subject, "invalid %s '%s': %s", what, arg, why);
	else
		znp_cli_err(cli, subject, "%s: %s", what, why);
	/* -o json anywhere on the line: the error object too (not for -o's own value) */
	if (o->fmt == ZNP_FMT_JSON) {
		struct znp_print p;

		znp_print_init(&p, o->fmt, cli->out, 0);
		print_error(cli, c, &p, ZNP_EXIT_USAGE);
	}
	return ZNP_EXIT_USAGE;
}

void znp_cli_add_arg(struct znp_opts *o, const char *arg)
{
	if (o->nargs < ZNP_MAX_ARGS)
		o->args[o->nargs++] = arg;
	else if (!o->extra)
		o->extra = arg;
}

/* The subject of a usage error: the device when there is one, else the command. */
static const char *usage_subject(const struct znp_cmd_desc *c, const struct znp_opts *o)
{
	return o->nargs && c->max_args && *o->args[0] ? o->args[0] : c->name;
}

/* The options of @mask, "--a", "--a or --b", "--a, --b or --c", into @buf. */
static const char *opt_list(char *buf, size_t size, uint64_t mask)
{
	int left = __builtin_popcountll(mask), n = 0;
	size_t len = 0;

	buf[0] = '\0';
	for (int id = 0; id < ZNP_O_NR && len < size; id++) {
		if (!(mask & ZNP_OPT_BIT(id)))
			continue;
		left--;
		len += snprintf(buf + len, size - len, "%s--%s", !n ? "" : left ? ", " : " or ",
				znp_opt_descs[id].long_name);
		n++;
	}
	return buf;
}

static int rule_error(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		      const struct znp_opts *o, const struct znp_opt_rule *r,
		      uint64_t given, const char *what, uint64_t others, const char *arg)
{
	char who[64], list[256], msg[512];

	opt_list(who, sizeof(who), given & r->when & -(given & r->when));	/* the first */
	opt_list(list, sizeof(list), others);
	if (r->why)
		snprintf(msg, sizeof(msg), "%s", r->why);
	else if (!r->when)
		snprintf(msg, sizeof(msg), "missing %s", list);
	else if (arg)
		snprintf(msg, sizeof(msg), "%s takes no positional argument ('%s' given)", who, arg);
	else
		snprintf(msg, sizeof(msg), "%s %s %s", who, what, list);
	if (r->hint)
		znp_cli_err(cli, usage_subject(c, o), "%s (%s)", msg, r->hint);
	else
		znp_cli_err(cli, usage_subject(c, o), "%s", msg);
	return ZNP_EXIT_USAGE;
}

int znp_cli_check_rules(const struct znp_cli *cli, const struct znp_cmd_desc *c,
			const struct znp_opts *o)
{
	uint64_t given = o->given;

	for (const struct znp_opt_rule *r = c->rules; r && (r->when || r->needs || r->needs_one ||
							   r->excludes || r->no_args); r++) {
		uint64_t missing = r->needs & ~given, clash = r->excludes & given;

		if ((r->when && !(r->when & given)) || o->nargs < r->min_nargs)
			continue;
		if (missing)
			return rule_error(cli, c, o, r, given, "needs", missing & -missing, NULL);
		if (r->needs_one && !(r->needs_one & given))
			return rule_error(cli, c, o, r, given, "needs", r->needs_one, NULL);
		if (clash)
			return rule_error(cli, c, o, r, given, "cannot be combined with",
					  clash & -clash, NULL);
		if (r->no_args && o->nargs)
			return rule_error(cli, c, o, r, given, NULL, 0, o->args[0]);
	}
	return 0;
}

/* Positional arguments and option rules against the table; Return: 0 or exit 2 after the line. */
static int check_args(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		      const struct znp_opts *o)
{
	if (o->nargs < c->min_args) {
		znp_cli_err(cli, c->name, "missing argument %s", c->args);
		return ZNP_EXIT_USAGE;
	}
	if (o->nargs > c->max_args || o->extra) {
		znp_cli_err(cli, o->nargs > 1 && *o->args[0] ? o->args[0] : c->name,
			    "unexpected argument '%s'",
			    o->nargs > c->max_args ? o->args[c->max_args] : o->extra);
		return ZNP_EXIT_USAGE;
	}
	/* "" would name nothing in the error lines: refuse it as usage */
	if (o->nargs && !*o->args[0]) {
		znp_cli_err(cli, c->name, "empty argument %s", c->args);
		return ZNP_EXIT_USAGE;
	}
	return znp_cli_check_rules(cli, c, o);
}

int znp_cli_run(const struct znp_cli *cli, const struct znp_cmd_desc *c,
		struct znp_opts *o)
{
	struct znp_cli run = *cli;
	unsigned int flags = 0;
	struct znp_print p;
	int ret;

	run.cmd = c;
	if (o->help) {
		znp_cli_usage(cli, c, cli->out);
		return ZNP_EXIT_OK;
	}
	if (o->human)
		flags |= ZNP_PF_HUMAN;
	if (o->verbose)
		flags |= ZNP_PF_VERBOSE;
	znp_print_init(&p, o->fmt, cli->out, flags);
	ret = check_args(cli, c, o);
	if (!ret)
		ret = c->fn(&run, o, &p);
	if (ret && !p.started)
		print_error(cli, c, &p, ret);
	/* the front-end flushes cli->out and checks it: znp_cli_close_out() */
	return ret;
}

int znp_cli_exit(const struct znp_cli *cli, int ret)
{
	for (const struct znp_exit_override *x = cli->cmd ? cli->cmd->exits : NULL;
	     x && x->ret; x++)
		if (x->ret == ret)
			return x->code;
	return znp_exit_from_ret(ret);
}

int znp_exit_from_arg_ret(int ret)
{
	if (ret == -ENOENT || ret == -ENOTDIR || ret == -EISDIR)
		return ZNP_EXIT_USAGE;
	return ZNP_EXIT_FAILED;
}

int znp_cli_close_out(const struct znp_cli *cli, const char *subject, int code,
		      bool do_close)
{
	bool failed = ferror(cli->out);
	int err = 0;

	if (fflush(cli->out))
		err = errno;
	if (do_close && fclose(cli->out) && !err)
		err = errno;
	if (!failed && !err)
		return code;
	if (err == EPIPE)
		return code;	/* the reader left: not our failure (util-linux does the same) */
	if (err)
		znp_cli_err(cli, subject, "cannot write standard output: %s", strerror(err));
	else
		znp_cli_err(cli, subject, "cannot write standard output");
	return code ? code : ZNP_EXIT_FAILED;
}

int znp_exit_from_ret(int ret)
{
	/* NVMe Invalid Command Opcode (SCT 0, SC 0x01; DNR/More ignored) */
	if (ret > 0 && (ret & 0x7ff) == 0x001)
		return ZNP_EXIT_UNSUPPORTED;
	switch (ret) {
	case 0:
		return ZNP_EXIT_OK;
	case -ENOENT:
	case -ENOTBLK:
	case -ENODEV:
	case -ENXIO:
	case -EISDIR:
	case -EMEDIUMTYPE:
	case -ELOOP:		/* path problems: the device is missing */
	case -ENOTDIR:
	case -ENAMETOOLONG:
	case -EROFS:		/* a read-only device cannot take the command */
		return ZNP_EXIT_UNSUITABLE;
	case -EBUSY:
	case -EEXIST:		/* a name, UUID or device id in use */
		return ZNP_EXIT_REFUSED;
	case -EOPNOTSUPP:
		return ZNP_EXIT_UNSUPPORTED;
	case -EINTR:
		return ZNP_EXIT_INTERRUPTED;
	default:
		return ZNP_EXIT_FAILED;
	}
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discard: byte or LBA ranges, many commands in flight (io_uring), with the
 * safety rules of blkdiscard (O_EXCL, no mounted or held device, --force or
 * a confirmation on the terminal), a dry run, progress on a terminal and an
 * exact account of what was done when interrupted.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "progress.h"
#include "sigint.h"

/* Ask on the terminal. Return: 1 yes, 0 no, -1 no terminal to ask on. */
static int confirm(const struct znp_discard_view *v, bool stdin_is_data)
{
	char size[32];

	if (stdin_is_data)
		return -1;
	znp_human_size(size, sizeof(size), v->bytes);
	return znp_cli_confirm("%s %s (%" PRIu64 " range%s) of %s? Data will be lost.",
			       !strcmp(v->target, "zoned") ? "Reset" : "Discard", size,
			       v->ranges, v->ranges == 1 ? "" : "s", v->device);
}

/* fopen(@path, "re"), but a directory (which Linux opens) fails with EISDIR. */
static FILE *open_list(const char *path)
{
	FILE *f = fopen(path, "re");
	struct stat st;

	if (f && !fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	return f;
}

static int read_ranges(const struct znp_cli *cli, const struct znp_opts *o,
		       struct znp_range_list *l)
{
	bool is_stdin = !strcmp(o->ranges, "-");
	FILE *f = is_stdin ? stdin : open_list(o->ranges);
	const char *why = "";
	size_t line = 0;
	int ret;

	if (!f) {
		int err = errno;

		znp_cli_err(cli, o->ranges, "cannot open the range list: %s", strerror(err));
		return znp_exit_from_arg_ret(-err);
	}
	ret = znp_range_list_read(f, znp_parse_u64, l, &line, &why);
	if (!is_stdin)
		fclose(f);
	if (ret == -EINVAL || ret == -ERANGE) {
		znp_cli_err(cli, o->ranges, "line %zu: %s", line, why);
		return ZNP_EXIT_USAGE;
	}
	if (ret) {
		znp_cli_err(cli, o->ranges, "cannot read the range list: %s", znp_strerror(ret));
		return ZNP_EXIT_FAILED;
	}
	if (!l->nr) {
		znp_cli_err(cli, o->ranges, "no ranges");
		return ZNP_EXIT_USAGE;
	}
	return 0;
}

/* Ranges in bytes: from the list, from --offset/--length, or the device. */
static int build_ranges(const struct znp_cli *cli, const struct znp_opts *o,
			const struct znp_discard_target *t, struct znp_range_list *l)
{
	uint64_t unit = o->lba ? t->lba_size : 1, off, len;
	size_t i;

	if (!o->ranges) {
		off = znp_opt_given(o, ZNP_O_OFFSET) ? o->offset : 0;
		if (znp_opt_given(o, ZNP_O_LENGTH))
			len = o->length;
		else if (off * unit < t->size && off <= UINT64_MAX / unit)
			len = (t->size - off * unit) / unit;
		else
			len = 1;	/* let validation say "past the end" */
		if (znp_range_list_add(l, off, len))
			return ZNP_EXIT_FAILED;
	}
	for (i = 0; i < l->nr; i++) {
		if (l->r[i].start > UINT64_MAX / unit || l->r[i].len > UINT64_MAX / unit) {
			znp_cli_err(cli, o->args[0], "range %zu: past the end of the device", i);
			return ZNP_EXIT_USAGE;
		}
		l->r[i].start *= unit;
		l->r[i].len *= unit;
	}
	return 0;
}

static int open_target(const struct znp_cli *cli, const struct znp_opts *o,
		       struct znp_discard_target **t)
{
	unsigned int flags = ZNP_DISCARD_OPEN_EXCL;
	const char *why = NULL;
	int ret;

	if (o->dry_run)
		flags |= ZNP_DISCARD_OPEN_RDONLY;
	ret = znp_discard_open(&cli->env, o->args[0], flags, t, &why);
	if (!ret)
		return 0;
	znp_cli_err(cli, o->args[0], "%s", why && *why ? why : znp_strerror(ret));
	return znp_cli_exit(cli, ret);
}

/* @sync: ZNP_FORCE_SYNC, or queue depth 1 on a zoned target (the zone engine's sync case). */
static const char *planned_engine(const struct znp_discard_target *t, bool sync)
{
	if (t->type == ZNP_DT_BLOCK)
		return znp_aio_engine_name(sync ? ZNP_ENG_BLKDISCARD : ZNP_ENG_URING_DISCARD);
	if (t->type == ZNP_DT_ZONED && t->dev->kind == ZNP_DEV_ZONED_BLOCK)
		return znp_aio_engine_name(ZNP_ENG_BLKZONE_IOCTL);
	if (t->type == ZNP_DT_ZONED && t->dev->kind == ZNP_DEV_NVME_BLOCK && !sync)
		return znp_aio_engine_name(ZNP_ENG_BLKZONE_IOCTL);
	return znp_aio_engine_name(sync ? ZNP_ENG_NVME_IOCTL : ZNP_ENG_URING_NVME);
}

static int run(const struct znp_cli *cli, const struct znp_opts *o,
	       struct znp_discard_target *t, struct znp_aio_job *job,
	       struct znp_aio_result *res, bool sync)
{
	struct znp_cli_progress pg;
	struct znp_mgmt_opts mo;
	int ret;

	memset(res, 0, sizeof(*res));	/* filled even when nothing was sent */
	job->qd = o->queue_depth;
	job->force_sync = sync;
	job->stop = &znp_cli_interrupted;
	if (znp_cli_progress_init(&pg, cli, o, "discard", true)) {
		job->progress = znp_cli_progress_cb;
		job->progress_arg = &pg;
	}
	ret = znp_cli_sigint_begin();
	if (ret)
		return ret;
	if (t->type == ZNP_DT_ZONED) {
		mo = (struct znp_mgmt_opts){
			.qd = sync ? 1 : job->qd, .stop = job->stop,
			.progress = job->progress, .progress_arg = job->progress_arg,
		};
		ret = znp_zone_mgmt_ranges(t->dev, ZNP_ZA_RESET, job->ranges,
					   job->nr, &mo, res);
	} else {
		ret = znp_aio_run(job, res);
	}
	znp_cli_sigint_end();
	znp_cli_progress_end(&pg);
	return ret;
}

static void report_failure(const struct znp_cli *cli, const char *path,
			   const struct znp_aio_job *job,
			   const struct znp_aio_result *res, int ret, uint64_t cmds,
			   bool zoned)
{
	const struct znp_aio_range *r;

	if (ret == -EINTR) {
		znp_cli_err(cli, path, "interrupted: %" PRIu64 " of %" PRIu64
			    " commands done (the first %" PRIu64 " in list order), %"
			    PRIu64 " bytes; the others were not sent",
			    res->completed, cmds, res->submitted, res->bytes);
		return;
	}
	if (!res->failed || zoned || res->first_err_idx >= job->nr) {
		znp_cli_err(cli, path, "%s failed after %" PRIu64 " of %" PRIu64
			    " commands: %s", zoned ? "zone reset" : "discard",
			    res->completed, cmds, znp_strerror(ret));
		return;
	}
	r = &job->ranges[res->first_err_idx];
	znp_cli_err(cli, path, "command %zu (start %" PRIu64 ", length %" PRIu64
		    " %s) failed: %s; %" PRIu64 " of %" PRIu64 " commands done",
		    res->first_err_idx, r->start, r->len,
		    job->kind == ZNP_AIO_BLK_DISCARD ? "bytes" : "LBAs",
		    znp_strerror(ret), res->completed, cmds);
}

/* Commands the plan will send: zoned targets send one per zone. */
static uint64_t nr_commands(const struct znp_discard_target *t,
			    const struct znp_aio_job *job)
{
	const struct znp_geom *g;
	uint64_t n = 0;
	size_t i;

	if (t->type != ZNP_DT_ZONED)
		return job->nr;
	g = &t->dev->geom;
	for (i = 0; i < job->nr; i++)
		n += znp_zones_in_range(g, job->ranges[i].start, job->ranges[i].len);
	return n;
}

static void print_plan(struct znp_print *p, const struct znp_discard_target *t,
		       const struct znp_aio_job *job)
{
	const struct znp_geom *g;
	uint64_t slba;
	size_t i;

	for (i = 0; i < job->nr; i++) {
		if (t->type != ZNP_DT_ZONED) {
			p->ops->discard_cmd(p, job->ranges[i].start, job->ranges[i].len);
			continue;
		}
		g = &t->dev->geom;
		for (slba = job->ranges[i].start;
		     slba < job->ranges[i].start + job->ranges[i].len;
		     slba += znp_zone_len(g, znp_zone_no(g, slba)))
			p->ops->discard_cmd(p, slba, znp_zone_len(g, znp_zone_no(g, slba)));
	}
}

/*
 * Test and benchmark hook (meson -Dtest_hooks=true only): ZNP_FORCE_SYNC=1
 * runs the synchronous engine, the baseline of the benchmarks.
 */
static bool force_sync(void)
{
#ifdef ZNP_TEST_HOOKS
	const char *env = getenv("ZNP_FORCE_SYNC");

	return env && *env && strcmp(env, "0");
#else
	return false;
#endif
}

/* What one discard works on, from the options to the plan. */
struct discard {
	struct znp_range_list l;
	struct znp_discard_target *t;
	struct znp_aio_job job;
	struct znp_discard_view v;
};

/* Options, ranges, the device, validation and the plan: nothing is sent. */
static int prepare(const struct znp_cli *cli, const struct znp_opts *o, bool sync,
		   struct discard *d)
{
	const char *path = o->args[0], *why = NULL;
	uint64_t bytes = 0;
	size_t bad = 0, i;
	int ret;

	ret = znp_cli_check_qd(cli, o);	/* --ranges vs --offset: the table */
	if (!ret && o->ranges)
		ret = read_ranges(cli, o, &d->l);
	if (!ret)
		ret = open_target(cli, o, &d->t);
	if (!ret)
		ret = build_ranges(cli, o, d->t, &d->l);
	if (ret)
		return ret;
	ret = znp_discard_validate(d->t, d->l.r, d->l.nr, &bad, &why);
	if (ret == -EINVAL) {
		znp_cli_err(cli, path, "range %zu (offset %" PRIu64 ", length %" PRIu64
			    " bytes): %s", bad, d->l.r[bad].start, d->l.r[bad].len, why);
		return ZNP_EXIT_USAGE;
	}
	if (!ret)
		ret = znp_discard_plan(d->t, d->l.r, d->l.nr, &d->job);
	if (ret)
		return znp_cli_fail(cli, path, "cannot plan the discard", ret);
	for (i = 0; i < d->l.nr; i++)
		bytes += d->l.r[i].len;
	d->v = (struct znp_discard_view){
		.device = path,
		.target = znp_discard_type_name(d->t->type),
		.engine = planned_engine(d->t, sync || (d->t->type == ZNP_DT_ZONED &&
							 o->queue_depth == 1)),
		.unit = d->t->type == ZNP_DT_BLOCK ? "bytes" : "lba",
		.dry_run = o->dry_run,
		.queue_depth = o->queue_depth ? o->queue_depth : ZNP_AIO_DEFAULT_QD,
		.ranges = d->l.nr,
		.commands = nr_commands(d->t, &d->job),
		.bytes = bytes,
	};
	return 0;
}

/* Send the plan; print the summary and, on failure, what was done. */
static int execute(const struct znp_cli *cli, const struct znp_opts *o,
		   struct znp_print *p, struct discard *d, bool sync)
{
	struct znp_discard_summary s;
	struct znp_aio_result res;
	int ret;

	ret = run(cli, o, d->t, &d->job, &res, sync);
	s = (struct znp_discard_summary){
		.engine = znp_aio_engine_name(res.engine),
		.fallbacks = res.fallbacks,
		.fallback_reason = res.fallbacks ? znp_strerror(res.fallback_reason) : NULL,
		.commands = d->v.commands,
		.submitted = res.submitted,
		.completed = res.completed,
		.failed = res.failed,
		.bytes = res.bytes,
		.seconds = res.seconds,
		.iops = res.seconds > 0 ? (double)res.completed / res.seconds : 0,
		.interrupted = res.interrupted,
		.ret = ret,
	};
	p->ops->discard_end(p, &s);
	if (!ret)
		return 0;
	report_failure(cli, o->args[0], &d->job, &res, ret, d->v.commands,
		       d->t->type == ZNP_DT_ZONED);
	return znp_cli_exit(cli, ret);
}

int znp_cmd_discard(const struct znp_cli *cli, const struct znp_opts *o,
		    struct znp_print *p)
{
	bool sync = force_sync();
	struct discard d = { 0 };
	char instead[64];
	int claim, ret;

	/* through the mapped device the kernel's write pointers stay true */
	snprintf(instead, sizeof(instead), "%s discard", cli->prog);
	ret = znp_cli_claim(cli, o->args[0], "discard", instead, &claim);
	if (ret)
		return ret;
	ret = prepare(cli, o, sync, &d);
	if (!ret && !o->force && !o->dry_run)
		ret = znp_cli_refused(cli, o->args[0], "discard",
				      confirm(&d.v, o->ranges && !strcmp(o->ranges, "-")));
	if (ret)
		goto out;
	p->ops->discard_begin(p, &d.v);
	if (o->dry_run) {
		print_plan(p, d.t, &d.job);
		p->ops->discard_end(p, NULL);
	} else {
		ret = execute(cli, o, p, &d, sync);
	}
out:
	znp_discard_plan_free(&d.job);
	znp_discard_close(d.t);
	znp_range_list_free(&d.l);
	znp_map_unclaim(claim);
	return ret;
}

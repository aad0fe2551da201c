// SPDX-License-Identifier: GPL-2.0-or-later
/* open, close, finish, reset, offline: Zone Management Send. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "progress.h"
#include "sigint.h"

/* The actions that ask first: reset and offline destroy data, finish ends a zone's writes. */
static bool is_destructive(enum znp_zone_action a)
{
	return a == ZNP_ZA_RESET || a == ZNP_ZA_FINISH || a == ZNP_ZA_OFFLINE;
}

/* What a served namespace's admin runs on the mapped device instead; NULL: nothing (offline). */
static const char *blkzone_cmd(enum znp_zone_action a)
{
	switch (a) {
	case ZNP_ZA_OPEN:	return "blkzone open";
	case ZNP_ZA_CLOSE:	return "blkzone close";
	case ZNP_ZA_FINISH:	return "blkzone finish";
	case ZNP_ZA_RESET:	return "blkzone reset";
	default:		return NULL;
	}
}

/* What a destructive action costs, for the question. */
static const char *consequence(enum znp_zone_action a)
{
	/* finish keeps what was written: the zone takes no more writes until a reset */
	return a == ZNP_ZA_FINISH ? "The zones take no more writes until they are reset." :
	       a == ZNP_ZA_OFFLINE ? "Data will be lost, and the zones cannot be used again." :
	       "Data will be lost.";
}

/* Ask on the terminal. Return: 1 yes, 0 no, -1 no terminal to ask on. */
static int confirm(const struct znp_zone_op_view *v)
{
	if (v->all)
		return znp_cli_confirm("%s ALL zones of %s? %s",
				       znp_zone_action_name(v->action), v->device,
				       consequence(v->action));
	return znp_cli_confirm("%s %" PRIu64 " zone%s from zone %" PRIu64 " (slba 0x%" PRIx64
			       ") of %s? %s", znp_zone_action_name(v->action),
			       v->nr_zones, v->nr_zones == 1 ? "" : "s", v->first_zone,
			       v->start_lba, v->device, consequence(v->action));
}

static int check_opts(const struct znp_cli *cli, const struct znp_opts *o)
{
	const char *path = o->args[0];

	/* --all against --start-lba/--count: the command table (zone_rules) */
	if (znp_opt_given(o, ZNP_O_COUNT) && !o->count) {
		znp_cli_err(cli, path, "--count must be at least 1");
		return ZNP_EXIT_USAGE;
	}
	return znp_cli_check_qd(cli, o);
}

/*
 * Queue depth 1 (one synchronous command per zone: the benchmark
 * baseline) unless -q says otherwise or the device is an NVMe char node,
 * whose block device may be hidden: a batch kept deep in flight there.
 */
static unsigned int queue_depth(const struct znp_opts *o, const struct znp_dev *dev)
{
	if (znp_opt_given(o, ZNP_O_QUEUE_DEPTH))
		return o->queue_depth;
	return dev->kind == ZNP_DEV_NVME_CHAR ? 0 : 1;
}

/*
 * @failed_idx: out, index (from the first zone) of the first command that
 * failed; commands complete out of order at a queue depth above 1, so
 * @done zones may not be the first ones, and this names the failing one.
 */
static int run(const struct znp_cli *cli, const struct znp_opts *o, struct znp_dev *dev,
	       const struct znp_mgmt_req *req, uint64_t *done, uint64_t *failed_idx)
{
	struct znp_mgmt_opts mo = {
		.qd = queue_depth(o, dev),
		.stop = &znp_cli_interrupted,
	};
	struct znp_aio_result res = { 0 };
	struct znp_cli_progress pg;
	int ret;

	*done = 0;
	/* a range of zones (select-all is one command: nothing to watch) */
	if (znp_cli_progress_init(&pg, cli, o, znp_zone_action_name(req->action), false) &&
	    !req->all) {
		mo.progress = znp_cli_progress_cb;
		mo.progress_arg = &pg;
	}
	ret = znp_cli_sigint_begin();
	if (ret)
		return ret;
	ret = znp_zone_mgmt_run(dev, req, &mo, &res);
	znp_cli_sigint_end();
	znp_cli_progress_end(&pg);
	*done = res.completed;
	if (res.failed)
		*failed_idx = res.first_err_idx;
	return ret;
}

/* The core's reason, with the numbers a user needs to fix the command. */
static void explain_invalid(const struct znp_cli *cli, const struct znp_dev *dev,
			    const struct znp_mgmt_req *r, const char *why)
{
	const struct znp_geom *g = &dev->geom;
	uint64_t zno;

	if (r->all || !dev->is_zoned) {
		znp_cli_err(cli, dev->path, "%s", why);
		return;
	}
	if (r->slba >= g->nlbas) {
		znp_cli_err(cli, dev->path, "%s: LBA 0x%" PRIx64 ", the device has 0x%" PRIx64
			    " LBAs", why, r->slba, g->nlbas);
		return;
	}
	zno = znp_zone_no(g, r->slba);
	if (!znp_is_zone_start(g, r->slba))
		znp_cli_err(cli, dev->path, "%s: LBA 0x%" PRIx64 " is inside zone %" PRIu64
			    ", which starts at 0x%" PRIx64, why, r->slba, zno,
			    znp_zone_start(g, zno));
	else if (r->nr_zones > g->nr_zones - zno)
		znp_cli_err(cli, dev->path, "%s: %" PRIu64 " zones from zone %" PRIu64
			    ", but the device has %" PRIu64, why, r->nr_zones, zno,
			    g->nr_zones);
	else
		znp_cli_err(cli, dev->path, "%s", why);
}

static void dry_run(struct znp_print *p, const struct znp_dev *dev,
		    const struct znp_zone_op_view *v)
{
	if (v->all) {
		p->ops->zone_op_cmd(p, v->action, 0, 0, true);
		return;
	}
	for (uint64_t i = 0; i < v->nr_zones; i++)
		p->ops->zone_op_cmd(p, v->action, znp_zone_start(&dev->geom, v->first_zone + i),
				    v->first_zone + i, false);
}

static int zone_op(const struct znp_cli *cli, const struct znp_opts *o,
		   struct znp_print *p, enum znp_zone_action action)
{
	/* a dry run claims the device too: it reports what the real run would refuse */
	unsigned int flags = ZNP_OPEN_EXCL | (o->dry_run ? 0 : ZNP_OPEN_WRITE);
	const char *path = o->args[0];
	struct znp_zone_op_view v;
	struct znp_mgmt_req req;
	const char *why = NULL;
	struct znp_dev *dev;
	uint64_t done = 0, failed_idx = UINT64_MAX, slba = 0;
	int claim, ret;

	ret = check_opts(cli, o);
	if (ret)
		return ret;
	/* held to the end: no mapping starts serving the namespace meanwhile */
	ret = znp_cli_claim(cli, path, znp_zone_action_name(action), blkzone_cmd(action),
			    &claim);
	if (ret)
		return ret;
	ret = znp_cli_open_dev(cli, o, flags, true, &dev);
	if (ret)
		goto out_unclaim;
	ret = znp_cli_start_lba(cli, o, dev, &slba);
	if (ret)
		goto out_close;
	req = (struct znp_mgmt_req){
		.action = action,
		.slba = slba,
		.nr_zones = znp_opt_given(o, ZNP_O_COUNT) ? o->count : 1,
		.all = o->all,
	};
	ret = znp_zone_mgmt_validate(dev, &req, &why);
	if (ret) {
		/* -EINVAL: the range does not fit the zones, a bad argument */
		explain_invalid(cli, dev, &req, why ? why : znp_strerror(ret));
		ret = ret == -EINVAL ? ZNP_EXIT_USAGE : znp_cli_exit(cli, ret);
		goto out_close;
	}
	v = (struct znp_zone_op_view){
		.device = path,
		.action = action,
		.all = o->all,
		.dry_run = o->dry_run,
		.start_lba = o->all ? 0 : req.slba,
		.first_zone = o->all ? 0 : znp_zone_no(&dev->geom, req.slba),
		.nr_zones = o->all ? 0 : req.nr_zones,
	};
	if (is_destructive(action) && !o->force && !o->dry_run) {
		ret = znp_cli_refused(cli, path, znp_zone_action_name(action), confirm(&v));
		if (ret)
			goto out_close;
	}
	p->ops->zone_op_begin(p, &v);
	if (o->dry_run) {
		dry_run(p, dev, &v);
		ret = 0;
	} else {
		ret = run(cli, o, dev, &req, &done, &failed_idx);
	}
	p->ops->zone_op_end(p, done, ret);
	if (ret == -EINTR && o->all) {
		znp_cli_err(cli, path, "%s (select-all) interrupted",
			    znp_zone_action_name(action));
	} else if (ret == -EINTR) {
		znp_cli_err(cli, path, "%s interrupted after %" PRIu64 " of %" PRIu64 " zones",
			    znp_zone_action_name(action), done, req.nr_zones);
	} else if (ret && o->all) {
		znp_cli_err(cli, path, "%s (select-all) failed: %s",
			    znp_zone_action_name(action), znp_strerror(ret));
	} else if (ret && failed_idx < req.nr_zones) {
		uint64_t zno = v.first_zone + failed_idx;

		znp_cli_err(cli, path, "%s failed at zone %" PRIu64 " (LBA 0x%" PRIx64 "), after %"
			    PRIu64 " of %" PRIu64 " zones: %s", znp_zone_action_name(action), zno,
			    znp_zone_start(&dev->geom, zno), done, req.nr_zones, znp_strerror(ret));
	} else if (ret) {
		znp_cli_err(cli, path, "%s failed after %" PRIu64 " of %" PRIu64 " zones: %s",
			    znp_zone_action_name(action), done, req.nr_zones, znp_strerror(ret));
	}
	if (ret)
		ret = znp_cli_exit(cli, ret);
out_close:
	znp_dev_close(dev);
out_unclaim:
	znp_map_unclaim(claim);
	return ret;
}

int znp_cmd_open(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	return zone_op(cli, o, p, ZNP_ZA_OPEN);
}

int znp_cmd_close(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	return zone_op(cli, o, p, ZNP_ZA_CLOSE);
}

int znp_cmd_finish(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	return zone_op(cli, o, p, ZNP_ZA_FINISH);
}

int znp_cmd_reset(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	return zone_op(cli, o, p, ZNP_ZA_RESET);
}

int znp_cmd_offline(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	return zone_op(cli, o, p, ZNP_ZA_OFFLINE);
}

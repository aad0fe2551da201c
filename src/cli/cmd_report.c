// SPDX-License-Identifier: GPL-2.0-or-later
/* report: stream zone descriptors to the printer. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include "cmd.h"

/* One zone into --summary's counts (open and active as NVMe counts them). */
static void count(struct znp_zone_summary *s, const struct znp_zone *z)
{
	enum znp_state_filter f = znp_cond_filter(z->cond);

	/* a state the drive got wrong (named on stderr) is in the total only */
	if (f != ZNP_RF_ALL || z->cond == ZNP_ZC_NOT_WP)
		s->by_state[f]++;
	s->nr_zones++;
	if (f == ZNP_RF_IMP_OPEN || f == ZNP_RF_EXP_OPEN)
		s->open++;
	if (f == ZNP_RF_IMP_OPEN || f == ZNP_RF_EXP_OPEN || f == ZNP_RF_CLOSED)
		s->active++;
}

int znp_cmd_report(const struct znp_cli *cli, const struct znp_opts *o,
		   struct znp_print *p)
{
	const char *path = o->args[0];
	struct znp_report_iter *it;
	struct znp_report_hdr h;
	uint64_t left = UINT64_MAX;
	struct znp_dev *dev;
	struct znp_zone z;
	uint64_t nr_bad, slba;
	char states[128];
	struct znp_zone_summary sum;
	int ret;

	if (znp_opt_given(o, ZNP_O_COUNT)) {
		if (!o->count) {
			znp_cli_err(cli, path, "--count must be at least 1");
			return ZNP_EXIT_USAGE;
		}
		left = o->count;
	}
	ret = znp_cli_open_report(cli, o, &dev, &slba);
	if (ret)
		return ret;
	/* a bad descriptor does not hide the zones around it */
	ret = znp_report_begin_flags(dev, slba, o->state,
				     o->raw ? ZNP_REPORT_RAW : ZNP_REPORT_KEEP_BAD, &it);
	if (ret) {
		ret = znp_cli_fail(cli, path, "zone report failed", ret);
		goto out_close;
	}
	/* several states: the device reports all, the ones asked for are printed */
	h = (struct znp_report_hdr){
		.device = path,
		.ns = znp_dev_is_nvme(dev) ? &dev->ns : NULL,
		.geom = &dev->geom,
		.start_lba = slba,
		.filter = o->state,
		.state_filter = znp_states_name(o->states, states, sizeof(states)),
		.summary = o->summary,
	};
	sum = (struct znp_zone_summary){
		.max_open = dev->geom.max_open, .max_active = dev->geom.max_active,
	};
	p->ops->report_begin(p, &h);
	while (left && znp_report_next(it, &z, &ret)) {
		char why[128];

		if (!znp_states_match(o->states, z.cond) && !z.bad)
			continue;

		if (o->summary)
			count(&sum, &z);
		else
			p->ops->report_zone(p, &z, znp_zone_no(&dev->geom, z.start));
		if (z.bad)	/* printed as the drive said it, and named */
			znp_cli_err(cli, path, "zone %" PRIu64 ": %s", znp_zone_no(&dev->geom, z.start),
				    znp_zone_bad_str(&z, why, sizeof(why)));
		left--;
	}
	nr_bad = znp_report_nr_bad(it);
	if (o->summary)
		p->ops->report_summary(p, &sum);
	if (ret || nr_bad)
		p->report_ret = ret ? ret : -EPROTO;
	p->ops->report_end(p);
	znp_report_end(it);
	if (ret)
		ret = znp_cli_fail(cli, path, "zone report failed", ret);
	else if (nr_bad)
		ret = znp_cli_exit(cli, -EPROTO);	/* each one named above */
	else
		ret = ZNP_EXIT_OK;
out_close:
	znp_dev_close(dev);
	return ret;
}

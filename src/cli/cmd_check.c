// SPDX-License-Identifier: GPL-2.0-or-later
/* check: can this namespace be mapped to power-of-2 zones? */
#include "cmd.h"
#include "cmd_map.h"

static int verdict_exit(enum znp_verdict v)
{
	switch (v) {
	case ZNP_V_MAPPABLE:
		return ZNP_EXIT_OK;
	case ZNP_V_PO2:
		return ZNP_EXIT_V_PO2;
	case ZNP_V_NEEDS_KERNEL:
		return ZNP_EXIT_V_NEEDS_KERNEL;
	case ZNP_V_CAP_LT_SIZE:
		return ZNP_EXIT_V_CAP_LT_SIZE;
	case ZNP_V_CAP_VARIES:
		return ZNP_EXIT_V_CAP_VARIES;
	case ZNP_V_NOT_ZNS:
		return ZNP_EXIT_V_NOT_ZNS;
	case ZNP_V_UBLK:
		return ZNP_EXIT_V_UBLK;
	case ZNP_V_METADATA:
		return ZNP_EXIT_V_METADATA;
	}
	return ZNP_EXIT_FAILED;
}

int znp_cmd_check(const struct znp_cli *cli, const struct znp_opts *o,
		  struct znp_print *p)
{
	struct znp_check_view v = { .device = o->args[0] };
	const struct znp_ns_info *ns;
	struct znp_dev *dev;
	int ret;

	ret = znp_cli_open_dev(cli, o, ZNP_CLI_FULL_CAP, false, &dev);
	if (ret)
		return ret;
	ns = znp_dev_is_nvme(dev) ? &dev->ns : NULL;
	ret = znp_check(ns, &dev->geom, dev->is_zoned, &v.res);
	if (ret) {
		ret = znp_cli_fail(cli, v.device, "cannot decide", ret);
		goto out_close;
	}
	if (v.res.verdict == ZNP_V_NEEDS_KERNEL) {
		struct znp_ublk_route_info route;
		struct znp_map_ctx c;

		znp_cli_map_ctx(cli, o, &c);
		znp_map_ublk_route(&c, &route);
		znp_check_ublk(&v.res, znp_ublk_route_usable(route.route),
			       route.route == ZNP_ROUTE_LOADABLE);
		if (route.route == ZNP_ROUTE_ABSENT || route.route == ZNP_ROUTE_NO_ZONED)
			znp_check_no_ublk(&v.res);
	}
	v.ns = ns;
	v.geom = dev->is_zoned ? &dev->geom : NULL;
	v.is_zoned = dev->is_zoned;
	v.exit_code = verdict_exit(v.res.verdict);
	p->ops->check(p, &v);
	ret = v.exit_code;
out_close:
	znp_dev_close(dev);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>

#include "cmd.h"

int znp_cli_fail(const struct znp_cli *cli, const char *subject,
		 const char *what, int ret)
{
	znp_cli_err(cli, subject, "%s: %s", what, znp_strerror(ret));
	return znp_exit_from_ret(ret);
}

int znp_cli_open_dev(const struct znp_cli *cli, const struct znp_opts *o,
		     unsigned int flags, bool need_zoned, struct znp_dev **out)
{
	const char *path = o->args[0];
	const char *why = NULL;
	struct znp_dev *dev;
	int ret;

	ret = znp_dev_open(&cli->env, path, flags & ~(ZNP_CLI_DEFER_CAP | ZNP_CLI_FULL_CAP),
			   &dev, &why);
	if (ret) {
		znp_cli_err(cli, path, "%s", why ? why : znp_strerror(ret));
		return znp_exit_from_ret(ret);
	}
	if (znp_opt_given(o, ZNP_O_NSID)) {
		if (!znp_dev_is_nvme(dev)) {
			znp_cli_err(cli, path, "not an NVMe namespace; --namespace-id does not apply");
			ret = ZNP_EXIT_UNSUITABLE;
			goto out_close;
		}
		if (dev->ns.nsid != o->nsid) {
			znp_cli_err(cli, path, "is namespace %" PRIu32 ", not %" PRIu32,
				    dev->ns.nsid, o->nsid);
			ret = ZNP_EXIT_UNSUITABLE;
			goto out_close;
		}
	}
	ret = znp_dev_probe_flags(dev, (flags & ZNP_CLI_DEFER_CAP) ? ZNP_PROBE_DEFER_CAP : 0);
	if (!ret && !dev->is_zoned)
		ret = -EMEDIUMTYPE;
	if (ret == -EMEDIUMTYPE && !need_zoned) {
		ret = 0;
	} else if (ret == -EMEDIUMTYPE) {
		znp_cli_err(cli, path, "not a zoned namespace");
		ret = ZNP_EXIT_UNSUITABLE;
		goto out_close;
	} else if (ret) {
		ret = znp_cli_fail(cli, path, "cannot read the zone geometry", ret);
		goto out_close;
	}
	if (flags & ZNP_CLI_FULL_CAP) {
		ret = znp_dev_scan_caps(dev);
		if (ret) {
			ret = znp_cli_fail(cli, path, "zone report failed", ret);
			goto out_close;
		}
	}
	*out = dev;
	return 0;

out_close:
	znp_dev_close(dev);
	return ret;
}

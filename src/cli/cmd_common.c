// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"

int znp_cli_confirm(const char *fmt, ...)
{
	char answer[16] = "";
	va_list ap;
	FILE *tty;

	if (!isatty(STDIN_FILENO))
		return -1;
	tty = fopen("/dev/tty", "r+");
	if (!tty)
		return -1;
	va_start(ap, fmt);
	vfprintf(tty, fmt, ap);
	va_end(ap);
	fputs(" [y/N] ", tty);
	fflush(tty);
	if (!fgets(answer, sizeof(answer), tty))
		answer[0] = '\0';
	fclose(tty);
	answer[strcspn(answer, "\n")] = '\0';
	return !strcasecmp(answer, "y") || !strcasecmp(answer, "yes");
}

int znp_cli_refused(const struct znp_cli *cli, const char *path, const char *what, int yes)
{
	if (yes == 1)
		return 0;
	if (yes < 0)
		znp_cli_err(cli, path, "%s destroys data: add --force (or confirm on a terminal)",
			    what);
	else
		znp_cli_err(cli, path, "%s not confirmed; nothing sent", what);
	return ZNP_EXIT_REFUSED;
}

int znp_cli_check_qd(const struct znp_cli *cli, const struct znp_opts *o)
{
	if (znp_opt_given(o, ZNP_O_QUEUE_DEPTH) &&
	    (!o->queue_depth || o->queue_depth > ZNP_AIO_MAX_QD)) {
		znp_cli_err(cli, o->args[0], "--queue-depth must be 1 to %d", ZNP_AIO_MAX_QD);
		return ZNP_EXIT_USAGE;
	}
	return 0;
}

int znp_cli_fail(const struct znp_cli *cli, const char *subject,
		 const char *what, int ret)
{
	znp_cli_err_ret(cli, ret, subject, "%s: %s", what, znp_strerror(ret));
	return znp_cli_exit(cli, ret);
}

int znp_cli_open_dev(const struct znp_cli *cli, const struct znp_opts *o,
		     unsigned int flags, bool need_zoned, struct znp_dev **out)
{
	const char *path = o->args[0];
	const char *why = NULL;
	char node[PATH_MAX];
	struct znp_dev *dev;
	int ret;

	/* `/dev/nvme0 -n 1` as nvme-cli users type it: namespace 1's ng node */
	ret = znp_dev_resolve(&cli->env, path, znp_opt_given(o, ZNP_O_NSID) ? o->nsid : 0,
			      node, sizeof(node), &why);
	if (!ret)
		ret = znp_dev_open(&cli->env, node,
				   flags & ~(ZNP_CLI_DEFER_CAP | ZNP_CLI_FULL_CAP), &dev, &why);
	if (ret) {
		znp_cli_err_ret(cli, ret, path, "%s", why ? why : znp_strerror(ret));
		return znp_cli_exit(cli, ret);
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
	ret = znp_dev_probe_flags(dev, (flags & ZNP_CLI_FULL_CAP) ? ZNP_PROBE_FULL_CAP :
				  (flags & ZNP_CLI_DEFER_CAP) ? ZNP_PROBE_DEFER_CAP : 0);
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
	*out = dev;
	return 0;

out_close:
	znp_dev_close(dev);
	return ret;
}

int znp_cli_start_lba(const struct znp_cli *cli, const struct znp_opts *o,
		      const struct znp_dev *dev, uint64_t *slba)
{
	if (!znp_opt_given(o, ZNP_O_ZONE)) {
		*slba = o->start_lba;
		return 0;
	}
	if (o->zone >= dev->geom.nr_zones) {
		znp_cli_err(cli, o->args[0], "zone %" PRIu64 " is past the last zone (the device "
			    "has %" PRIu64 ", numbered from 0)", o->zone, dev->geom.nr_zones);
		return ZNP_EXIT_USAGE;
	}
	*slba = znp_zone_start(&dev->geom, o->zone);
	return 0;
}

int znp_cli_open_report(const struct znp_cli *cli, const struct znp_opts *o,
			struct znp_dev **out, uint64_t *slba)
{
	const char *path = o->args[0];
	struct znp_dev *dev;
	int ret;

	ret = znp_cli_open_dev(cli, o, ZNP_CLI_DEFER_CAP, true, &dev);
	if (ret)
		return ret;
	ret = znp_cli_start_lba(cli, o, dev, slba);
	if (ret) {
		znp_dev_close(dev);
		return ret;
	}
	if (*slba >= dev->geom.nlbas) {
		znp_cli_err(cli, path, "start LBA 0x%" PRIx64 " is past the end (0x%" PRIx64
			    " LBAs)", *slba, dev->geom.nlbas);
		znp_dev_close(dev);
		return ZNP_EXIT_USAGE;
	}
	*out = dev;
	return 0;
}

/*
 * Test hook (meson -Dtest_hooks=true only): ZNP_TEST_CLAIM_HOLD=FILE makes
 * a command that claimed its namespace create FILE and wait (60 s at most)
 * until the test removes it, so that the test can try what the claim must
 * keep out while the command holds it.
 */
static void claim_hook(void)
{
#ifdef ZNP_TEST_HOOKS
	const char *f = getenv("ZNP_TEST_CLAIM_HOLD");
	int fd;

	if (!f || !*f)
		return;
	fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	close(fd);
	for (int i = 0; i < 6000 && !access(f, F_OK); i++)
		usleep(10000);
#endif
}

int znp_cli_claim(const struct znp_cli *cli, const char *path, const char *what,
		  const char *blkzone, int *claim)
{
	struct znp_map_found f;
	struct znp_map_err e = { 0 };
	struct znp_map_ctx c;
	char node[ZNP_DM_NAME_MAX + 16], instead[sizeof(node) + 64];
	const char *name;
	int ret;

	znp_cli_map_ctx(cli, NULL, &c);
	ret = znp_map_claim(&c, path, &f, claim, &e);
	if (ret < 0)	/* held, or the records cannot be read: not knowing is a no */
		return znp_cli_map_fail(cli, path, &e);
	if (!ret) {
		claim_hook();
		return 0;
	}
	name = znp_map_found_name(&f);
	znp_map_found_device(&f, node, sizeof(node));
	if (blkzone)
		snprintf(instead, sizeof(instead), "use %s %s, or unmap %s first", blkzone, node,
			 name);
	else
		snprintf(instead, sizeof(instead), "unmap %s first", name);
	znp_cli_err(cli, path, "served by %s mapping %s as %s: %s refused, even with --force; %s",
		    f.route->name, name, node, what, instead);
	return ZNP_EXIT_REFUSED;
}

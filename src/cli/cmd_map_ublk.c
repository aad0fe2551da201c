// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --ublk: serve an npo2 zoned namespace as a po2 zoned ublk block device
 * (src/ublk/), for kernels that hide npo2 namespaces. Refuses what dm-po2zone
 * would refuse (po2, conventional, capacity < size, varying capacities, a
 * small last zone) and a namespace whose block device the kernel shows (plain
 * `map` is the way there) unless --force-ublk.
 *
 * --foreground serves in this process until SIGTERM or SIGINT; it prints
 * the block device's path on stdout once it is live.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"
#include "ublk.h"

static struct znp_ublk_server *volatile sig_server;

static void on_stop_signal(int sig)
{
	struct znp_ublk_server *s = sig_server;

	(void)sig;
	if (s)
		znp_ublk_server_stop(s);
}

struct ublk_log_ctx {
	const struct znp_cli *cli;
	bool verbose;
};

/* The server's log on stderr: "<prog>: <message>" (debug lines with -v only). */
__attribute__((format(printf, 3, 4)))
static void ublk_log(void *arg, int prio, const char *fmt, ...)
{
	const struct ublk_log_ctx *l = arg;
	char line[600];
	va_list ap;

	if (prio >= LOG_DEBUG && !l->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(l->cli->err, "%s: %s\n", l->cli->prog, line);
	fflush(l->cli->err);
}

static void on_ready(void *arg, int dev_id)
{
	const struct znp_cli *cli = arg;

	fprintf(cli->out, "/dev/ublkb%d\n", dev_id);
	fflush(cli->out);
}

/* User-facing refusals, from the same verdict `check` gives. */
static int refuse(const struct znp_cli *cli, const struct znp_opts *o, const struct znp_dev *dev)
{
	const char *path = o->args[0];
	struct znp_check_result r;
	int ret;

	ret = znp_check(&dev->ns, &dev->geom, dev->is_zoned, &r);
	if (ret)
		return znp_cli_fail(cli, path, "cannot decide", ret);
	if (r.reasons & ZNP_R_NOT_ZONED) {
		znp_cli_err(cli, path, "not a zoned namespace: nothing to map");
		return ZNP_EXIT_UNSUITABLE;
	}
	if (r.reasons & ZNP_R_ZONE_SIZE_PO2) {
		znp_cli_err(cli, path, "zone size 0x%" PRIx64 " LBAs is a power of 2: nothing to "
			    "do (no mapping needed)", dev->geom.zone_size);
		return ZNP_EXIT_UNSUITABLE;
	}
	if (r.reasons & ZNP_R_CAP_VARIES) {
		znp_cli_err(cli, path, "%s", znp_verdict_text(ZNP_V_CAP_VARIES));
		return ZNP_EXIT_UNSUITABLE;
	}
	if (r.reasons & ZNP_R_CAP_LT_SIZE) {
		znp_cli_err(cli, path, "zone capacity 0x%" PRIx64 " < zone size 0x%" PRIx64
			    " LBAs: the po2 layout needs capacity == size",
			    dev->geom.zone_cap, dev->geom.zone_size);
		return ZNP_EXIT_UNSUITABLE;
	}
	if (r.reasons & ZNP_R_SMALL_LAST_ZONE) {
		znp_cli_err(cli, path, "the last zone is smaller than the others: only whole "
			    "zones map");
		return ZNP_EXIT_UNSUITABLE;
	}
	if (!(r.reasons & ZNP_R_BLK_HIDDEN) && !o->force_ublk) {
		znp_cli_err(cli, path, "the kernel shows this namespace's block device (%s): "
			    "use plain `map` (dm-po2zone); --force-ublk serves it through ublk "
			    "anyway", dev->ns.blk_name[0] ? dev->ns.blk_name : "visible");
		return ZNP_EXIT_REFUSED;
	}
	return 0;
}

static int check_args(const struct znp_cli *cli, const struct znp_opts *o)
{
	const char *subject = o->nargs ? o->args[0] : "map";

	if (o->restore || o->persist || o->name || o->dry_run) {
		znp_cli_err(cli, subject, "--ublk does not take --restore, --persist, --name or "
			    "--dry-run here");
		return ZNP_EXIT_USAGE;
	}
	if (!o->nargs) {
		znp_cli_err(cli, "map", "missing argument <device>: the namespace's /dev/ngXnY");
		return ZNP_EXIT_USAGE;
	}
	if (!o->foreground) {
		znp_cli_err(cli, subject, "--ublk without --foreground is not available in this "
			    "build: add --foreground");
		return ZNP_EXIT_USAGE;
	}
	if (znp_opt_given(o, ZNP_O_QUEUES) && (!o->queues || o->queues > ZNP_UBLK_MAX_QUEUES)) {
		znp_cli_err(cli, subject, "--queues must be 1 to %d", ZNP_UBLK_MAX_QUEUES);
		return ZNP_EXIT_USAGE;
	}
	if (znp_opt_given(o, ZNP_O_QUEUE_DEPTH) &&
	    (!o->queue_depth || o->queue_depth > ZNP_UBLK_MAX_DEPTH)) {
		znp_cli_err(cli, subject, "--queue-depth must be 1 to %d with --ublk",
			    ZNP_UBLK_MAX_DEPTH);
		return ZNP_EXIT_USAGE;
	}
	if (znp_opt_given(o, ZNP_O_UBLK_ID) && o->ublk_id > INT32_MAX - 1) {
		znp_cli_err(cli, subject, "--ublk-id %" PRIu32 " out of range", o->ublk_id);
		return ZNP_EXIT_USAGE;
	}
	if (o->recover && !znp_opt_given(o, ZNP_O_UBLK_ID)) {
		znp_cli_err(cli, subject, "--recover needs --ublk-id: the device to take back");
		return ZNP_EXIT_USAGE;
	}
	return 0;
}

static int probe_error(const struct znp_cli *cli, const char *path, int ret, uint64_t features)
{
	switch (ret) {
	case -ENOENT:
		znp_cli_err(cli, path, "no /dev/ublk-control: load ublk_drv (modprobe ublk_drv; "
			    "CONFIG_BLK_DEV_UBLK)");
		return ZNP_EXIT_UNSUPPORTED;
	case -EOPNOTSUPP:
		znp_cli_err(cli, path, "ublk_drv lacks zoned devices, user copy or user recovery "
			    "(features 0x%" PRIx64 "; Linux >= 6.6 needed)", features);
		return ZNP_EXIT_UNSUPPORTED;
	case -EACCES:
	case -EPERM:
		znp_cli_err(cli, path, "/dev/ublk-control: %s (zoned ublk devices need "
			    "CAP_SYS_ADMIN)", strerror(-ret));
		return ZNP_EXIT_REFUSED;
	default:
		return znp_cli_fail(cli, path, "cannot query ublk_drv", ret);
	}
}

int znp_cmd_map_ublk(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct ublk_log_ctx lc = { .cli = cli, .verbose = o->verbose };
	struct znp_ublk_opts uo = {
		.dev_id = znp_opt_given(o, ZNP_O_UBLK_ID) ? (int)o->ublk_id : -1,
		.nr_queues = o->queues,
		.queue_depth = o->queue_depth,
		.log = ublk_log,
		.log_arg = &lc,
	};
	struct sigaction sa, old_int, old_term;
	struct znp_ublk_server *s = NULL;
	const char *path;
	uint64_t features = 0;
	struct znp_dev *dev;
	int ret;

	(void)p;
	ret = check_args(cli, o);
	if (ret)
		return ret;
	path = o->args[0];
	ret = znp_cli_open_dev(cli, o, ZNP_OPEN_WRITE | ZNP_CLI_FULL_CAP, false, &dev);
	if (ret)
		return ret;
	if (dev->kind != ZNP_DEV_NVME_CHAR) {
		znp_cli_err(cli, path, "not an NVMe generic char node: give the namespace's "
			    "/dev/ngXnY (the ublk server uses io_uring passthrough on it)");
		ret = ZNP_EXIT_UNSUITABLE;
		goto out;
	}
	ret = refuse(cli, o, dev);
	if (ret)
		goto out;
	ret = znp_ublk_probe(&features);
	if (ret) {
		ret = probe_error(cli, path, ret, features);
		goto out;
	}
	if (o->recover)
		ret = znp_ublk_server_recover(dev, (int)o->ublk_id, &uo, &s);
	else
		ret = znp_ublk_server_create(dev, &uo, &s);
	if (ret) {
		/* the server logged the reason; the exit code follows the error */
		znp_cli_err(cli, path, "cannot %s the ublk device: %s",
			    o->recover ? "recover" : "create", znp_strerror(ret));
		ret = ret == -EBUSY ? ZNP_EXIT_REFUSED : znp_exit_from_ret(ret);
		goto out;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sig_server = s;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	ret = znp_ublk_server_run(s, on_ready, (void *)cli);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sig_server = NULL;
	if (ret) {
		znp_cli_err(cli, path, "ublk server failed: %s", znp_strerror(ret));
		ret = znp_exit_from_ret(ret);
	}
	znp_ublk_server_free(s);
out:
	znp_dev_close(dev);
	return ret;
}

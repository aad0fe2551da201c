// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk mappings in status and map --restore: the rows, the results,
 * and the processes restore starts (systemd's unit, or this program's
 * `map --ublk`). Finding, stopping and removing them is src/map/'s.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"

void znp_cli_ublk_status_row(struct znp_print *p, const struct znp_map_ublk_found *f)
{
	struct znp_ublk_status_view u = { .rec = &f->rec, .device = f->device,
		.health = znp_ublk_health_name(f->health), .dev_state = f->dev_state };
	struct znp_status_row row = { .ublk = &u, .ident = f->rec.ident, .backing = f->rec.ng,
		.persisted = f->persisted };

	p->ops->status_row(p, &row);
}

/* ---- map --restore of a ublk entry --------------------------------------- */

static int run_wait(char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		execv(argv[0], argv);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -ECHILD;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int znp_cli_ublk_restore(const struct znp_cli *cli, const struct znp_opts *o, const char *name,
			 const char *ng, const char **result, char *err, size_t size)
{
	char unit[4 * ZNP_DM_NAME_MAX + 32], inst[4 * ZNP_DM_NAME_MAX], self[PATH_MAX];
	struct znp_map_err e = { 0 };
	struct znp_map_ctx c;
	struct stat st;
	int ret;
	ssize_t n;

	*result = "failed";
	znp_cli_map_ctx(cli, o, &c);
	ret = znp_map_ublk_served(&c, ng, &e);
	if (ret < 0) {
		snprintf(err, size, "%s", e.why);
		return ZNP_EXIT_FAILED;
	}
	if (ret) {
		*result = "already-mapped";
		return ZNP_EXIT_OK;
	}
	if (o->dry_run) {
		*result = "would-map";
		return ZNP_EXIT_OK;
	}
	/* under systemd: its unit serves (and restarts) the mapping */
	if (!getenv("ZNP_RUN_DIR") && !stat("/run/systemd/system", &st) && S_ISDIR(st.st_mode)) {
		char *const argv[] = { "systemctl", "start", "--no-block", unit, NULL };

		/* "po2-a" is zns-npo2-ublk@po2\x2da.service: the unit's %I gives it back */
		if (znp_unit_escape(name, inst, sizeof(inst))) {
			snprintf(err, size, "cannot make a unit name of mapping name %s", name);
			return ZNP_EXIT_FAILED;
		}
		snprintf(unit, sizeof(unit), "zns-npo2-ublk@%s.service", inst);
		ret = run_wait(argv);
		if (!ret) {
			*result = "started";
			return ZNP_EXIT_OK;
		}
		snprintf(err, size, "systemctl start %s failed (exit %d)", unit, ret);
		return ZNP_EXIT_FAILED;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		snprintf(err, size, "cannot find this program: %s", znp_strerror(-errno));
		return ZNP_EXIT_FAILED;
	}
	self[n] = '\0';
	{
		char *const argv[] = { self, "map", "--ublk", (char *)ng, "--name",
				       (char *)name, "--config", (char *)znp_cli_map_config(o),
				       NULL };

		ret = run_wait(argv);
	}
	if (!ret) {
		*result = "mapped";
		return ZNP_EXIT_OK;
	}
	snprintf(err, size, "map --ublk %s exited with %d (see the system log)", ng, ret);
	return ret > 0 && ret < 128 ? ret : ZNP_EXIT_FAILED;
}

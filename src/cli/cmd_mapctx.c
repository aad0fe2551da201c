// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the mapping commands (map, map --ublk, map --restore, unmap, status)
 * share: the library's context from the command line and the environment,
 * and the one map from a refusal's kind to the exit code. It calls no
 * command: every mapping command calls down to it.
 *
 * Test hook (-Dtest_hooks=true; documented in tests/vm/patched-map/README.md):
 * ZNP_TEST_MAP_KILL_AT=N makes `map` SIGKILL itself right before creation
 * step N (1 create, 2 load, 3 resume, 4 rename: enum znp_dm_step; 5 record
 * in the mapping file), to prove that no half-made mapping survives.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "cmd_map.h"

const char *znp_cli_map_config(const struct znp_opts *o)
{
	return o && o->config ? o->config : ZNP_DMCONF_PATH;
}

/* export --persist's directory: $ZNP_CONF_DIR (tests), else ZNP_EXPORT_CONF_DIR */
static const char *conf_dir(void)
{
	const char *d = getenv("ZNP_CONF_DIR");

	return d && *d ? d : ZNP_EXPORT_CONF_DIR;
}

const char *znp_cli_run_dir(void)
{
	const char *d = getenv("ZNP_RUN_DIR");

	return d && *d ? d : ZNP_RUN_DIR;
}

static int kill_at(void)
{
#ifdef ZNP_TEST_HOOKS
	const char *v = getenv("ZNP_TEST_MAP_KILL_AT");

	return v ? atoi(v) : 0;
#else
	return 0;
#endif
}

void znp_cli_map_ctx(const struct znp_cli *cli, const struct znp_opts *o, struct znp_map_ctx *c)
{
	*c = (struct znp_map_ctx){
		.env = &cli->env, .config = znp_cli_map_config(o), .run_dir = znp_cli_run_dir(),
		.conf_dir = conf_dir(),
	};
	if (!o)
		return;
	c->name = o->name;
	c->dry_run = o->dry_run;
	c->persist = o->persist;
	c->force = o->force;
	c->force_ublk = o->force_ublk;
	c->kill_at = kill_at();
}

int znp_cli_map_exit(const struct znp_cli *cli, const struct znp_map_err *e)
{
	static const int exits[] = {
		[ZNP_MAP_OK] = ZNP_EXIT_OK,
		[ZNP_MAP_FAILED] = ZNP_EXIT_FAILED,
		[ZNP_MAP_USAGE] = ZNP_EXIT_USAGE,
		[ZNP_MAP_UNSUITABLE] = ZNP_EXIT_UNSUITABLE,
		[ZNP_MAP_REFUSED] = ZNP_EXIT_REFUSED,
		[ZNP_MAP_UNSUPPORTED] = ZNP_EXIT_UNSUPPORTED,
	};

	if (e->kind == ZNP_MAP_ERRNO)
		return znp_cli_exit(cli, e->ret);
	return (unsigned int)e->kind < ZNP_ARRAY_SIZE(exits) ? exits[e->kind] : ZNP_EXIT_FAILED;
}

int znp_cli_map_fail(const struct znp_cli *cli, const char *subject, const struct znp_map_err *e)
{
	znp_cli_err(cli, e->subject ? e->subject : subject, "%s", e->why);
	return znp_cli_map_exit(cli, e);
}

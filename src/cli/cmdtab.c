// SPDX-License-Identifier: GPL-2.0-or-later
/* The command/option table: options, per-command lists, rules, lookups. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"
#include "exit.h"

#define OPT(field) offsetof(struct znp_opts, field)

#define STATE_VALUES "empty|implicit-open|explicit-open|closed|read-only|full|offline"

const struct znp_opt_desc znp_opt_descs[ZNP_O_NR] = {
	[ZNP_O_OUTPUT_FORMAT] = { ZNP_O_OUTPUT_FORMAT, "output-format", 'o', NULL, "FMT",
		"output format: normal or json", "normal|json", ZNP_OK_FMT, OPT(fmt) },
	[ZNP_O_VERBOSE] = { ZNP_O_VERBOSE, "verbose", 'v', NULL, NULL,
		"more detail", NULL, ZNP_OK_FLAG, OPT(verbose) },
	[ZNP_O_HUMAN] = { ZNP_O_HUMAN, "human-readable", 'H', NULL, NULL,
		"sizes in bytes with units, LBAs in decimal", NULL, ZNP_OK_FLAG, OPT(human) },
	[ZNP_O_HELP] = { ZNP_O_HELP, "help", 'h', NULL, NULL,
		"show this help", NULL, ZNP_OK_FLAG, OPT(help) },
	[ZNP_O_NSID] = { ZNP_O_NSID, "namespace-id", 'n', NULL, "NSID",
		"refuse unless the device is namespace NSID (with a controller node: select it)", NULL, ZNP_OK_U32, OPT(nsid) },
	[ZNP_O_START_LBA] = { ZNP_O_START_LBA, "start-lba", 's', NULL, "LBA",
		"first zone: report and zonemap take any LBA in it, zone operations its start LBA",
		NULL, ZNP_OK_U64, OPT(start_lba) },
	[ZNP_O_COUNT] = { ZNP_O_COUNT, "count", 'c', NULL, "N",
		"number of zones (default: report and zonemap all, zone operations 1)",
		NULL, ZNP_OK_U64, OPT(count) },
	[ZNP_O_STATE] = { ZNP_O_STATE, "state", 'S', NULL, "STATE",
		"report only zones in STATE (several: a comma list, or -S again)", STATE_VALUES, ZNP_OK_STATE, OPT(state) },
	[ZNP_O_ALL] = { ZNP_O_ALL, "all", 'a', "select-all", NULL,
		"all zones, with one select-all command", NULL, ZNP_OK_FLAG, OPT(all) },
	[ZNP_O_FORCE] = { ZNP_O_FORCE, "force", 'f', NULL, NULL,
		"do not ask for confirmation (reset, finish, offline and discard ask on a terminal)",
		NULL, ZNP_OK_FLAG, OPT(force) },
	[ZNP_O_DRY_RUN] = { ZNP_O_DRY_RUN, "dry-run", 0, NULL, NULL,
		"print the commands that would be sent; send nothing", NULL, ZNP_OK_FLAG,
		OPT(dry_run) },
	[ZNP_O_QUEUE_DEPTH] = { ZNP_O_QUEUE_DEPTH, "queue-depth", 'q', NULL, "N",
		"commands in flight", NULL, ZNP_OK_U32, OPT(queue_depth) },
	[ZNP_O_NAME] = { ZNP_O_NAME, "name", 0, NULL, "NAME",
		"name of the po2 mapping", NULL, ZNP_OK_STRING, OPT(name) },
	[ZNP_O_OFFSET] = { ZNP_O_OFFSET, "offset", 0, NULL, "OFFSET",
		"start of the range in bytes (LBAs with --lba); default 0", NULL, ZNP_OK_U64,
		OPT(offset) },
	[ZNP_O_LENGTH] = { ZNP_O_LENGTH, "length", 'l', NULL, "LENGTH",
		"length of the range (default: to the end of the device)", NULL, ZNP_OK_U64,
		OPT(length) },
	[ZNP_O_RANGES] = { ZNP_O_RANGES, "ranges", 'r', NULL, "FILE",
		"ranges \"OFFSET LENGTH\", one per line, from FILE ('-': stdin)", NULL,
		ZNP_OK_STRING, OPT(ranges) },
	[ZNP_O_LBA] = { ZNP_O_LBA, "lba", 'L', NULL, NULL,
		"offsets and lengths are in logical blocks, not bytes", NULL, ZNP_OK_FLAG,
		OPT(lba) },
	[ZNP_O_PERSIST] = { ZNP_O_PERSIST, "persist", 'p', NULL, NULL,
		"record the mapping so that it is restored at boot", NULL, ZNP_OK_FLAG,
		OPT(persist) },
	[ZNP_O_RESTORE] = { ZNP_O_RESTORE, "restore", 0, NULL, NULL,
		"map every namespace recorded with --persist that is present", NULL,
		ZNP_OK_FLAG, OPT(restore) },
	[ZNP_O_CONFIG] = { ZNP_O_CONFIG, "config", 0, NULL, "FILE",
		"mapping file (default /etc/zns-npo2/mappings.conf)", NULL, ZNP_OK_STRING,
		OPT(config) },
	[ZNP_O_UBLK] = { ZNP_O_UBLK, "ublk", 0, NULL, NULL,
		"map through a ublk server (stock kernels) instead of dm-po2zone", NULL,
		ZNP_OK_FLAG, OPT(ublk) },
	[ZNP_O_FOREGROUND] = { ZNP_O_FOREGROUND, "foreground", 0, NULL, NULL,
		"with --ublk: serve in this process until SIGTERM/SIGINT instead of a daemon "
		"(systemd)", NULL, ZNP_OK_FLAG, OPT(foreground) },
	[ZNP_O_QUEUES] = { ZNP_O_QUEUES, "queues", 0, NULL, "N",
		"with --ublk: ublk queues, one thread and io_uring each (default one per CPU)", NULL,
		ZNP_OK_U32, OPT(queues) },
	[ZNP_O_UBLK_ID] = { ZNP_O_UBLK_ID, "ublk-id", 0, NULL, "ID",
		"with --ublk: ublk device id (default: the kernel picks one)", NULL,
		ZNP_OK_U32, OPT(ublk_id) },
	[ZNP_O_RECOVER] = { ZNP_O_RECOVER, "recover", 0, NULL, NULL,
		"with --ublk --ublk-id: take back that device after its server died "
		"(without it, a recorded quiesced device is taken back by itself)", NULL,
		ZNP_OK_FLAG, OPT(recover) },
	[ZNP_O_FORCE_UBLK] = { ZNP_O_FORCE_UBLK, "force-ublk", 0, NULL, NULL,
		"with --ublk: serve even a namespace whose block device the kernel shows "
		"(testing; use plain map there)", NULL, ZNP_OK_FLAG, OPT(force_ublk) },
	[ZNP_O_WIDTH] = { ZNP_O_WIDTH, "width", 'w', NULL, "COLS",
		"picture width in columns (default: COLUMNS, the terminal, 80)", NULL,
		ZNP_OK_U32, OPT(width) },
	[ZNP_O_COLOR] = { ZNP_O_COLOR, "color", 0, NULL, "WHEN",
		"colour: auto (a terminal without NO_COLOR), always or never",
		"auto|always|never", ZNP_OK_STRING, OPT(color) },
	[ZNP_O_SVG] = { ZNP_O_SVG, "svg", 0, NULL, "FILE",
		"write the picture as SVG to FILE ('-': stdout)", NULL, ZNP_OK_STRING,
		OPT(svg) },
	[ZNP_O_PADDING] = { ZNP_O_PADDING, "padding", 'P', NULL, NULL,
		"show each zone's padding in the power-of-2 mapping on top", NULL,
		ZNP_OK_FLAG, OPT(padding) },
	[ZNP_O_ZONE] = { ZNP_O_ZONE, "zone", 'z', NULL, "N",
		"first zone by its number (0 is the first), instead of --start-lba", NULL,
		ZNP_OK_U64, OPT(zone) },
	[ZNP_O_SUMMARY] = { ZNP_O_SUMMARY, "summary", 0, NULL, NULL,
		"count the zones by state, open and active ones against the device's limits",
		NULL, ZNP_OK_FLAG, OPT(summary) },
	[ZNP_O_RAW] = { ZNP_O_RAW, "raw", 0, NULL, NULL,
		"print the zone descriptors as the drive sent them, without validation", NULL,
		ZNP_OK_FLAG, OPT(raw) },
	[ZNP_O_NQN] = { ZNP_O_NQN, "nqn", 0, NULL, "NQN",
		"NVMe target subsystem to create for the mapping (nqn.YYYY-MM.domain:name)", NULL,
		ZNP_OK_STRING, OPT(nqn) },
	[ZNP_O_TRANSPORT] = { ZNP_O_TRANSPORT, "transport", 0, NULL, "TRTYPE",
		"NVMe target transport (default tcp)", "tcp|rdma|loop", ZNP_OK_STRING,
		OPT(transport) },
	[ZNP_O_TRADDR] = { ZNP_O_TRADDR, "traddr", 0, NULL, "ADDR",
		"address the target port listens on (IPv4 or IPv6)", NULL, ZNP_OK_STRING,
		OPT(traddr) },
	[ZNP_O_TRSVCID] = { ZNP_O_TRSVCID, "trsvcid", 0, NULL, "PORT",
		"service of the target port (default 4420)", NULL, ZNP_OK_STRING, OPT(trsvcid) },
	[ZNP_O_HOSTNQN] = { ZNP_O_HOSTNQN, "hostnqn", 0, NULL, "NQN",
		"the host allowed to connect", NULL, ZNP_OK_STRING, OPT(hostnqn) },
	[ZNP_O_ALLOW_ANY_HOST] = { ZNP_O_ALLOW_ANY_HOST, "allow-any-host", 0, NULL, NULL,
		"let every host that reaches the port connect", NULL, ZNP_OK_FLAG,
		OPT(allow_any_host) },
	[ZNP_O_REMOVE] = { ZNP_O_REMOVE, "remove", 0, NULL, NULL,
		"remove the export of the mapping (its subsystem; ports stay)", NULL, ZNP_OK_FLAG,
		OPT(remove) },
};

/* every list but zonemap's, help's and version's starts with -o, -v and -h */
static const enum znp_opt_id list_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_HUMAN, ZNP_O_NR
};
static const enum znp_opt_id report_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_HUMAN, ZNP_O_NSID,
	ZNP_O_START_LBA, ZNP_O_ZONE, ZNP_O_COUNT, ZNP_O_STATE, ZNP_O_RAW, ZNP_O_SUMMARY,
	ZNP_O_NR
};
static const enum znp_opt_id zonemap_opts[] = {
	ZNP_O_HELP, ZNP_O_NSID, ZNP_O_START_LBA, ZNP_O_ZONE, ZNP_O_COUNT, ZNP_O_WIDTH, ZNP_O_COLOR,
	ZNP_O_SVG, ZNP_O_PADDING, ZNP_O_NR
};
static const enum znp_opt_id check_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_HUMAN, ZNP_O_NSID, ZNP_O_NR
};
static const enum znp_opt_id zone_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_NSID, ZNP_O_START_LBA,
	ZNP_O_ZONE, ZNP_O_COUNT, ZNP_O_ALL, ZNP_O_FORCE, ZNP_O_DRY_RUN, ZNP_O_QUEUE_DEPTH,
	ZNP_O_NR
};
static const enum znp_opt_id help_opts[] = { ZNP_O_HELP, ZNP_O_NR };
static const enum znp_opt_id version_opts[] = { ZNP_O_OUTPUT_FORMAT, ZNP_O_HELP, ZNP_O_NR };
static const enum znp_opt_id discard_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_OFFSET, ZNP_O_LENGTH,
	ZNP_O_RANGES, ZNP_O_LBA, ZNP_O_FORCE, ZNP_O_DRY_RUN, ZNP_O_QUEUE_DEPTH, ZNP_O_NR
};
static const enum znp_opt_id map_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_NAME, ZNP_O_PERSIST,
	ZNP_O_RESTORE, ZNP_O_CONFIG, ZNP_O_DRY_RUN, ZNP_O_UBLK, ZNP_O_FOREGROUND,
	ZNP_O_QUEUES, ZNP_O_QUEUE_DEPTH, ZNP_O_UBLK_ID, ZNP_O_RECOVER, ZNP_O_FORCE_UBLK,
	ZNP_O_NR
};
static const enum znp_opt_id unmap_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_FORCE, ZNP_O_CONFIG,
	ZNP_O_DRY_RUN, ZNP_O_NR
};
static const enum znp_opt_id export_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_NQN, ZNP_O_TRANSPORT,
	ZNP_O_TRADDR, ZNP_O_TRSVCID, ZNP_O_HOSTNQN, ZNP_O_ALLOW_ANY_HOST, ZNP_O_REMOVE,
	ZNP_O_PERSIST, ZNP_O_NR
};
static const enum znp_opt_id status_opts[] = {
	ZNP_O_OUTPUT_FORMAT, ZNP_O_VERBOSE, ZNP_O_HELP, ZNP_O_CONFIG, ZNP_O_NR
};

#define BIT(id) ZNP_OPT_BIT(ZNP_O_##id)

/* report, zonemap: the first zone by its LBA or by its number */
static const struct znp_opt_rule walk_rules[] = {
	{ .when = BIT(ZONE), .excludes = BIT(START_LBA) },
	{ 0 }
};
static const struct znp_opt_rule report_rules[] = {
	{ .when = BIT(ZONE), .excludes = BIT(START_LBA) },
	/* counts of states need states that were checked */
	{ .when = BIT(SUMMARY), .excludes = BIT(RAW) },
	{ 0 }
};
/* open close finish reset offline: a zone range, or all zones */
static const struct znp_opt_rule zone_rules[] = {
	{ .when = BIT(ALL), .excludes = BIT(START_LBA) | BIT(ZONE) | BIT(COUNT) },
	{ .when = BIT(ZONE), .excludes = BIT(START_LBA) },
	{ .needs_one = BIT(START_LBA) | BIT(ZONE) | BIT(ALL) },
	{ 0 }
};
static const struct znp_opt_rule discard_rules[] = {
	{ .when = BIT(RANGES), .excludes = BIT(OFFSET) | BIT(LENGTH) },
	{ 0 }
};
static const struct znp_opt_rule map_rules[] = {
	{ .when = BIT(FOREGROUND) | BIT(QUEUES) | BIT(QUEUE_DEPTH) | BIT(UBLK_ID) |
		  BIT(RECOVER) | BIT(FORCE_UBLK), .needs = BIT(UBLK) },
	{ .when = BIT(RESTORE), .excludes = BIT(NAME) | BIT(PERSIST) | BIT(UBLK),
	  .no_args = true, .hint = "it restores every recorded mapping, ublk ones too" },
	{ .when = BIT(RECOVER), .needs = BIT(UBLK_ID), .hint = "the device to take back" },
	/* several devices: one concatenated dm mapping (cmd_mapcat.c) */
	{ .min_nargs = 2, .excludes = BIT(UBLK),
	  .why = "--ublk serves one namespace: map several devices without it" },
	{ .min_nargs = 2, .excludes = BIT(PERSIST),
	  .why = "--persist records one device per mapping: map several devices without it" },
	{ .min_nargs = 2, .needs = BIT(NAME), .why = "mapping several devices needs --name" },
	{ 0 }
};

/* export NAME: where, and who may connect; export --remove NAME: nothing else */
static const struct znp_opt_rule export_rules[] = {
	{ .when = BIT(REMOVE), .excludes = BIT(NQN) | BIT(TRANSPORT) | BIT(TRADDR) |
		  BIT(TRSVCID) | BIT(HOSTNQN) | BIT(ALLOW_ANY_HOST),
	  .hint = "the export is found by its mapping" },
	{ .when = BIT(HOSTNQN), .excludes = BIT(ALLOW_ANY_HOST) },
	{ .when = BIT(NQN), .needs_one = BIT(HOSTNQN) | BIT(ALLOW_ANY_HOST),
	  .hint = "who may connect" },
	{ .when = 0, .needs_one = BIT(REMOVE) | BIT(NQN),
	  .hint = "the subsystem the mapping is exported as" },
	{ 0 }
};

/*
 * What a library error means in one command, where it differs from
 * znp_exit_from_ret(). The man pages' EXIT STATUS sections say the same.
 */
static const struct znp_exit_override map_exits[] = {
	/* a geometry the mapping cannot carry (ublk limits), or that the
	 * kernel refused for it (a dm table, ublk parameters, a recovery of
	 * a device of another shape) */
	{ -E2BIG, ZNP_EXIT_UNSUITABLE },
	{ -EINVAL, ZNP_EXIT_UNSUITABLE },
	{ 0, 0 }
};

/* unmap never asks: --force removes what is in use */
static const struct znp_opt_help unmap_help[] = {
	{ ZNP_O_FORCE, "remove a mapping in use: dm at its last close, ublk at once (its users "
		       "get I/O errors)" },
	{ ZNP_O_NR, NULL }
};

/* export --persist: the export unit's file, not the mapping file */
static const struct znp_opt_help export_help[] = {
	{ ZNP_O_PERSIST, "record the export for zns-npo2-export@NAME at boot "
			 "(/etc/zns-npo2/export-NAME.conf); with --remove: forget it" },
	{ ZNP_O_NR, NULL }
};

/* open and close never ask: -f is accepted, so that one script line fits every action */
static const struct znp_opt_help open_close_help[] = {
	{ ZNP_O_FORCE, "accepted and ignored: open and close never ask" },
	{ ZNP_O_NR, NULL }
};

#define ZONE_CMD(n, h, oh) { .name = #n, .help = h, .args = "<device>", .min_args = 1, \
	.max_args = 1, .fn = znp_cmd_##n, .opts = zone_opts, .rules = zone_rules, \
	.zoned_args = true, .opt_help = oh }

const struct znp_cmd_desc znp_cmds[] = {
	{ .name = "list",
	  .help = "list NVMe ZNS namespaces, including those whose block device is hidden",
	  .args = "", .fn = znp_cmd_list, .opts = list_opts },
	{ .name = "report",
	  .help = "report zones: start, capacity, write pointer, state, type, attributes",
	  .args = "<device>", .min_args = 1, .max_args = 1, .fn = znp_cmd_report,
	  .opts = report_opts, .rules = report_rules, .zoned_args = true },
	{ .name = "zonemap",
	  .help = "draw the zones: state and fill of each zone, as text or SVG",
	  .args = "<device>", .min_args = 1, .max_args = 1, .fn = znp_cmd_zonemap,
	  .opts = zonemap_opts, .rules = walk_rules, .zoned_args = true },
	{ .name = "check",
	  .help = "tell whether a namespace can be mapped to power-of-2 zones",
	  .args = "<device>", .min_args = 1, .max_args = 1, .fn = znp_cmd_check,
	  .opts = check_opts },
	ZONE_CMD(open, "explicitly open zones", open_close_help),
	ZONE_CMD(close, "close zones", open_close_help),
	ZONE_CMD(finish, "finish zones (move the write pointer to the end: no more writes until "
		 "a reset)", NULL),
	ZONE_CMD(reset, "reset zones (discard their data; destructive)", NULL),
	ZONE_CMD(offline, "take zones offline (permanently; destructive)", NULL),
	{ .name = "discard",
	  .help = "discard byte or LBA ranges, many commands in flight; whole zones of zoned "
		  "devices are reset (destructive)",
	  .args = "<device>", .min_args = 1, .max_args = 1, .fn = znp_cmd_discard,
	  .opts = discard_opts, .rules = discard_rules },
	{ .name = "map",
	  .help = "map a npo2 zoned namespace to power-of-2 zones (dm-po2zone, or ublk with "
		  "--ublk)",
	  .args = "[<device>...]", .max_args = ZNP_MAX_ARGS, .fn = znp_cmd_map,
	  .opts = map_opts, .rules = map_rules, .exits = map_exits },
	{ .name = "unmap", .help = "remove a power-of-2 mapping",
	  .args = "<mapping|device>", .min_args = 1, .max_args = 1, .fn = znp_cmd_unmap,
	  .opts = unmap_opts, .opt_help = unmap_help },
	{ .name = "export",
	  .help = "export a power-of-2 mapping through the kernel's NVMe target (NVMe-oF)",
	  .args = "<mapping>", .min_args = 1, .max_args = 1, .fn = znp_cmd_export,
	  .opts = export_opts, .rules = export_rules, .opt_help = export_help },
	{ .name = "status", .help = "show the power-of-2 mappings made by this tool",
	  .args = "[<mapping|device>]", .max_args = 1, .fn = znp_cmd_status,
	  .opts = status_opts },
	{ .name = "help", .help = "show help for a command", .args = "[<command>]",
	  .max_args = 1, .fn = znp_cmd_help, .opts = help_opts },
	{ .name = "version", .help = "show the version", .args = "", .fn = znp_cmd_version,
	  .opts = version_opts },
	{ .name = "__table", .help = "dump the command table as JSON", .args = "",
	  .fn = znp_cmd_table, .opts = help_opts, .hidden = true },
};

const size_t znp_nr_cmds = ZNP_ARRAY_SIZE(znp_cmds);

const struct znp_cmd_desc *znp_cmd_find(const char *name)
{
	for (size_t i = 0; i < znp_nr_cmds; i++)
		if (!strcmp(znp_cmds[i].name, name))
			return &znp_cmds[i];
	return NULL;
}

const struct znp_opt_desc *znp_opt_by_id(enum znp_opt_id id)
{
	return id < ZNP_O_NR ? &znp_opt_descs[id] : NULL;
}

const struct znp_opt_desc *znp_opt_by_long(const char *name)
{
	for (int i = 0; i < ZNP_O_NR; i++) {
		const struct znp_opt_desc *d = &znp_opt_descs[i];

		if (!strcmp(d->long_name, name) || (d->alias && !strcmp(d->alias, name)))
			return d;
	}
	return NULL;
}

bool znp_cmd_has_opt(const struct znp_cmd_desc *c, enum znp_opt_id id)
{
	for (const enum znp_opt_id *p = c->opts; *p != ZNP_O_NR; p++)
		if (*p == id)
			return true;
	return false;
}

const char *znp_cmd_opt_help(const struct znp_cmd_desc *c, const struct znp_opt_desc *d)
{
	for (const struct znp_opt_help *h = c->opt_help; h && h->id != ZNP_O_NR; h++)
		if (h->id == d->id)
			return h->help;
	return d->help;
}

int znp_opt_set(struct znp_opts *o, const struct znp_opt_desc *d,
		const char *arg, const char **why)
{
	void *field = (char *)o + d->offset;
	int ret = 0;

	if (d->kind == ZNP_OK_FLAG) {
		if (arg) {
			*why = "takes no argument";
			return -EINVAL;
		}
		*(bool *)field = true;
		goto given;
	}
	if (!arg) {
		*why = "requires an argument";
		return -EINVAL;
	}
	switch (d->kind) {
	case ZNP_OK_U64:
		ret = znp_parse_u64(arg, field, why);
		break;
	case ZNP_OK_U32:
		ret = znp_parse_u32(arg, field, why);
		break;
	case ZNP_OK_STATE:	/* a list, and -S again adds to it */
		ret = znp_parse_states(arg, &o->states, why);
		if (!ret)
			*(enum znp_state_filter *)field = znp_states_filter(o->states);
		break;
	case ZNP_OK_FMT:
		ret = znp_parse_fmt(arg, field, why);
		break;
	case ZNP_OK_STRING:
		if (!*arg) {
			*why = "empty";
			return -EINVAL;
		}
		*(const char **)field = arg;
		break;
	case ZNP_OK_FLAG:
		break;
	}
	if (ret)
		return ret;
given:
	o->given |= UINT64_C(1) << d->id;
	return 0;
}

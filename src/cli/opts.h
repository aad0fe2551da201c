/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsed command-line options, shared by every command and both front-ends
 * (standalone getopt_long and the nvme-cli plugin), and the value parsers
 * behind them.
 */
#ifndef ZNP_CLI_OPTS_H
#define ZNP_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "znp.h"


enum znp_fmt {
	ZNP_FMT_NORMAL,
	ZNP_FMT_JSON,
};

/* One per option in the table (cmdtab.c); also the bit in znp_opts.given. */
enum znp_opt_id {
	ZNP_O_OUTPUT_FORMAT,
	ZNP_O_VERBOSE,
	ZNP_O_HUMAN,
	ZNP_O_HELP,
	ZNP_O_NSID,
	ZNP_O_START_LBA,
	ZNP_O_COUNT,
	ZNP_O_STATE,
	ZNP_O_ALL,
	ZNP_O_FORCE,
	ZNP_O_DRY_RUN,
	ZNP_O_QUEUE_DEPTH,
	ZNP_O_NAME,
	ZNP_O_OFFSET,
	ZNP_O_LENGTH,
	ZNP_O_RANGES,
	ZNP_O_LBA,
	ZNP_O_PERSIST,
	ZNP_O_RESTORE,
	ZNP_O_CONFIG,
	ZNP_O_UBLK,
	ZNP_O_FOREGROUND,
	ZNP_O_QUEUES,
	ZNP_O_UBLK_ID,
	ZNP_O_RECOVER,
	ZNP_O_FORCE_UBLK,
	ZNP_O_WIDTH,
	ZNP_O_COLOR,
	ZNP_O_SVG,
	ZNP_O_PADDING,
	ZNP_O_RAW,
	ZNP_O_ZONE,
	ZNP_O_SUMMARY,
	ZNP_O_NQN,
	ZNP_O_TRANSPORT,
	ZNP_O_TRADDR,
	ZNP_O_TRSVCID,
	ZNP_O_HOSTNQN,
	ZNP_O_ALLOW_ANY_HOST,
	ZNP_O_REMOVE,
	ZNP_O_NR
};

/* znp_opts.given has one bit per option */
_Static_assert(ZNP_O_NR <= 64, "too many options for znp_opts.given");

#define ZNP_MAX_ARGS	4

struct znp_opts {
	enum znp_fmt fmt;
	bool verbose;
	bool human;
	bool help;
	uint32_t nsid;			/* --namespace-id: expected NSID */
	uint64_t start_lba;
	uint64_t zone;			/* --zone: first zone by index, instead of start_lba */
	uint64_t count;			/* zones */
	enum znp_state_filter state;	/* the device's filter: one state, else all */
	uint32_t states;		/* --state: bit 1 << filter per state named; 0 none */
	bool all;			/* select-all */
	bool force;
	bool dry_run;
	uint32_t queue_depth;
	const char *name;		/* mapping name (map/unmap/status) */
	uint64_t offset;		/* discard: bytes, or LBAs with lba */
	uint64_t length;
	const char *ranges;		/* discard: range list file, "-" stdin */
	bool lba;			/* discard: offsets/lengths in LBAs */
	bool persist;			/* map: record in the mapping file */
	bool restore;			/* map: restore every recorded mapping */
	const char *config;		/* map/unmap/status: mapping file */
	bool ublk;			/* map: through a ublk server, not dm-po2zone */
	bool foreground;		/* map --ublk: serve in this process */
	uint32_t queues;		/* map --ublk: ublk queues */
	uint32_t ublk_id;		/* map --ublk: device id to create or recover */
	bool recover;			/* map --ublk: take back a device whose server died */
	bool force_ublk;		/* map --ublk even where the kernel shows the device */
	uint32_t width;			/* zonemap: columns */
	const char *color;		/* zonemap: auto, always, never */
	const char *svg;		/* zonemap: SVG file, "-" stdout */
	bool padding;			/* zonemap: show the po2 padding */
	bool raw;			/* report: the descriptors as the drive sent them */
	bool summary;			/* report: counts by state, not the zones */
	const char *nqn;		/* export: the NVMe target subsystem */
	const char *transport;		/* export: tcp (default), rdma, loop */
	const char *traddr;		/* export: the port's address */
	const char *trsvcid;		/* export: the port's service (TCP port) */
	const char *hostnqn;		/* export: the host allowed */
	bool allow_any_host;		/* export: every host allowed */
	bool remove;			/* export: remove the export */

	uint64_t given;			/* 1ull << enum znp_opt_id, set by znp_opt_set() */
	const char *args[ZNP_MAX_ARGS];	/* positional arguments, args[0] = device */
	int nargs;
	const char *extra;		/* first argument past ZNP_MAX_ARGS, or NULL */
};

void znp_opts_init(struct znp_opts *o);

static inline bool znp_opt_given(const struct znp_opts *o, enum znp_opt_id id)
{
	return o->given & (UINT64_C(1) << id);
}

/**
 * znp_parse_u64() - parse an unsigned 64-bit count or LBA
 * @s: decimal, or hexadecimal with a 0x prefix, optionally followed by a
 *     multiplier suffix: k K Ki KiB (2^10), M Mi MiB (2^20), G Gi GiB,
 *     T Ti TiB, P Pi PiB, E Ei EiB (binary), or kB KB MB GB TB PB EB (powers
 *     of 1000). The suffix multiplies the number; it does not change the
 *     unit (an LBA stays an LBA).
 * @out: the value
 * @why: on failure, a static reason ("not a number", "trailing garbage",
 *       "negative", "out of range", "empty", "unknown suffix")
 *
 * Leading or trailing white space, signs and octal are rejected.
 * Return: 0 or -EINVAL / -ERANGE.
 */
int znp_parse_u64(const char *s, uint64_t *out, const char **why);
/* As znp_parse_u64(), limited to 32 bits. */
int znp_parse_u32(const char *s, uint32_t *out, const char **why);

/**
 * znp_parse_state() - parse a zone state name for report filtering
 *
 * Accepts, case-insensitively: the canonical names (empty, implicit-open,
 * explicit-open, closed, read-only, full, offline, all), nvme-cli's JSON
 * names (EMPTY, IMP_OPENED, EXP_OPENED, CLOSED, READONLY, FULL, OFFLINE),
 * '_' for '-', blkzone's abbreviations (em, oi, oe, cl, ro, fu, of), and
 * nvme-cli's numeric Zone Receive Action Specific values 0-7.
 * Return: 0 or -EINVAL with @why set.
 */
int znp_parse_state(const char *s, enum znp_state_filter *out, const char **why);
const char *znp_state_filter_name(enum znp_state_filter f);	/* canonical */

/**
 * znp_parse_states() - one or several zone states, comma separated
 * (`-S full,closed`), each as znp_parse_state(); added to *@mask (bit
 * 1 << filter), so that a repeated -S adds to the list.
 * Return: 0 or -EINVAL with @why set.
 */
int znp_parse_states(const char *s, uint32_t *mask, const char **why);
/* The device's report filter for @mask: its one state, else all (0: all). */
enum znp_state_filter znp_states_filter(uint32_t mask);
/* The state filter of zone state @cond (enum znp_zone_cond); ZNP_RF_ALL: none (not-wp, unknown). */
enum znp_state_filter znp_cond_filter(uint8_t cond);
/* Is a zone of state @cond (enum znp_zone_cond) one of @mask's (0: all)? */
bool znp_states_match(uint32_t mask, uint8_t cond);
/* @mask as canonical names, comma separated ("all" for 0). Return: @buf. */
const char *znp_states_name(uint32_t mask, char *buf, size_t size);

/* "normal" or "json" (nvme-cli's -o). Return: 0 or -EINVAL with @why set. */
int znp_parse_fmt(const char *s, enum znp_fmt *out, const char **why);

#endif

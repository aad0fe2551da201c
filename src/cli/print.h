/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Print-ops: command code builds plain data and hands it to one of two
 * printers, text (print-text.c) or JSON (print-json.c, the only file that
 * uses json-c). Zone reports and lists stream: *_begin, one call per item,
 * *_end; neither printer keeps per-item memory.
 */
#ifndef ZNP_CLI_PRINT_H
#define ZNP_CLI_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "znp.h"
#include "opts.h"

#define ZNP_PF_HUMAN	(1u << 0)	/* -H: sizes in bytes with units */
#define ZNP_PF_VERBOSE	(1u << 1)	/* -v */

struct znp_print_ops;

struct znp_print {
	const struct znp_print_ops *ops;
	FILE *out;
	unsigned int flags;		/* ZNP_PF_* */
	/* streaming state, owned by the printer */
	bool first_key;
	bool first_elem;
	uint64_t nr_items;
	uint32_t lba_size;
	const struct znp_zone_op_view *op;
	const struct znp_discard_view *discard;
	const char *device;		/* report: the device as given */
	bool summary;			/* report: counts instead of the zone list */
	/* set by the command before report_end(): the report stopped on this error */
	int report_ret;
	/* the printer began a document on @out (JSON: its outer object) */
	bool started;
	/* list: the first namespace that could not be probed, and its error */
	int list_ret;
	char list_err_dev[256];
};

/*
 * A command that failed, for scripts: with -o json the command's document
 * carries it as "error" (a report cut short, a zone operation or discard
 * that failed), or, when the command failed before printing anything, it
 * is the whole document (znp_print_ops.error). Schema: nvme-zns-npo2(1).
 */
struct znp_error_view {
	int ret;			/* -errno, NVMe status (> 0), 0: none known */
	const char *device;		/* device or mapping it is about; NULL: none */
	const char *message;		/* the error line's text; NULL: from @ret */
	int exit_code;			/* 0: not known yet (inside a document) */
};

/* One NVMe namespace in `list`. */
struct znp_list_row {
	const struct znp_ns_info *ns;
	const struct znp_geom *geom;	/* NULL when probing failed */
	bool is_zoned;
	int probe_ret;			/* 0, -errno or NVMe status */
	const char *mapped_as;		/* po2 mapping on top, NULL: none/unknown */
	const char *ng_path;		/* "/dev/ng0n1" (dev root), NULL: the name */
	const char *blk_path;		/* "/dev/nvme0n1", NULL: the name */
};

struct znp_report_hdr {
	const char *device;		/* path as given */
	const struct znp_ns_info *ns;	/* NULL: not an NVMe device */
	const struct znp_geom *geom;
	uint64_t start_lba;
	enum znp_state_filter filter;
	const char *state_filter;	/* the states asked for: "all", "full" or "closed,full" */
	bool summary;			/* report --summary: report_summary() instead of zones */
};

/* report --summary: the zones reported, counted by state, against the limits. */
struct znp_zone_summary {
	uint64_t by_state[8];		/* index enum znp_state_filter; [0]: no write pointer */
	uint64_t nr_zones;		/* counted */
	uint64_t open;			/* implicitly + explicitly open */
	uint64_t active;		/* open + closed */
	uint32_t max_open;		/* the device's limits, 0: none */
	uint32_t max_active;
};

struct znp_check_view {
	const char *device;
	const struct znp_ns_info *ns;	/* NULL: not an NVMe device */
	const struct znp_geom *geom;	/* NULL when not zoned */
	bool is_zoned;
	struct znp_check_result res;
	int exit_code;
};

struct znp_zone_op_view {
	const char *device;
	enum znp_zone_action action;
	bool all;			/* select-all */
	bool dry_run;
	uint64_t start_lba;		/* ignored with @all */
	uint64_t first_zone;
	uint64_t nr_zones;		/* 0 with @all */
};

/* discard: what is about to be done (or, with dry_run, would be). */
struct znp_discard_view {
	const char *device;
	const char *target;		/* "block", "nvme-conventional", "zoned" */
	const char *engine;		/* planned engine, znp_aio_engine_name() */
	const char *unit;		/* "bytes" or "lba": unit of discard_cmd() */
	bool dry_run;
	unsigned int queue_depth;
	uint64_t ranges;		/* validated user ranges */
	uint64_t commands;		/* commands planned */
	uint64_t bytes;			/* bytes planned */
};

/* discard: what was done. */
struct znp_discard_summary {
	const char *engine;		/* engine that did the work */
	unsigned int fallbacks;		/* io_uring -> synchronous switches */
	const char *fallback_reason;	/* NULL if none */
	uint64_t commands;		/* planned */
	uint64_t submitted, completed, failed;
	uint64_t bytes;			/* done */
	double seconds;
	double iops;			/* completed / seconds */
	bool interrupted;
	int ret;			/* 0 or the library error */
};

/* `map` result (also printed for --dry-run). */
struct znp_map_view {
	const char *device;		/* as given */
	const char *backing;		/* block device under the mapping */
	/* a mapping of several devices: each one and its block device (JSON
	 * arrays; @device and @backing join them with spaces for text) */
	unsigned int nr_devices;	/* 0: one, @device and @backing */
	const char *const *devices;
	const char *backings;		/* @nr_devices strings of @backing_stride bytes */
	size_t backing_stride;
	const struct znp_ns_info *ns;	/* NULL: not NVMe */
	const struct znp_geom *geom;
	const char *name;
	const char *uuid;
	const char *ident;		/* stable identity, NULL when none */
	const char *target;
	const char *table;		/* dmsetup table text */
	uint64_t table_len;		/* sectors */
	const char *leftover;		/* half-created device removed first */
	const char *dm_kname;		/* "dm-3", NULL for a dry run */
	const char *config;
	bool dry_run;
	bool persisted;
};

/* map --ublk (cmd_ublkmap.c); sizes of the ublk device in 512-byte sectors */
struct znp_map_ublk_view {
	const char *device;		/* as given */
	const struct znp_ns_info *ns;
	const struct znp_geom *geom;	/* the namespace's */
	const char *ident;
	const char *name;		/* "" none */
	int dev_id;			/* -1 for a dry run */
	long pid;			/* server process, 0 for a dry run */
	uint64_t zone_sectors;		/* po2 */
	uint64_t zone_cap_sectors;
	uint64_t dev_sectors;
	unsigned int queues, depth;
	bool recovered;			/* took back a quiesced device */
	bool foreground;
	bool dry_run;
	bool persisted;
	const char *config;
};

struct znp_unmap_view {
	const char *name;
	const char *backing;
	const char *config;
	bool dry_run;
	bool deferred;			/* removed at its last close */
	bool ublk;			/* a ublk mapping (stopped and deleted) */
	bool forgotten;			/* dropped from the config file */
};

/* An export made or removed (cmd_export.c). */
struct znp_export_view {
	const char *name;		/* the mapping */
	const char *device;		/* the namespace's device_path */
	const char *nqn;
	const char *transport;		/* NULL when removed */
	const char *traddr;
	const char *trsvcid;
	const char *hostnqn;		/* NULL: any host */
	unsigned int port;		/* nvmet port, 0 none */
	bool port_created;
	bool removed;
	const char *config;		/* --persist: the export file written or removed; NULL */
	unsigned int ana_group;		/* the namespace's ANA group; 0 unknown */
	const char *drain;		/* removed: "done", "timeout", "none", "unknown"; else NULL */
	unsigned int drain_ms;
};

struct znp_ublk_rec;

/* A ublk mapping in `status` (cmd_ublk.c). */
struct znp_ublk_status_view {
	const struct znp_ublk_rec *rec;	/* its record (svc.h) */
	const char *device;		/* "ublkb0" */
	const char *health;		/* alive, dead-quiesced, dead, missing, starting */
	int dev_state;			/* UBLK_S_DEV_*, -1 unknown */
};

struct znp_status_row {
	const struct znp_dm_info *dm;	/* NULL for a ublk mapping */
	const struct znp_ublk_status_view *ublk;	/* NULL for a dm mapping */
	const struct znp_ns_info *ns;	/* NULL: backing is not NVMe / unknown */
	const char *backing;
	const char *ident;
	bool persisted;
};

struct znp_restore_entry {
	unsigned int line;
	const char *name;
	const char *ident;
	const char *result;		/* mapped, would-map (dry run), already-mapped, missing, failed, invalid */
	const char *device;
	const char *error;
};

struct znp_print_ops {
	const char *name;
	void (*list_begin)(struct znp_print *p);
	void (*list_row)(struct znp_print *p, const struct znp_list_row *r);
	void (*list_end)(struct znp_print *p);
	void (*report_begin)(struct znp_print *p, const struct znp_report_hdr *h);
	void (*report_zone)(struct znp_print *p, const struct znp_zone *z,
			    uint64_t zone_no);
	/* between report_begin and report_end, with hdr.summary */
	void (*report_summary)(struct znp_print *p, const struct znp_zone_summary *s);
	void (*report_end)(struct znp_print *p);
	void (*check)(struct znp_print *p, const struct znp_check_view *v);
	void (*zone_op_begin)(struct znp_print *p, const struct znp_zone_op_view *v);
	/* dry run: one call per command that would be sent */
	void (*zone_op_cmd)(struct znp_print *p, enum znp_zone_action a,
			    uint64_t slba, uint64_t zone_no, bool all);
	/* @done: zones completed; @ret: 0 or the failing library return.
	 * @v passed to zone_op_begin must stay valid until here. */
	void (*zone_op_end)(struct znp_print *p, uint64_t done, int ret);
	void (*discard_begin)(struct znp_print *p, const struct znp_discard_view *v);
	/* dry run: one call per command, in v->unit */
	void (*discard_cmd)(struct znp_print *p, uint64_t start, uint64_t len);
	/* @s is NULL after a dry run */
	void (*discard_end)(struct znp_print *p, const struct znp_discard_summary *s);
	void (*version)(struct znp_print *p, const char *prog, const char *version);
	void (*map)(struct znp_print *p, const struct znp_map_view *v);
	void (*map_ublk)(struct znp_print *p, const struct znp_map_ublk_view *v);
	void (*unmap)(struct znp_print *p, const struct znp_unmap_view *v);
	void (*export)(struct znp_print *p, const struct znp_export_view *v);
	void (*status_begin)(struct znp_print *p);
	void (*status_row)(struct znp_print *p, const struct znp_status_row *r);
	void (*status_end)(struct znp_print *p);
	void (*restore_begin)(struct znp_print *p, const char *config);
	/* between begin and end: @config does not exist (nothing recorded) */
	void (*restore_no_file)(struct znp_print *p, const char *config, bool dry_run);
	void (*restore_entry)(struct znp_print *p, const struct znp_restore_entry *e);
	void (*restore_end)(struct znp_print *p);
	/*
	 * The command failed before beginning a document: JSON prints
	 * {"error": {...}}; text prints nothing (the error line is on stderr).
	 */
	void (*error)(struct znp_print *p, const struct znp_error_view *e);
};

extern const struct znp_print_ops znp_print_text_ops;
extern const struct znp_print_ops znp_print_json_ops;

void znp_print_init(struct znp_print *p, enum znp_fmt fmt, FILE *out,
		    unsigned int flags);

/* "96 MiB", "1.5 GiB", "512 B": exact when the value is a whole unit. */
void znp_human_size(char *buf, size_t len, uint64_t bytes);

/**
 * znp_print_table_json() - dump the command/option table as JSON (the
 * hidden `__table` command): the single source for completions, man pages
 * and the nvme-cli glue, so their tests can detect drift.
 */
void znp_print_table_json(FILE *out, const char *prog);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map/: the life cycle of a po2 mapping of an npo2 zoned namespace, over two
 * routes: the dm route (dm-po2zone through src/dm/) and the ublk route (the
 * server of src/ublk/, its state in src/svc/). Both go through the same
 * steps, in the same order: plan (refuse with a reason), create, record,
 * undo the creation when the record fails; then find, recover, remove and
 * status. `struct znp_map_route` names those steps for each route.
 *
 * Nothing here prints or exits. A refusal or failure comes back as a
 * `struct znp_map_err`: its kind (which the command layer turns into an
 * exit code) and its one-line reason, without the subject it is about.
 */
#ifndef ZNP_MAP_H
#define ZNP_MAP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "dev.h"
#include "dm.h"
#include "dmconf.h"
#include "svc.h"
#include "ublk.h"
#include "zone.h"

/* What kind of no a step says; the caller maps it to its exit code. */
enum znp_map_kind {
	ZNP_MAP_OK,
	ZNP_MAP_FAILED,		/* could not be done (I/O, memory, a state file) */
	ZNP_MAP_USAGE,		/* an argument the mapping cannot take */
	ZNP_MAP_UNSUITABLE,	/* the device, or what names it, cannot be mapped */
	ZNP_MAP_REFUSED,	/* refused for safety: in use, held, a name taken */
	ZNP_MAP_UNSUPPORTED,	/* the kernel lacks what the route needs */
	ZNP_MAP_ERRNO,		/* as @ret says (the caller's map from -errno) */
};

struct znp_map_err {
	enum znp_map_kind kind;
	int ret;			/* the library return behind it, 0 none */
	const char *subject;		/* what it is about; NULL: the device as given */
	bool told;			/* given to a hook already (ublk serving) */
	char why[512];			/* one line */
};

/*
 * Set @e. Return: @ret when it is a negative errno, else -EIO (a refusal
 * without one, or an NVMe status: kept in e->ret), so that a failed step
 * can `return znp_map_fail(...)`.
 */
int znp_map_fail(struct znp_map_err *e, enum znp_map_kind kind, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Why the mapping file @conf could not be updated; for -EBUSY its lock and holder. */
const char *znp_map_conf_strerror(const char *conf, int ret, char *buf, size_t size);

/* The routes. */
enum znp_map_via {
	ZNP_MAP_VIA_DM,
	ZNP_MAP_VIA_UBLK,
};

/*
 * What a step needs to know of the caller: the device tree (sysfs, /dev),
 * the mapping file, the run-time state directory, and the options that
 * change what a step does. Filled by the command layer from argv and the
 * environment; the library reads neither.
 */
struct znp_map_ctx {
	const struct znp_env *env;
	const char *config;		/* the mapping file */
	const char *run_dir;		/* the ublk state directory */
	const char *conf_dir;		/* export --persist's files, NULL: ZNP_EXPORT_CONF_DIR */
	const char *name;		/* --name, NULL: the default */
	bool dry_run;
	bool persist;
	bool force;
	bool force_ublk;		/* serve a visible block device through ublk */
	int kill_at;			/* test hook: SIGKILL before dm step N (0: never) */
};

/* ---- refusal: one table from check verdict to refusal, per route ---------- */

/**
 * znp_map_refuse() - may @dev be mapped through @via?
 * @dev: an opened, probed device
 * Decides with znp_check() and refuses by the one verdict table (with
 * --force-ublk a visible block device may go through ublk).
 * Return: 0 or a negative errno with @e set.
 */
int znp_map_refuse(const struct znp_map_ctx *c, enum znp_map_via via, const struct znp_dev *dev,
		   struct znp_map_err *e);

/* The refusal for a failed znp_dm_target_find() @ret. Return: a negative errno. */
int znp_map_dm_target_error(int ret, struct znp_map_err *e);

/* ---- the dm route --------------------------------------------------------- */

/* What `map` creates: computed from the device, then checked against the system. */
struct znp_map_plan {
	const struct znp_ns_info *ns;	/* NULL: not NVMe */
	const char *kname;		/* block device to map (kernel name) */
	char ident[ZNP_IDENT_MAX];	/* "" when the device has none */
	char uuid[ZNP_DM_UUID_MAX];
	char name[ZNP_DM_NAME_MAX];
	char backing[PATH_MAX];
	char table[PATH_MAX + 64];	/* the table line */
	char leftover[ZNP_DM_NAME_MAX];	/* a half-made mapping removed first, "" none */
	char note[512];			/* dry run: what a real run would refuse, "" none */
	char dm_kname[32];		/* "dm-3" once created */
	struct znp_dm_create_req req;
};

/**
 * znp_map_dm_plan() - plan (refusal, name, UUID, table), then check the
 * system (holders, the target, leftovers, the name). Nothing is created.
 * Return: 0, 1 when mapped by us already with this identity, or a negative errno with @e.
 */
int znp_map_dm_plan(const struct znp_map_ctx *c, const struct znp_dev *dev,
		    struct znp_map_plan *pl, struct znp_map_err *e);

/**
 * znp_map_dm_create() - create the planned mapping, then record it with
 * c->persist; one that cannot be recorded is removed again (undo).
 * Return: 0 or a negative errno with @e.
 */
int znp_map_dm_create(const struct znp_map_ctx *c, const struct znp_dev *dev,
		      struct znp_map_plan *pl, struct znp_map_err *e);

/*
 * znp_map_dm_serving() - our dm mapping of namespace @dev: the one whose
 * UUID carries its identity, else one of ours holding its block device (a
 * concatenation). Device-mapper that cannot be asked counts as none (the
 * exclusive open of the block device still fails while a mapping holds it).
 * Return: 1 found (@name), 0 none.
 */
int znp_map_dm_serving(const struct znp_map_ctx *c, const struct znp_dev *dev, char *name,
		       size_t size);

/* The mapping that holds the block device @kname already, "" none (@buf). */
void znp_map_dm_holder(const struct znp_map_ctx *c, const char *kname, char *buf, size_t size);

/**
 * znp_map_dm_find() - the mapping @arg means: a mapping name,
 * /dev/mapper/NAME, /dev/dm-N, or a device (namespace, null_blk) it maps.
 * Return: 0 with @name set, or a negative errno with @e (subject @arg).
 */
int znp_map_dm_find(const struct znp_map_ctx *c, const char *arg, char *name, size_t size,
		    struct znp_map_err *e);

/**
 * znp_map_dm_remove() - remove our mapping @name (open: only with c->force,
 * then at its last close) and forget it in the mapping file.
 * Return: 0 or a negative errno with @e (subject @name).
 */
struct znp_map_removed;
int znp_map_dm_remove(const struct znp_map_ctx *c, const char *name,
		      struct znp_map_removed *out, struct znp_map_err *e);

/* A dm mapping of ours, for `status`. */
struct znp_map_dm_row {
	const struct znp_dm_info *dm;
	const struct znp_ns_info *ns;	/* NULL: backing is not NVMe / unknown */
	const char *backing;		/* NULL unknown */
	const char *ident;
	bool persisted;
};

/**
 * znp_map_dm_status() - call @cb for each of our dm mappings, or for @one
 * alone (not NULL: read by the caller with znp_dm_get()).
 * Return: 0 or the -errno of znp_dm_list().
 */
int znp_map_dm_status(const struct znp_map_ctx *c, const struct znp_dm_info *one,
		      void (*cb)(const struct znp_map_dm_row *r, void *arg), void *arg);

/* ---- map --restore: the recorded namespaces present ------------------------ */

struct znp_map_ns {
	struct znp_ns_info ns;
	char ident[ZNP_IDENT_MAX];
	struct znp_geom geom;
	bool ok;			/* probed and zoned */
};

/* The NVMe namespaces present, with their identities. */
struct znp_map_present {
	struct znp_map_ns *ns;
	size_t nr, cap;
};

/* Return: 0 or the -errno of znp_scan(); free with znp_map_present_free() either way. */
int znp_map_present_scan(const struct znp_map_ctx *c, struct znp_map_present *p);
void znp_map_present_free(struct znp_map_present *p);

/* One entry of the mapping file, matched to what is present. */
struct znp_map_restore_item {
	unsigned int line;
	const struct znp_dmconf_entry *ent;	/* NULL: an invalid line (@why) */
	const char *why;
	const struct znp_map_ns *ns;		/* NULL: not present */
	char path[PATH_MAX];			/* the node its route maps */
	bool geom_differs;			/* from the recorded geometry */
};

/*
 * Call @cb for each entry of the mapping file @buf (@len bytes) in order.
 * Return: 0 or the -errno of znp_dmconf_parse() (-ENOMEM: the entries after
 * it were not looked at).
 */
int znp_map_restore_each(const struct znp_map_ctx *c, const struct znp_map_present *p,
			 const char *buf, size_t len,
			 int (*cb)(const struct znp_map_restore_item *it, void *arg), void *arg);

/* Does the mapping file record only ublk mappings (no dm target needed)? */
bool znp_map_conf_only_ublk(const char *buf, size_t len);

/* ---- a concatenation (map DEV1 DEV2 ...) on the dm route ------------------- */

#define ZNP_MAP_CAT_MAX		4

struct znp_map_cat {
	unsigned int n;
	struct znp_dev *dev[ZNP_MAP_CAT_MAX];	/* opened by the caller */
	const char *arg[ZNP_MAP_CAT_MAX];	/* as given */
	char backing[ZNP_MAP_CAT_MAX][PATH_MAX];
	struct znp_dm_table t[ZNP_MAP_CAT_MAX];
	char uuid[ZNP_DM_UUID_MAX];
	char target[ZNP_DM_TARGET_MAX];
	char table[ZNP_MAP_CAT_MAX * (PATH_MAX + 64)];
	char note[512];			/* dry run: what a real run would refuse */
	uint64_t len;			/* sectors */
	struct znp_geom geom;		/* of the mapped device */
	char dm_kname[32];
};

/*
 * znp_map_cat_begin() first (the UUID from c->name). Each device as `map`
 * takes it alone, none given twice, one zone geometry for all:
 * znp_map_cat_check() after each device is opened (index @i).
 * Then znp_map_cat_plan() (targets back to back) and znp_map_cat_create().
 * Return: 0 or a negative errno with @e (e->subject: the device, or NULL for the command).
 */
int znp_map_cat_begin(const struct znp_map_ctx *c, struct znp_map_cat *cat,
		      struct znp_map_err *e);
int znp_map_cat_check(const struct znp_map_ctx *c, struct znp_map_cat *cat, unsigned int i,
		      struct znp_map_err *e);
int znp_map_cat_plan(const struct znp_map_ctx *c, struct znp_map_cat *cat,
		     struct znp_map_err *e);
int znp_map_cat_create(const struct znp_map_ctx *c, struct znp_map_cat *cat,
		       struct znp_map_err *e);

/* ---- the ublk route -------------------------------------------------------- */

/*
 * A served namespace: what `map --ublk` checked, computed and will record.
 * znp_map_ublk_plan() fills it; the serving steps below use it.
 */
struct znp_map_ublk {
	const struct znp_map_ctx *c;
	struct znp_dev *dev;
	struct znp_ublk_geom g;		/* computed once (one Identify Controller) */
	char ident[ZNP_IDENT_MAX];
	struct znp_ublk_rec rec;	/* the record written once live */
	char config[PATH_MAX];		/* --persist: the mapping file, absolute */
	int dirfd;			/* the state directory, -1 not open */
	int lockfd;			/* the namespace's lock, -1 not held */
	int recover_id;			/* the quiesced device to take back, -1 none */
	bool recovered;
	int dev_id;			/* once created */
	unsigned int queues, depth;	/* as served */
	/* serving */
	int dev_id_wanted;		/* --ublk-id, -1 none */
	bool recover;			/* --recover: take back dev_id_wanted */
	unsigned int nr_queues, queue_depth;	/* 0: default */
	bool user_copy;			/* data by user copy even with zero copy offered */
	bool live;
};

/* Progress of the serving steps, and the moment the device is live. */
struct znp_map_ublk_hooks {
	/* one line at a syslog priority; @log_only: for the system log alone */
	void (*say)(void *arg, int prio, bool log_only, const char *msg);
	/* a refusal once the device exists (the step then returns it with e->told) */
	void (*refused)(void *arg, struct znp_map_err *e);
	/*
	 * the server is about to be made (before ADD_DEV): signals may stop it
	 * now (znp_map_ublk_stop(); one before it is recorded waits for it to run)
	 */
	void (*running)(void *arg);
	/* the device is live (and recorded); the caller tells who waits */
	void (*live)(void *arg, const struct znp_map_ublk *u);
	void *arg;
};

/**
 * znp_map_ublk_recorded() - the ng node (@ng) of the namespace recorded
 * under @name as a ublk mapping in the mapping file, found by identity.
 * Return: 0 or a negative errno with @e.
 */
int znp_map_ublk_recorded(const struct znp_map_ctx *c, const char *name, char *ng, size_t size,
			  struct znp_map_err *e);

/**
 * znp_map_ublk_plan() - refuse what cannot be served, before anything
 * changes: not NVMe, a check verdict no ublk mapping serves, a geometry
 * ublk cannot carry, no stable identity. Fills @u (nothing sent but the
 * Identify Controller the geometry needs).
 * Return: 0 or a negative errno with @e.
 */
int znp_map_ublk_plan(const struct znp_map_ctx *c, struct znp_dev *dev, struct znp_map_ublk *u,
		      struct znp_map_err *e);

/**
 * znp_map_ublk_kernel_check() - refuse a kernel the ublk route cannot serve
 * on: no ublk driver at all (neither loaded nor installed: Debian 12's 6.1,
 * or an emulated tree without a control node), or a driver that lacks
 * zoned devices, user copy or user recovery. Nothing is loaded or created,
 * so `map --ublk --dry-run` asks it too and exits as the real run would.
 * Return: 0 or a negative errno with @e (ZNP_MAP_UNSUPPORTED).
 */
int znp_map_ublk_kernel_check(const struct znp_map_ctx *c, struct znp_map_err *e);

/* --persist: u->config, the mapping file as an absolute path. Return: 0 or a negative errno with @e. */
int znp_map_ublk_config(struct znp_map_ublk *u, struct znp_map_err *e);

/**
 * znp_map_ublk_prepare() - lock the namespace (a second server is refused),
 * make sure of the ublk driver (modprobe when it is not loaded), and decide
 * on recovery (take back a quiesced device, refuse a live one, drop a
 * stale record). @h->say tells what it does.
 * Return: 0 or a negative errno with @e.
 */
int znp_map_ublk_prepare(struct znp_map_ublk *u, const struct znp_map_ublk_hooks *h,
			 struct znp_map_err *e);

/**
 * znp_map_ublk_serve() - create (or take back) the device, serve it until
 * it stops. Once live: record it in the mapping file with --persist (a
 * record that fails undoes the device), then the run-time record, then
 * @h->live. After a clean stop the device is deleted and the record
 * removed; a device in use stays, quiesced, for the next server.
 * Return: 0 after a clean stop, or a negative errno with @e.
 */
int znp_map_ublk_serve(struct znp_map_ublk *u, const struct znp_map_ublk_hooks *h,
		       struct znp_map_err *e);

/* Release what znp_map_ublk_prepare() took (the lock goes with the process otherwise). */
void znp_map_ublk_release(struct znp_map_ublk *u);

/* Stop the server that znp_map_ublk_serve() runs (a signal handler may call it). */
void znp_map_ublk_stop(void);

/* A ublk mapping found by what names it. */
struct znp_map_ublk_found {
	struct znp_ublk_rec rec;
	enum znp_ublk_health health;
	int dev_state;			/* UBLK_S_DEV_*, -1 unknown */
	char device[32];		/* "ublkb0" */
	bool persisted;			/* recorded in the (default) mapping file too */
};

/**
 * znp_map_ublk_find() - the ublk mapping @arg names: ublkbN, /dev/ublkbN,
 * its name, its namespace's ng or block node.
 * Return: 1 found, 0 not (also: no state directory), or a negative errno with @e when the
 * records cannot be read (ENOMEM, EACCES): a failure, not "not found".
 */
int znp_map_ublk_find(const struct znp_map_ctx *c, const char *arg,
		      struct znp_map_ublk_found *out, struct znp_map_err *e);

/*
 * znp_map_ublk_status() - call @cb for each ublk mapping (@bad for a record
 * that cannot be read: its file and why). Return: the count, or a negative errno with @e.
 */
int znp_map_ublk_status(const struct znp_map_ctx *c,
			void (*cb)(const struct znp_map_ublk_found *f, void *arg),
			void (*bad)(const char *file, const char *why, void *arg), void *arg,
			struct znp_map_err *e);

/*
 * znp_map_ublk_serving() - the ublk record of namespace @dev (by identity)
 * whose device still exists (any health but missing).
 * Return: 1 found (@out), 0 not, or a negative errno with @e when the records cannot be read.
 */
int znp_map_ublk_serving(const struct znp_map_ctx *c, const struct znp_dev *dev,
			 struct znp_map_ublk_found *out, struct znp_map_err *e);

/* "ublkbN" when namespace @ns is served through ublk (its device exists), else NULL. */
const char *znp_map_ublk_mapped_as(const struct znp_map_ctx *c, const struct znp_ns_info *ns,
				   char *buf, size_t size);

/*
 * znp_map_ublk_remove() - stop and delete the ublk mapping @f (in use: only
 * with c->force), its record, and its entry in the mapping file. A dry run
 * stops after the checks. @warn: a note that does not stop the removal.
 * Return: 0 or a negative errno with @e (subject out->name).
 */
struct znp_map_removed;
int znp_map_ublk_remove(const struct znp_map_ctx *c, const struct znp_map_ublk_found *f,
			void (*warn)(const char *subject, const char *msg, void *arg), void *arg,
			struct znp_map_removed *out, struct znp_map_err *e);

/*
 * Is the namespace @ng's ublk mapping served already (restore)?
 * Return: 1 yes, 0 no, or a negative errno with @e when the records cannot be read.
 */
int znp_map_ublk_served(const struct znp_map_ctx *c, const char *ng, struct znp_map_err *e);

/* The ublk route of the running kernel (c->env a test tree: no module or driver probe). */
void znp_map_ublk_route(const struct znp_map_ctx *c, struct znp_ublk_route_info *out);

/* ---- export: a mapping as a namespace of the kernel's NVMe target --------- */

/* Where and to whom (nvmet's configfs names; NULL: not set). */
struct znp_map_export_req {
	const char *nqn;		/* the subsystem, one per export */
	const char *transport;		/* addr_trtype: tcp, rdma, loop */
	const char *adrfam;		/* ipv4, ipv6; NULL for loop */
	const char *traddr;
	const char *trsvcid;
	const char *hostnqn;		/* the one host allowed; NULL: any host */
};

/*
 * export --remove: before hosts lose the subsystem, its namespace's ANA
 * group turns inaccessible (hosts stop sending and hold what they have)
 * and the device's requests in flight end, so that every command the
 * target received is answered before the connection goes.
 */
enum znp_map_drain {
	ZNP_MAP_DRAIN_NONE,		/* not exported, or ANA group 1 (shared: not drained) */
	ZNP_MAP_DRAIN_DONE,		/* nothing in flight any more */
	ZNP_MAP_DRAIN_TIMEOUT,		/* requests still in flight at the bound: removed anyway */
	ZNP_MAP_DRAIN_UNKNOWN,		/* the device's in-flight count could not be read */
};

/* export --persist: where zns-npo2-export@NAME.service reads the export's options */
#define ZNP_EXPORT_CONF_DIR "/etc/zns-npo2"

struct znp_map_export_done {
	char name[ZNP_DM_NAME_MAX];	/* the mapping's name */
	char device[64];		/* its device: the namespace's device_path */
	char nqn[224];			/* "" after --remove --persist of one not exported */
	unsigned int port;		/* nvmet port number */
	bool port_created;		/* made by this export (else shared) */
	char config[PATH_MAX];		/* c->persist: the export file */
	bool config_changed;		/* c->persist: written, or removed */
	unsigned int ana_group;		/* the namespace's ANA group (1: shared, not drained) */
	enum znp_map_drain drain;	/* --remove: how the hosts' commands were drained */
	unsigned int drain_ms;		/* --remove: from the ANA change to nothing in flight */
};

/**
 * znp_map_export() - export the mapping @arg names (its name, device, or
 * /dev/mapper/NAME) as namespace 1 of a new NVMe target subsystem r->nqn
 * on the port with r's address (made when there is none). Refused: a
 * namespace node (the npo2 namespace itself, or one no mapping serves),
 * a ublk mapping whose server does not serve, a device or NQN exported
 * already, no nvmet. What was made is undone on failure. With c->persist,
 * then r is recorded in the export file (out->config) that the export unit
 * reads at boot; a symbolic link or another file type there, or a value
 * the file cannot hold, is refused before anything is made.
 * Return: 0 or a negative errno with @e.
 */
int znp_map_export(const struct znp_map_ctx *c, const char *arg,
		   const struct znp_map_export_req *r, struct znp_map_export_done *out,
		   struct znp_map_err *e);

/**
 * znp_map_unexport() - remove the subsystem that exports the mapping @arg
 * names: its port links first, then the namespace, then the subsystem
 * (ports stay). With c->persist the export file goes too (a mapping not
 * exported then only loses its file; a symbolic link there is refused
 * before anything is removed). Return: 0 or a negative errno with @e.
 */
int znp_map_unexport(const struct znp_map_ctx *c, const char *arg,
		     struct znp_map_export_done *out, struct znp_map_err *e);

/* The NQN of the subsystem whose namespace is @device. Return: 0, -ENOENT none, or -errno. */
int znp_map_export_holder(const struct znp_map_ctx *c, const char *device, char *nqn,
			  size_t size);

/* ---- one interface for both routes ----------------------------------------- */

/* A mapping found by what names it, on either route. */
struct znp_map_found {
	const struct znp_map_route *route;
	char name[ZNP_DM_NAME_MAX];	/* dm: the device-mapper name */
	struct znp_map_ublk_found ublk;	/* ublk: its record and health */
};

/* What a removal did. */
struct znp_map_removed {
	char name[ZNP_DM_NAME_MAX];	/* the mapping's name (ublk: or its device) */
	char backing[ZNP_DM_DEV_MAX];	/* what it mapped, "" unknown */
	bool deferred;			/* dm: removed at its last close */
	bool forgotten;			/* dropped from the mapping file */
	bool removed;			/* gone (or going), even if @e says the file was not updated */
};

/*
 * Drop a removed mapping's entry @ident from the mapping file c->config
 * (out->forgotten: it was there). Return: 0, or a negative errno with @e.
 */
int znp_map_forget(const struct znp_map_ctx *c, const char *ident, struct znp_map_removed *out,
		   struct znp_map_err *e);

/* A note a step gives on its way without stopping (on @subject). */
typedef void znp_map_warn_fn(const char *subject, const char *msg, void *arg);

/*
 * The steps of a mapping's life that both routes have, in one shape. The
 * making steps (plan, create, record, undo) are per route above: the dm
 * route does them in one process (znp_map_dm_plan(), znp_map_dm_create()),
 * the ublk route in its server (znp_map_ublk_plan(), _prepare() with
 * recovery, _serve()); both create, then record, then undo on failure.
 */
struct znp_map_route {
	const char *name;		/* "dm", "ublk" */
	enum znp_map_via via;
	/* may @dev be mapped this way? 0 or a negative errno with @e */
	int (*refuse)(const struct znp_map_ctx *c, const struct znp_dev *dev,
		      struct znp_map_err *e);
	/* the mapping @arg names: 1 found (@f), 0 not this route's, a negative errno with @e */
	int (*find)(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		    struct znp_map_err *e);
	/* the mapping serving namespace @dev, by its identity: 1 found (@f), 0 none,
	 * a negative errno with @e when that cannot be told */
	int (*serving)(const struct znp_map_ctx *c, const struct znp_dev *dev,
		       struct znp_map_found *f, struct znp_map_err *e);
	/* remove it (a dry run: the checks only); 0 or a negative errno with @e (subject out->name) */
	int (*remove)(const struct znp_map_ctx *c, const struct znp_map_found *f,
		      znp_map_warn_fn *warn, void *arg, struct znp_map_removed *out,
		      struct znp_map_err *e);
};

extern const struct znp_map_route znp_map_route_dm, znp_map_route_ublk;

/*
 * znp_map_find() - the mapping @arg names, on the route that has it: a ublk
 * mapping's record first, then device-mapper (whose refusal says why
 * nothing was found). Return: 0 with @f, or a negative errno with @e.
 */
int znp_map_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		 struct znp_map_err *e);

/*
 * znp_map_serving() - who serves the namespace @path: the one question every
 * command that writes zones or data asks before it sends anything. Asked of
 * both routes by the namespace's identity (NGUID, EUI-64 or serial and
 * NSID), whatever node names it: a ublk record whose device still exists
 * (alive, or quiesced for a next server), then a dm mapping of ours (its
 * UUID carries the identity; else one that holds the namespace's block
 * device). The device mapped itself (/dev/ublkbN, /dev/mapper/NAME) is
 * served by nobody. @path is opened without O_EXCL (a dm mapping holds the
 * block device) and closed again.
 * Return: 1 served (@f: znp_map_found_name(), znp_map_found_device()), 0 not
 * (also: @path cannot be opened; the caller's own open says why), or a
 * negative errno with @e when the ublk records cannot be read.
 */
int znp_map_serving(const struct znp_map_ctx *c, const char *path, struct znp_map_found *f,
		    struct znp_map_err *e);

/*
 * znp_map_claim() - znp_map_serving() kept true until the command ends:
 * the namespace's lock is taken shared (znp_ns_claim()) before the question
 * is asked, so no server starts on the namespace and no dm mapping of it is
 * made between the answer and the command's last NVMe command. Where the
 * lock is held exclusive and no mapping serves yet (a server starting, a dm
 * mapping being made) the claim is refused. Nothing is claimed for a
 * device without an identity, nor by a caller that cannot make the state
 * directory (not root: the servers and their locks are root's). A dry run
 * claims alike.
 * Return: 1 served (@f; nothing held), 0 not served (*@claim: the lock, or
 * -1; znp_map_unclaim() after the command), or a negative errno with @e
 * (-EBUSY: held by another process, named).
 */
int znp_map_claim(const struct znp_map_ctx *c, const char *path, struct znp_map_found *f,
		  int *claim, struct znp_map_err *e);
void znp_map_unclaim(int claim);

/* The name `unmap` takes for @f: the mapping's name (ublk: else its device, "ublkb0"). */
const char *znp_map_found_name(const struct znp_map_found *f);

/* The node @f serves: "/dev/ublkb0", "/dev/mapper/NAME". */
void znp_map_found_device(const struct znp_map_found *f, char *buf, size_t size);

#endif

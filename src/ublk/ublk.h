/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ublk server: presents a non-power-of-2 zoned NVMe namespace as a ublk
 * zoned block device (/dev/ublkbN) with power-of-2 zones, the dm-po2zone
 * layout (zone n starts at n * po2 zone size, its capacity is the
 * namespace's zone size, the rest of the po2 zone is padding), on an
 * unpatched kernel. The server talks to the namespace through its generic
 * char node (/dev/ngXnY) with io_uring NVMe passthrough.
 *
 * Core library rules: nothing here prints or exits; functions return 0,
 * -errno or a positive NVMe status; every refusal and every failed I/O is
 * reported through the caller's log callback.
 *
 * Needs: ublk_drv with UBLK_F_ZONED, UBLK_F_USER_COPY and
 * UBLK_F_USER_RECOVERY (Linux >= 6.6), and CAP_SYS_ADMIN.
 */
#ifndef ZNP_UBLK_H
#define ZNP_UBLK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dev.h"
#include "geometry.h"

/* Feature bits of ublk_drv (same values as the kernel's UBLK_F_*). */
#define ZNP_UBLK_F_SUPPORT_ZERO_COPY	(1ULL << 0)	/* offered from 6.15 */
#define ZNP_UBLK_F_USER_RECOVERY	(1ULL << 3)
#define ZNP_UBLK_F_CMD_IOCTL_ENCODE	(1ULL << 6)
#define ZNP_UBLK_F_USER_COPY		(1ULL << 7)
#define ZNP_UBLK_F_ZONED		(1ULL << 8)
#define ZNP_UBLK_F_AUTO_BUF_REG		(1ULL << 11)	/* 6.16; not for zoned devices */
#define ZNP_UBLK_F_QUIESCE		(1ULL << 12)	/* UBLK_U_CMD_QUIESCE_DEV */
#define ZNP_UBLK_F_SAFE_STOP_DEV	(1ULL << 17)	/* UBLK_U_CMD_TRY_STOP_DEV (7.x) */
#define ZNP_UBLK_F_NO_AUTO_PART_SCAN	(1ULL << 18)	/* no partition scan at START_DEV */
/* Asked for at ADD_DEV when the driver offers them (and used: see ublk-ctrl.c, ublk-run.c). */
#define ZNP_UBLK_F_OPTIONAL	(ZNP_UBLK_F_QUIESCE | ZNP_UBLK_F_NO_AUTO_PART_SCAN)
#define ZNP_UBLK_F_NEEDED	(ZNP_UBLK_F_ZONED | ZNP_UBLK_F_USER_COPY | ZNP_UBLK_F_USER_RECOVERY)

/* Device states (the kernel's UBLK_S_DEV_*). */
#define ZNP_UBLK_S_DEAD		0
#define ZNP_UBLK_S_LIVE		1
#define ZNP_UBLK_S_QUIESCED	2

#define ZNP_UBLK_MAX_QUEUES	64
#define ZNP_UBLK_MAX_DEPTH	1024
#define ZNP_UBLK_DEF_DEPTH	64

/**
 * znp_ublk_probe() - is the zoned ublk route open on this kernel?
 * @features: out (may be NULL), the driver's feature mask (UBLK_U_CMD_GET_FEATURES)
 *
 * Return: 0 when /dev/ublk-control answers and the mask has every bit of
 * ZNP_UBLK_F_NEEDED; -ENOENT no control node (ublk_drv not loaded or not
 * built), -EACCES / -EPERM no access to it, -EOPNOTSUPP the driver lacks
 * zoned devices, user copy or user recovery (*@features still set), or
 * another -errno.
 */
int znp_ublk_probe(uint64_t *features);

/* Geometry of a ublk mapping; ublk quantities are 512-byte sectors. */
struct znp_ublk_geom {
	struct znp_geom ns;		/* the namespace (LBAs), as probed */
	uint32_t lba_shift;		/* log2 of the namespace's LBA size (9..12) */
	uint64_t nr_zones;
	uint64_t zone_sectors;		/* po2 zone size: chunk_sectors */
	uint64_t zone_cap_sectors;	/* = namespace zone size (capacity) */
	uint64_t dev_sectors;		/* nr_zones * zone_sectors */
	uint32_t max_open;		/* 0 = no limit (Identify MOR + 1) */
	uint32_t max_active;		/* 0 = no limit (Identify MAR + 1) */
	uint32_t max_append_sectors;	/* min(ZASL, MDTS, passthrough limit) */
	uint32_t max_cmd_sectors;	/* one NVMe command: min(MDTS, passthrough limit) */
	uint32_t max_sectors;		/* ublk request limit: whole commands up to 256 KiB,
					 * or more so that one report request holds every
					 * zone (nr_zones / 8) */
	bool volatile_cache;		/* Identify Controller VWC (the probe's) */
};

/**
 * znp_ublk_geom_from_dev() - ublk geometry of a probed zoned namespace
 * @ns: an NVMe namespace opened with ZNP_OPEN_WRITE and probed with
 *      ZNP_PROBE_FULL_CAP (so zone_cap_varies covers every zone)
 * @g: out
 * @why: on failure, a static one-line reason without the device name
 *
 * Sends ZNS Identify Controller (ZASL) and nothing that changes anything;
 * the volatile write cache comes from the probe's Identify Controller
 * (@ns->geom.vwc). A po2 zone size is accepted (zero padding: useful for tests);
 * callers refuse it for users. Refused: not NVMe (-ENODEV), not zoned
 * (-EMEDIUMTYPE), capacity != zone size, varying capacities, a small last
 * zone or an LBA format with metadata or protection information (-EINVAL), an LBA size outside 512..4096, a po2 zone of 2^32 sectors
 * or more, too many zones for one report request (-E2BIG).
 * Return: 0, -errno or a positive NVMe status.
 */
int znp_ublk_geom_from_dev(struct znp_dev *ns, struct znp_ublk_geom *g, const char **why);

/* Log priorities: syslog's LOG_ERR / LOG_WARNING / LOG_NOTICE / LOG_INFO / LOG_DEBUG. */
typedef void znp_ublk_log_fn(void *arg, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * znp_ublk_default_queues() - how many queues a device gets unless asked
 *
 * One per CPU the calling process may run on (its affinity), at most
 * ZNP_UBLK_MAX_QUEUES; the driver lowers it to the CPUs it knows, and
 * blk-mq gives each queue its CPUs (GET_QUEUE_AFFINITY), where the queue's
 * thread is pinned.
 *
 * Return: the number of queues, at least 1.
 */
unsigned int znp_ublk_default_queues(void);

struct znp_ublk_opts {
	int dev_id;			/* -1: the kernel picks */
	unsigned int nr_queues;		/* 0: znp_ublk_default_queues() */
	unsigned int queue_depth;	/* 0: ZNP_UBLK_DEF_DEPTH */
	int journal_fd;			/* append journal (a 0600 file under the run-time
					 * state directory), -1 none: see src/ublk/README.md */
	znp_ublk_log_fn *log;		/* NULL: silent */
	void *log_arg;
	/* the namespace's geometry from znp_ublk_geom_from_dev(), NULL: computed
	 * here (one more Identify Controller) */
	const struct znp_ublk_geom *geom;
	/* move data by user copy even where the driver offers zero copy (a
	 * benchmark's baseline) */
	bool user_copy;
};

struct znp_ublk_server;

/**
 * znp_ublk_server_create() - ADD_DEV + SET_PARAMS for a new device
 * @ns: probed namespace (see znp_ublk_geom_from_dev()); the server keeps
 *      using @ns->fd, so @ns must stay open until znp_ublk_server_free()
 * @o: options
 * @out: the server, not yet serving (znp_ublk_server_run())
 *
 * The device is added with UBLK_F_ZONED | UBLK_F_USER_COPY |
 * UBLK_F_USER_RECOVERY | UBLK_F_USER_RECOVERY_REISSUE: the driver sends the
 * requests a dead server had taken to the next one, which reconciles a
 * reissued write or append with the zone's write pointer and the append
 * journal so that none is applied twice (src/ublk/README.md); and
 * UBLK_F_SUPPORT_ZERO_COPY where the driver offers it and @o->user_copy is
 * false. On failure nothing is left behind (the device is deleted).
 * Return: 0, -errno (refusals logged) or a positive NVMe status.
 */
int znp_ublk_server_create(struct znp_dev *ns, const struct znp_ublk_opts *o,
			   struct znp_ublk_server **out);

/**
 * znp_ublk_server_recover() - take back device @dev_id after its server died
 *
 * GET_DEV_INFO (must be QUIESCED, with our flags and the namespace's
 * fingerprint; a device whose server just died is waited for, up to its
 * request timeout + 15 s and at least 30 s), GET_PARAMS (must match the
 * geometry of @ns: same namespace shape), the append journal. Nothing is
 * changed yet: znp_ublk_server_run() sends START_USER_RECOVERY once
 * everything that may fail is set up, and from there on retries rather
 * than leaves until every tag is fetched.
 * Return: 0, -ENODEV no such device, -EBUSY not quiesced (alive, or not
 * recoverable), -EINVAL parameters differ from @ns, or another -errno.
 */
int znp_ublk_server_recover(struct znp_dev *ns, int dev_id, const struct znp_ublk_opts *o,
			    struct znp_ublk_server **out);

int znp_ublk_server_dev_id(const struct znp_ublk_server *s);
/* The number of queues the device has (the kernel's, after ADD_DEV or recovery). */
unsigned int znp_ublk_server_nr_queues(const struct znp_ublk_server *s);
const struct znp_ublk_geom *znp_ublk_server_geom(const struct znp_ublk_server *s);

/**
 * znp_ublk_server_run() - serve the device until it is stopped
 * @ready: called once (from the calling thread) when /dev/ublkb<id> is live,
 *         after START_DEV or END_USER_RECOVERY; may be NULL
 *
 * Sets up the queues, then (recovered device) START_USER_RECOVERY, starts
 * one thread and one io_uring per queue, then START_DEV (new device) or
 * END_USER_RECOVERY (recovered device). While START_DEV runs every request
 * is answered, with an error where it would otherwise be left to the next
 * server (namespace gone, no path), so that a start fails instead of
 * hanging in the driver. Returns after
 * znp_ublk_server_stop() or after STOP_DEV / DEL_DEV from outside, with
 * every queue thread joined. On znp_ublk_server_stop() a device proven
 * unused (znp_blk_prove_unused()) is written back and stopped (STOP_DEV);
 * any other is never removed: the server logs why, finishes the requests
 * it started (where the device has UBLK_F_QUIESCE, after QUIESCE_DEV: every
 * request it was given) and leaves it quiesced for the next server
 * (znp_ublk_server_parked() is then true), so a restart is invisible to
 * its users.
 * Return: 0 on a clean stop, -errno on failure.
 */
int znp_ublk_server_run(struct znp_ublk_server *s, void (*ready)(void *arg, int dev_id),
			void *arg);

/* Ask run() to stop the device and return; async-signal-safe (an eventfd write). */
void znp_ublk_server_stop(struct znp_ublk_server *s);

/* After run(): the device was in use and is left quiesced for the next server. */
bool znp_ublk_server_parked(const struct znp_ublk_server *s);

/*
 * Frees the server. The device is deleted (DEL_DEV) when run() stopped it
 * after znp_ublk_server_stop(), or when it was created by this server and
 * never started; after STOP_DEV from outside, or a failed recovery, it is
 * left to whoever stopped it (or to the next recovery).
 */
void znp_ublk_server_free(struct znp_ublk_server *s);

/* Control helpers (no server needed), for status and unmap. */
struct znp_ublk_info {
	int dev_id;
	int state;			/* ZNP_UBLK_S_* */
	pid_t srv_pid;			/* the kernel's record of the server, -1 none */
	uint64_t flags;			/* ZNP_UBLK_F_* the device was added with */
	uint64_t srv_flags;		/* ublksrv_flags: this server's fingerprint */
	uint16_t nr_queues;
	uint16_t queue_depth;
	uint32_t max_io_buf_bytes;
};

/* GET_DEV_INFO. Return: 0, -ENODEV (no such device), -errno. */
int znp_ublk_dev_info(int dev_id, struct znp_ublk_info *info);
/*
 * TRY_STOP_DEV (ZNP_UBLK_F_SAFE_STOP_DEV): removes /dev/ublkb<id> only if
 * nobody has it open, in-kernel openers included (a mount, a loop device, an
 * nvmet export), checked by the driver under the disk's open lock; a
 * short-lived opener (udev's probe) is waited for up to @wait_ms.
 * Return: 0, -EBUSY (in use: nothing changed), -EOPNOTSUPP (the driver has
 * no TRY_STOP_DEV), -ENODEV, -errno.
 */
int znp_ublk_dev_try_stop(int dev_id, unsigned int wait_ms);
/*
 * The names of the ZNP_UBLK_F_* bits of @flags this server knows, space
 * separated, in @buf (unknown bits as one hex mask). Return: @buf.
 */
const char *znp_ublk_flag_names(uint64_t flags, char *buf, size_t size);

/*
 * The fingerprint a server of namespace @ns with geometry @g stores in its
 * device (ublksrv_flags): the namespace's identity and geometry. Record it
 * with the device id; never 0.
 */
uint64_t znp_ublk_ns_fingerprint(const struct znp_dev *ns, const struct znp_ublk_geom *g);

/**
 * znp_ublk_dev_is_ours() - is ublk device @dev_id the one recorded with
 * @fingerprint? A device id is reused once its device is deleted: another
 * program's device may carry it now.
 * @info: out, GET_DEV_INFO's answer (for the reason of a refusal)
 * Return: 0 ours (this server's flags, not unprivileged, the same
 * fingerprint); -EPERM another program's device (or another namespace's);
 * -ENODEV no such device; -errno.
 */
int znp_ublk_dev_is_ours(int dev_id, uint64_t fingerprint, struct znp_ublk_info *info);
/*
 * STOP_DEV: removes /dev/ublkb<id> (waits for in-flight I/O), only after
 * znp_ublk_dev_is_ours(): -EPERM (nothing sent) for a device that is not.
 */
int znp_ublk_dev_stop(int dev_id, uint64_t fingerprint);
/*
 * DEL_DEV: blocks until every opener of ublkc/ublkb<id> is gone; only
 * after znp_ublk_dev_is_ours(): -EPERM (nothing sent) for a device that
 * is not (DEL_DEV would wait on another program's server).
 */
int znp_ublk_dev_del(int dev_id, uint64_t fingerprint);

#endif

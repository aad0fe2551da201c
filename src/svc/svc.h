/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The life of ublk mappings around the server (src/ublk/): the run-time
 * state directory, one record per served namespace, the per-namespace lock,
 * health, and whether the running kernel offers the ublk route at all.
 *
 * State lives only under ZNP_RUN_DIR (mode 0700, owned by the caller, never
 * reached through a symbolic link). For a namespace with identity IDENT
 * (znp_ident_from_ns()) there are two files, named by znp_svc_key(IDENT):
 *   <key>.lock  flock()ed by the one server serving the namespace (0600;
 *               the lock protocol of statefile.h: removed only by a holder)
 *   <key>.ublk  its record (struct znp_ublk_rec, "key=value" lines, 0600,
 *               replaced atomically)
 * Every file is opened O_NOFOLLOW | O_CLOEXEC relative to the directory.
 *
 * Core library rules: nothing here prints or exits; 0 or -errno.
 */
#ifndef ZNP_SVC_H
#define ZNP_SVC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dev.h"	/* ZNP_IDENT_MAX, ZNP_DM_NAME_MAX */

#define ZNP_RUN_DIR "/run/zns-npo2"

/* a key is at most 3 bytes per identity byte */
#define ZNP_SVC_KEY_MAX	(3 * ZNP_IDENT_MAX + 1)

/**
 * znp_run_dir_open() - open (and with @create make) the state directory
 * @path: ZNP_RUN_DIR, or a test directory
 * @create: mkdir it with mode 0700 when missing (the parent must exist)
 *
 * Refused: a symbolic link (-ELOOP), not a directory (-ENOTDIR), owned by
 * another user or with any group/other permission bit (-EPERM): another
 * user could plant records or locks there.
 * Return: a directory file descriptor (O_DIRECTORY | O_CLOEXEC) or -errno.
 */
int znp_run_dir_open(const char *path, bool create);

/**
 * znp_svc_key() - file name stem for @ident: bytes outside [A-Za-z0-9.-]
 * become "_XX" (hex), so distinct identities give distinct keys.
 * Return: 0, -EINVAL (empty @ident) or -ENAMETOOLONG.
 */
int znp_svc_key(const char *ident, char *buf, size_t size);

/**
 * znp_unit_escape() - @s as a systemd unit name instance, escaped exactly as
 * `systemd-escape` does: bytes outside [A-Za-z0-9:_.] (and a leading '.')
 * become "\xNN", '/' becomes '-'. The unit gets @s back with the %I
 * specifier (zns-npo2-ublk@.service).
 * Return: 0, -EINVAL (empty @s) or -ENAMETOOLONG.
 */
int znp_unit_escape(const char *s, char *buf, size_t size);

/* ---- the per-namespace lock ------------------------------------------- */

/**
 * znp_ns_lock() - take the namespace's lock without waiting
 * @dirfd: the state directory
 * @lockfd: out, keep it open while serving (the lock goes with the last
 *          descriptor of its open file: it survives fork(), it dies with a
 *          SIGKILLed server)
 *
 * The lock protocol of statefile.h: the lock file is 0600, and after the
 * flock() its inode is compared with the name's, so a lock file removed by
 * znp_ublk_forget() meanwhile is never the one locked (no second server
 * on the namespace).
 * Return: 0, -EBUSY when another server holds it, or -errno.
 */
int znp_ns_lock(int dirfd, const char *ident, int *lockfd);
void znp_ns_unlock(int lockfd);

/**
 * znp_ns_claim() - the namespace's lock taken shared, without waiting: the
 * claim of a command that sends zone or data commands to the namespace
 * itself. Claims go beside each other; a server holds the lock exclusive
 * from before ADD_DEV to its end and a dm mapping being made holds it while
 * it is made, so neither starts while a command has it, nor a command while
 * they do. Return: 0 (@lockfd, znp_ns_unlock()), -EBUSY (held exclusive), or
 * -errno.
 */
int znp_ns_claim(int dirfd, const char *ident, int *lockfd);

/*
 * znp_ns_lock_holder() - the process that holds the namespace's lock (one of
 * them, for a shared one), from @locks ("/proc/locks").
 * Return: its pid, 0 none listed, or -errno.
 */
pid_t znp_ns_lock_holder(int dirfd, const char *ident, const char *locks);

/**
 * znp_ns_lock_held() - does someone hold the namespace's lock?
 * Return: 1 held, 0 free (or no lock file), -errno.
 */
int znp_ns_lock_held(int dirfd, const char *ident);

/* ---- records ---------------------------------------------------------- */

struct znp_ublk_rec {
	char ident[ZNP_IDENT_MAX];	/* backing namespace identity */
	char ng[32];			/* its ng node when mapped ("ng0n1"; changes at boot) */
	char name[ZNP_DM_NAME_MAX];	/* mapping name (--name, --persist), "" if none */
	uint32_t nsid;
	int dev_id;			/* ublk device id: /dev/ublkb<dev_id> */
	pid_t pid;			/* server process */
	uint32_t lba_size;		/* bytes */
	uint64_t zone_size;		/* namespace LBAs */
	uint64_t zone_cap;		/* namespace LBAs */
	uint64_t nr_zones;
	uint64_t po2_zone_sectors;	/* ublk zone size, 512-byte sectors */
	bool persist;			/* recorded in the mapping file too */
	uint64_t started;		/* seconds since the epoch */
	uint64_t pid_start;		/* @pid's start (/proc/PID/stat field 22), 0 unknown */
	uint64_t fingerprint;		/* the device's ublksrv_flags (namespace identity and
					 * geometry), 0 unknown: see znp_ublk_dev_is_ours() */
};

/* "key=value\n" lines. Return: 0, -EINVAL (bad record) or -ENAMETOOLONG. */
int znp_ublk_rec_format(char *buf, size_t size, const struct znp_ublk_rec *r);
/*
 * Parse what znp_ublk_rec_format() wrote; unknown keys are ignored, a
 * missing ident/dev_id/pid or a malformed value is an error (*@why says which).
 * Return: 0 or -EBADMSG.
 */
int znp_ublk_rec_parse(const char *buf, size_t len, struct znp_ublk_rec *r,
		       const char **why);

/*
 * Atomically write @r as <key>.ublk, mode 0600 (znp_file_replace()). When
 * @r->pid is the caller and @r->pid_start is 0, the caller's start time is
 * recorded. Return: 0 or -errno.
 */
int znp_ublk_rec_put(int dirfd, const struct znp_ublk_rec *r);
/* Return: 0, -ENOENT (none), -EBADMSG, or -errno. */
int znp_ublk_rec_get(int dirfd, const char *ident, struct znp_ublk_rec *r);
/*
 * Remove the record and the journal (its server, which holds the lock); the
 * lock file stays.
 * Return: 0 or -errno (-ENOENT: none).
 */
int znp_ublk_rec_drop(int dirfd, const char *ident);
/*
 * Remove the record, the journal and the lock file of a namespace no server holds
 * (unmap): the lock is taken first, so nothing is removed under a server
 * that still holds it, hung or not. Return: 0, -EBUSY (held: nothing
 * removed), -ENOENT (no record), or -errno.
 */
int znp_ublk_forget(int dirfd, const char *ident);

/**
 * znp_ublk_server_pidfd() - a pidfd of the record's server, if it is still it
 * @proc: "/proc" (or a test tree)
 *
 * The pid of a record may be stale (the server died, the pid was reused):
 * the process is pinned with pidfd_open() and its start time compared
 * with the recorded one, so a signal sent through the pidfd
 * (znp_pidfd_signal()) reaches the recorded server or nothing.
 * Return: 0 and *@pidfd, -ENODATA (no start time recorded), -ESRCH (gone),
 * -ESTALE (the pid is another process now), or -errno.
 */
int znp_ublk_server_pidfd(const char *proc, const struct znp_ublk_rec *r, int *pidfd);
/* pidfd_send_signal(). Return: 0 or -errno (-ESRCH: it has exited). */
int znp_pidfd_signal(int pidfd, int sig);

/*
 * znp_ublk_journal_open() - the append journal of the namespace's server
 * (<key>.journal, 0600, never through a symbolic link): see src/ublk/README.md.
 * Dropped with the record. Return: a descriptor or -errno.
 */
int znp_ublk_journal_open(int dirfd, const char *ident);

/**
 * znp_ublk_rec_each() - every record in the directory, in name order
 * @cb: called with the record, or with @r NULL and @why set for a file that
 *      does not parse (@file names it); a non-zero return stops and is returned
 * Return: 0, what @cb returned, or -errno.
 */
int znp_ublk_rec_each(int dirfd,
		      int (*cb)(const struct znp_ublk_rec *r, const char *file,
				const char *why, void *arg),
		      void *arg);

/* ---- health ----------------------------------------------------------- */

enum znp_ublk_health {
	ZNP_UBLK_ALIVE,		/* the server holds the lock, the device exists */
	ZNP_UBLK_DEAD_QUIESCED,	/* server gone, block device kept: `map --ublk` takes it back */
	ZNP_UBLK_DEAD,		/* server gone, device exists without its disk */
	ZNP_UBLK_MISSING,	/* no such ublk device any more: a stale record */
	ZNP_UBLK_STARTING,	/* the lock is held, the device is not there yet */
};

/* ublk device states as GET_DEV_INFO reports them (UBLK_S_DEV_*) */
#define ZNP_SVC_S_DEAD		0
#define ZNP_SVC_S_LIVE		1
#define ZNP_SVC_S_QUIESCED	2
#define ZNP_SVC_S_UNKNOWN	(-1)

struct znp_ublk_presence {
	bool cdev;		/* /sys/class/ublk-char/ublkc<N>: ADD_DEV done, no DEL_DEV */
	bool disk;		/* /sys/block/ublkb<N>: START_DEV done, no STOP_DEV */
	int state;		/* ZNP_SVC_S_*, ZNP_SVC_S_UNKNOWN without GET_DEV_INFO */
};

/* Pure. */
enum znp_ublk_health znp_ublk_health(bool lock_held, const struct znp_ublk_presence *pr);
const char *znp_ublk_health_name(enum znp_ublk_health h);	/* "alive", "dead-quiesced", ... */

/**
 * znp_ublk_presence() - look up ublk device @dev_id in sysfs (no privilege
 * needed); @pr->state is left ZNP_SVC_S_UNKNOWN.
 * @sysfs_root: NULL for /sys
 */
void znp_ublk_presence(const char *sysfs_root, int dev_id, struct znp_ublk_presence *pr);

/* ---- is the ublk route open on this kernel? ---------------------------- */

/* Feature bits of the ublk driver (UAPI UBLK_F_*, stable numbers). */
#define ZNP_ROUTE_F_USER_RECOVERY	(1ULL << 3)
#define ZNP_ROUTE_F_USER_COPY		(1ULL << 7)
#define ZNP_ROUTE_F_ZONED		(1ULL << 8)
/* zoned devices need user copy (6.12); restart after SIGKILL needs user recovery */
#define ZNP_ROUTE_F_NEEDED	(ZNP_ROUTE_F_ZONED | ZNP_ROUTE_F_USER_COPY | \
				 ZNP_ROUTE_F_USER_RECOVERY)

enum znp_ublk_route {
	ZNP_ROUTE_ABSENT,	/* no ublk driver: neither loaded nor installed */
	ZNP_ROUTE_OPEN,		/* /dev/ublk-control, features zoned + user copy */
	ZNP_ROUTE_LOADABLE,	/* ublk_drv installed, not loaded (`map --ublk` loads it) */
	ZNP_ROUTE_UNVERIFIED,	/* control node present, features not readable (not root) */
	ZNP_ROUTE_NO_ZONED,	/* driver lacks zoned devices, user copy or user recovery */
};

struct znp_ublk_route_info {
	enum znp_ublk_route route;
	uint64_t features;	/* valid when probe_ret == 0 */
	int probe_ret;		/* of the feature probe; 1: not probed */
};

/*
 * Pure decision. @ctl: the control node exists (a char device); @module:
 * ublk_drv is installed for the running kernel (modules.dep/builtin);
 * @probe_ret/@features: GET_FEATURES result (1 = not asked; -EOPNOTSUPP
 * with @features set = answered, bits missing; -ENOENT = no control node).
 */
enum znp_ublk_route znp_ublk_route_decide(bool ctl, bool module, int probe_ret,
					  uint64_t features);
const char *znp_ublk_route_name(enum znp_ublk_route r);	/* "open", "loadable", ... */
bool znp_ublk_route_usable(enum znp_ublk_route r);	/* open, loadable or unverified */

/* Does modules.dep or modules.builtin in @modules_dir list ublk_drv? */
bool znp_ublk_module_installed(const char *modules_dir);

/**
 * znp_ublk_route() - look at the running kernel
 * @ctl_path: "/dev/ublk-control" (or a test tree's)
 * @modules_dir: "/lib/modules/<release>", or NULL not to look
 * @probe: GET_FEATURES (the server core's znp_ublk_probe()), NULL if none
 */
void znp_ublk_route(const char *ctl_path, const char *modules_dir,
		    int (*probe)(uint64_t *features), struct znp_ublk_route_info *out);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state-file toolkit every room that keeps files uses (the mapping file
 * in dm/, the ublk records and namespace locks in svc/): one atomic
 * replace, one lock protocol, and the process facts a record needs to be
 * trusted later. Files are named relative to a directory descriptor and
 * never reached through a symbolic link.
 *
 * The lock protocol: a lock file is created 0600, flock()ed without
 * blocking (retried until a deadline), and after the flock its inode is
 * compared with what the name points to now: a file unlinked or replaced
 * between open and flock is let go and the name opened again. So a lock
 * file may be unlinked only by a process that holds its lock, and a lock
 * taken is always on the file every other process finds.
 *
 * Records: a state file is lines of "key=value" fields (the ublk records
 * one per line, the mapping file after a name and an identity); one field
 * splitter and one number parser (znp_dec_u64()) read them all.
 *
 * Core library rules: nothing here prints or exits; 0 or -errno.
 */
#ifndef ZNP_STATEFILE_H
#define ZNP_STATEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * znp_file_replace() - atomically replace @name in @dirfd with @len bytes
 * @mode: of the new file (the temporary is created 0600 and set to @mode
 *        before the rename)
 *
 * The temporary (".<name>.<random>") is opened O_CREAT | O_EXCL | O_NOFOLLOW:
 * a file or symbolic link planted at its name is never opened, written or
 * removed (another random name is tried). Written in full, fsync()ed,
 * renamed over @name, then the directory is fsync()ed so the rename itself
 * is durable. On failure @name is untouched and the temporary removed.
 * Return: 0 or -errno.
 */
int znp_file_replace(int dirfd, const char *name, const void *buf, size_t len, mode_t mode);

/* An output file a command writes (zonemap --svg): its temporary until znp_out_commit(). */
struct znp_outfile {
	int dirfd;			/* the directory of the resolved target */
	int fd;				/* the temporary, open for writing */
	char name[256];			/* the target's name in @dirfd */
	char tmp[256];			/* the temporary's */
	mode_t found;			/* -EEXIST: the file type found at the target */
};

/**
 * znp_out_open() - begin writing the output file @path: the one helper of
 * every command that writes a file the user names
 * @mode: of a new file (the umask applies)
 *
 * A symbolic link @path is resolved once (realpath), and the file is made
 * beside what it points to; nothing below it is followed again. A target
 * that exists and is not a regular file (device node, FIFO, socket,
 * directory) is refused: -EEXIST with @of->found its type (S_IFMT). The
 * temporary is created O_CREAT | O_EXCL | O_NOFOLLOW beside the target and
 * takes an existing target's owner and mode (fchown, fchmod) before anything
 * is written; -EPERM when the owner cannot be kept.
 * Return: 0 (write to @of->fd, then znp_out_commit()), or -errno with
 * nothing left behind.
 */
int znp_out_open(const char *path, mode_t mode, struct znp_outfile *of);

/**
 * znp_out_commit() - @keep: fsync the temporary and rename it over the
 * target (which must still be a regular file or absent: -EEXIST), else
 * remove it. Closes the directory, not @of->fd (the caller's stream may own
 * it). Return: 0 or -errno (the temporary removed).
 */
int znp_out_commit(struct znp_outfile *of, bool keep);

/**
 * znp_lock_take() - take the exclusive lock on lock file @name in @dirfd
 * @wait_ms: how long to retry while another process holds it (0: once)
 * @fd: out, the lock (the open file); keep it open to keep the lock
 *
 * The file is created 0600 when missing; an existing one must be a regular
 * file owned by the caller (-EPERM otherwise: another user could hold it),
 * and group/other permission bits of an old one are cleared.
 * Return: 0, -EBUSY (still held after @wait_ms), -ELOOP (a symbolic link),
 * or -errno.
 */
int znp_lock_take(int dirfd, const char *name, unsigned int wait_ms, int *fd);

/**
 * znp_lock_share() - znp_lock_take(), the lock shared: any number of
 * holders of the shared lock, none while one holds it exclusive (-EBUSY
 * after @wait_ms). The file's rules and the inode re-check are the same.
 */
int znp_lock_share(int dirfd, const char *name, unsigned int wait_ms, int *fd);

/**
 * znp_lock_unlink() - remove lock file @name, whose lock @fd the caller holds
 *
 * Only when @name still is the file @fd locks (nothing else to remove).
 * Processes waiting on the old file find it gone after their flock and
 * open the name again. Return: 0 or -errno.
 */
int znp_lock_unlink(int dirfd, const char *name, int fd);

/**
 * znp_lock_holder() - the process holding a flock() on @name in @dirfd
 * @locks: "/proc/locks" (or a test file)
 * Return: its pid, 0 when no holder is listed, or -errno.
 */
pid_t znp_lock_holder(int dirfd, const char *name, const char *locks);

/**
 * znp_proc_start() - when process @pid started (field 22 of /proc/PID/stat:
 * clock ticks after boot); a recycled pid has a later one
 * @proc: "/proc" (or a test tree)
 * Return: 0, -ESRCH (no such process), or -errno.
 */
int znp_proc_start(const char *proc, pid_t pid, uint64_t *ticks);

/* Pure: the start time from the text of a /proc/PID/stat. Return: 0 or -EBADMSG. */
int znp_proc_stat_start(const char *stat, uint64_t *ticks);

/* One "key=value" field of a record: pointers into the text, not terminated. */
struct znp_kv {
	const char *key, *val;
	size_t klen, vlen;
};

/**
 * znp_kv_split() - split the field [@s, @s + @n) at its first '='
 * Return: true with @kv set (key and value may be empty), false without '='.
 */
bool znp_kv_split(const char *s, size_t n, struct znp_kv *kv);
/* Is @kv's key @key? */
bool znp_kv_is(const struct znp_kv *kv, const char *key);
/* @kv's value as a decimal number (znp_dec_u64()). Return: 0, -EINVAL, -ERANGE. */
int znp_kv_u64(const struct znp_kv *kv, uint64_t *v);
/* @kv's value copied into @dst (@size bytes, terminated). Return: 0 or -ENAMETOOLONG. */
int znp_kv_str(const struct znp_kv *kv, char *dst, size_t size);

/* Longest line of a one-field-per-line record, with its NUL. */
#define ZNP_RECORD_LINE_MAX	512

/**
 * znp_record_next() - the next "key=value" line of a record (@buf, @len
 * bytes, need not be NUL-terminated) from *@off, through znp_line_next()
 *
 * Blank lines and lines starting with '#' are skipped.
 * Return: 1 with @kv set, 0 at the end, or -EBADMSG with *@why set ("NUL
 * byte", "line too long": ZNP_RECORD_LINE_MAX bytes or more, "line without
 * '='").
 */
int znp_record_next(const char *buf, size_t len, size_t *off, struct znp_kv *kv,
		    const char **why);

#endif

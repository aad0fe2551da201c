/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to src/ublk/: the server's state, shared by control and queues. */
#ifndef ZNP_UBLK_PRIV_H
#define ZNP_UBLK_PRIV_H

#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <syslog.h>

/*
 * The zns-npo2 build generates ublk_cmd.h (scripts/ublk-uapi.sh: the system's
 * header when it is new enough, else the 6.12 kernel source's); a build
 * without that step (nvme-cli's, from the upstream plugin patch) uses the
 * system's header, checked below.
 */
#if __has_include("ublk_cmd.h")
#include "ublk_cmd.h"
#else
#include <linux/ublk_cmd.h>
#endif
#include "ublk-map.h"
#include "ublk-uapi-ext.h"

#if !defined(UBLK_F_ZONED) || !defined(UBLK_U_CMD_GET_FEATURES) || !defined(UBLK_IO_OP_REPORT_ZONES)
#error "ublk_cmd.h lacks the zoned ublk UAPI (Linux >= 6.6 needed)"
#endif
/*
 * 7.x additions, absent from the 6.12 header the build takes
 * (scripts/ublk-uapi.sh); values from Linux 7.3's include/uapi/linux/ublk_cmd.h.
 */
#ifndef UBLK_U_CMD_QUIESCE_DEV
#define UBLK_U_CMD_QUIESCE_DEV		_IOWR('u', 0x16, struct ublksrv_ctrl_cmd)
#endif
#ifndef UBLK_U_CMD_TRY_STOP_DEV
#define UBLK_U_CMD_TRY_STOP_DEV		_IOWR('u', 0x17, struct ublksrv_ctrl_cmd)
#endif
#ifndef UBLK_F_QUIESCE
#define UBLK_F_QUIESCE			(1ULL << 12)
#endif
#ifndef UBLK_F_SAFE_STOP_DEV
#define UBLK_F_SAFE_STOP_DEV		(1ULL << 17)
#endif
#ifndef UBLK_F_NO_AUTO_PART_SCAN
#define UBLK_F_NO_AUTO_PART_SCAN	(1ULL << 18)
#endif
_Static_assert(UBLK_F_QUIESCE == ZNP_UBLK_F_QUIESCE, "ublk feature bits differ from the kernel's");
_Static_assert(UBLK_F_SAFE_STOP_DEV == ZNP_UBLK_F_SAFE_STOP_DEV,
	       "ublk feature bits differ from the kernel's");
_Static_assert(UBLK_F_NO_AUTO_PART_SCAN == ZNP_UBLK_F_NO_AUTO_PART_SCAN,
	       "ublk feature bits differ from the kernel's");
/* one assert per bit: checkpatch reads "A == B &&" as a constant on the left */
_Static_assert(UBLK_F_ZONED == ZNP_UBLK_F_ZONED, "ublk feature bits differ from the kernel's");
_Static_assert(UBLK_F_USER_COPY == ZNP_UBLK_F_USER_COPY, "ublk feature bits differ from the kernel's");
_Static_assert(UBLK_F_USER_RECOVERY == ZNP_UBLK_F_USER_RECOVERY,
	       "ublk feature bits differ from the kernel's");
_Static_assert(UBLK_F_CMD_IOCTL_ENCODE == ZNP_UBLK_F_CMD_IOCTL_ENCODE,
	       "ublk feature bits differ from the kernel's");
_Static_assert(UBLK_S_DEV_QUIESCED == ZNP_UBLK_S_QUIESCED, "ublk states differ");

struct znp_ublk_queue;

#define ZNP_UBLK_LOG_LINE	512
#define ZNP_UBLK_LOG_RING	64

/* Where a tag's request is (ublk-io.c, ublk-reconcile.c). */
enum znp_ublk_stage {
	ZNP_ST_IO,		/* its own NVMe commands */
	ZNP_ST_WP,		/* Zone Management Receive of its zone (write pointer) */
	ZNP_ST_VERIFY,		/* reading back what an earlier attempt may have written */
	ZNP_ST_FLUSH,		/* a FUA request done by read-back: Flush before its answer */
};

/*
 * The append journal (ublk-zone.c): per zone, the records inherited from
 * dead servers (slots 0..ZNP_UBLK_JSLOTS - 2) and this server's own (the
 * last slot: one append in flight per zone). A record's state word holds
 * its kind (low 8 bits) and a generation (the rest), so that a commit
 * clears only the record it answered.
 */
#define ZNP_UBLK_JSLOTS		8
#define ZNP_UBLK_J_INFLIGHT	1	/* sent or about to be: its request is unanswered */
#define ZNP_UBLK_J_COMMITTING	2	/* being answered: the request may be done */
#define ZNP_UBLK_J_KIND(st)	((st) & 0xffu)
#define ZNP_UBLK_J_GEN(st)	((st) >> 8)
struct znp_ublk_jent {
	uint32_t state;			/* kind | generation << 8 */
	uint32_t nlb;
	uint64_t lba;			/* relative to the zone start */
};

struct znp_ublk_zstate {
	uint64_t wp;			/* write pointer, LBAs from the zone start */
	bool wp_known;
	bool busy;			/* an append owns the zone */
	uint8_t ninh;			/* records inherited from a dead server */
	struct {
		uint64_t lba;
		uint32_t nlb;
		uint32_t misses;	/* reissued appends whose data did not match */
	} inh[ZNP_UBLK_JSLOTS - 1];
	struct znp_ublk_tag *wait_head, *wait_tail;
};

/* One ublk tag: the request being served and its progress. */
struct znp_ublk_tag {
	struct znp_ublk_queue *q;
	uint16_t tag;
	bool busy;			/* a request is being served */
	bool parked;			/* taken while parking: never started, left to
					 * the driver (requeued for the next server) */
	uint8_t op;
	uint32_t flags;			/* UBLK_IO_F_* */
	uint64_t sector;
	uint32_t nr_sectors;
	struct znp_ublk_ext ext;
	uint32_t next_lba;		/* LBAs sent so far, relative to ext.lba */
	uint32_t inflight;		/* NVMe commands in flight */
	int err;			/* first error of the pieces */
	uint64_t append_sector;
	/* reconciliation and retries (ublk-reconcile.c) */
	enum znp_ublk_stage stage;
	uint32_t piece_lba;		/* first LBA of the write piece in flight (rel. ext.lba) */
	uint32_t retries;
	uint32_t vfrom, vend;		/* LBAs (rel. ext.lba) being verified */
	void *vbuf;			/* read-back buffer, max_sectors * 512 bytes */
	uint8_t *zbuf;			/* one-zone report */
	/* zone appends (ublk-zone.c) */
	struct znp_ublk_tag *wait_next;
	bool owns_zone;
	bool restart;			/* a read piece failed transiently: read again */
	bool gone;			/* a piece met a namespace that is gone */
	/* a multipath head without a path (ublk-nopath.c) */
	bool nopath;			/* a command was refused for want of a path */
	uint32_t nopath_ms;		/* waited so far for a path */
	uint32_t nopath_step;		/* the last wait, ms */
	int nopath_res;			/* -EINVAL (no path), or the NVMe status that may
					 * mean a detach (Invalid Field) */
	struct __kernel_timespec ts;	/* the timer's (read when it is submitted) */
	bool commit_deferred;		/* its commit found no SQE free: sent next turn */
	uint64_t jzone;			/* zone + 1 whose append record goes (and which is
					 * handed on) once that commit is sent */
	uint32_t jgen;			/* generation of its own journal record, 0 none */
	uint64_t jlba;			/* ... and its LBA (rel. zone start) */
	int commit_res;
	uint64_t commit_addr;
	bool recon;			/* ZNP_ST_WP after a failed write piece */
	bool retry_same;		/* ... that may be sent again as it is */
	int inh;			/* inherited record being verified, -1 none */
	uint8_t backoff;		/* ZNP_RB_*: a retry waiting for its timer */
	int err_res;			/* the status a read's retry waits for */
	bool vmatched;			/* part of it was found on the drive by read-back */
	bool flushed;			/* ... and a Flush made that part durable */
	uint64_t tried[ZNP_UBLK_JSLOTS];	/* records already compared (their LBAs) */
	unsigned int ntried;
	uint64_t app_lba;		/* where the append goes, rel. zone start */
	uint64_t last_wp;		/* the drive's write pointer, last report, rel. zone start */
	/* REPORT_ZONES */
	/* user copy in flight (ublk-queue.c) */
	uint32_t copy_off, copy_end;	/* bytes of the request, done and wanted */
	bool copy_to_kernel;
	bool copying;
	uint32_t copied;		/* a write's bytes in buf (copied ahead, piece by piece) */
	uint32_t wpiece;		/* LBAs per write piece: the request in equal parts */
	bool held;			/* a write piece ended while the next one was copied */
	int held_res;			/* ... its NVMe result, handled once the copy is done */
	/* how its data moves (ublk-data.c) */
	bool zc;			/* zero copy: the NVMe commands use the request's
					 * pages, registered at ZNP_UBLK_ZC_INDEX() */
	bool zc_reg;			/* registered: unregistered before the commit */
	bool in_buf;			/* the request's data is in buf (zero copy: pulled
					 * by a user copy for a read-back) */
	bool pulling;			/* that user copy is in flight */
	uint64_t rep_idx0;		/* first zone */
	uint32_t rep_nr, rep_done;
	uint32_t rep_len;		/* bytes of the current Zone Management Receive */
	void *rep_buf;
	void *buf;			/* request data, max_sectors * 512 bytes */
};

struct znp_ublk_queue {
	struct znp_ublk_server *s;
	unsigned int qid;
	struct io_uring ring;
	bool ring_ok;
	const struct ublksrv_io_desc *iods;
	size_t iods_len;
	struct znp_ublk_tag *tags;
	struct znp_zone *scratch;	/* parsed descriptors of one ZMR */
	size_t scratch_n;
	unsigned int cmds;		/* ublk commands owned by the kernel */
	unsigned int nvme;		/* NVMe commands in flight */
	unsigned int copies;		/* user copies in flight */
	unsigned int timers;		/* tags waiting for a path (timeouts armed) */
	int cdev_fd, ns_fd;		/* for SQEs: indexes of registered files, or fds */
	uint8_t sqe_flags;		/* IOSQE_FIXED_FILE when the files are registered */
	bool fixed_bufs;		/* tag buffers registered (IORING_URING_CMD_FIXED) */
	bool zc;			/* zero copy: the buffer table has a free slot per
					 * tag for its request's pages (ublk-qsetup.c) */
	unsigned int bufcmds;		/* buffer (un)registrations in flight */
	bool err_logged_buf;		/* a refused (un)registration was logged */
	bool files_done;		/* register_files() ran (ublk-qsetup.c) */
	unsigned int ring_flags;	/* IORING_SETUP_* the kernel accepted */
	bool abandon;			/* start failed: drain NVMe commands, commit nothing */
	bool parking;			/* stop without STOP_DEV: finish what was started,
					 * start nothing new, then leave */
	bool quiesced;			/* ... after QUIESCE_DEV: serve every request given */
	unsigned int busy;		/* tags serving a request (started, not committed) */
	unsigned int deferred;		/* commits waiting for an SQE */
	bool gone;			/* the namespace went away: leave, for a restart */
	int ifd;			/* appends handed over by other queues (eventfd) */
	bool inbox_unarmed;		/* its poll found no SQE: armed at the next turn */
	bool pinned;			/* the ring failed with commands in flight: the tag
					 * buffers are never freed */
	struct znp_ublk_tag *inbox, *inbox_tail;	/* under s->zlock */
	cpu_set_t cpus;			/* where blk-mq maps the queue (GET_QUEUE_AFFINITY) */
	bool cpus_ok;
	pthread_t thread;
	bool thread_ok;
	atomic_int ready;		/* 0 starting, 1 every tag fetched, 2 ended after
					 * that, -errno failed before it */
	int err;
};

struct znp_ublk_server {
	struct znp_dev *ns;
	struct znp_ublk_geom g;
	struct znp_ublk_opts o;
	int ctrl_fd;
	struct io_uring ctrl;
	bool ctrl_ok;
	struct ublksrv_ctrl_dev_info info;
	int dev_id;
	bool added;			/* added or recovered by us (may delete it) */
	bool recovering;		/* taking it back: START_USER_RECOVERY (in run()), END pending */
	int recover_waited;		/* ms already waited for the dead server to be gone */
	int recover_wait_ms;		/* ... at most (ublk-recover.c) */
	bool recovery_continued;	/* a dead server's unfinished recovery, carried on */
	bool started;
	/*
	 * START_DEV sent and not returned: it holds the driver's device mutex
	 * while it sends requests (zone reports, the partition scan), so every
	 * request is answered, with an error where it would otherwise be left
	 * to the next server (ublk-io.c), and no queue leaves.
	 */
	atomic_bool starting;
	/* ZNP_TEST_UBLK_STOP_AT (znp_ublk_test_stop()): in every build, so that the
	 * struct has one layout for the library and the unit tests alike */
	const char *test_stop_at;
	atomic_bool test_stopped;
	bool del_on_free;
	int cdev_fd;
	int efd;			/* to run(): stop request, a queue ended */
	int qefd;			/* to the queues: abandon (start failed) */
	int pefd;			/* to the queues: park (leave the device quiesced) */
	bool parked;			/* run() left the device quiesced for the next server */
	atomic_bool quiesced;		/* QUIESCE_DEV succeeded: the queues park serving */
	atomic_uint park_left;		/* requests given while parking and left untouched */
	uint64_t fingerprint;		/* znp_ublk_fingerprint() of the namespace */
	uint64_t features;		/* the driver's UBLK_F_* (GET_FEATURES), 0 unknown */
	bool zero_copy;			/* the device has UBLK_F_SUPPORT_ZERO_COPY: requests'
					 * data moves without a copy (ublk-data.c) */
	/* bytes moved by user copy (pread/pwrite on ublkc), for the log at the end */
	atomic_ullong ucopy_data;	/* request data: 0 with zero copy, but for read-backs */
	atomic_ullong ucopy_report;	/* zone reports (always copied) */
	atomic_bool ring_logged;	/* the ring's setup has been logged once */
	struct znp_ublk_zstate *zs;	/* per zone, under zlock */
	pthread_mutex_t zlock;
	bool zlock_ok;
	void *journal;			/* mmap of o.journal_fd, or NULL */
	bool journal_inherit;		/* its records await znp_ublk_zones_inherit() */
	atomic_uint jgen;		/* the last record generation given */
	size_t journal_len;
	atomic_int stop;
	unsigned int nr_queues, depth;
	struct znp_ublk_queue *queues;
	pthread_mutex_t log_lock;
	/* lines logged by queue threads, written out by the main thread (under log_lock) */
	bool log_async;
	pthread_t main_thread;
	struct znp_ublk_logline {
		int prio;
		char line[ZNP_UBLK_LOG_LINE];
	} log_ring[ZNP_UBLK_LOG_RING];
	unsigned int log_head, log_n;
	unsigned long log_lost;
};

/*
 * Test hooks (built with -Dtest_hooks=true only): the server stops itself
 * (SIGSTOP, the whole process) the first time it reaches the point named
 * by ZNP_TEST_UBLK_STOP_AT, so that a test can SIGKILL it exactly there.
 * Points: "fetched" (every tag fetched, before START_DEV or
 * END_USER_RECOVERY), "report" (a queue thread holding a zone report of
 * START_DEV, uncommitted), "recovery" (START_USER_RECOVERY returned, no tag
 * fetched yet), "live" (START_DEV or END_USER_RECOVERY returned, before
 * the caller's ready callback writes the record).
 */
#ifdef ZNP_TEST_HOOKS
void znp_ublk_test_stop(struct znp_ublk_server *s, const char *point);
#else
static inline void znp_ublk_test_stop(struct znp_ublk_server *s, const char *point)
{
	(void)s;
	(void)point;
}
#endif

/* ublk-log.c */
void znp_ublk_log(struct znp_ublk_server *s, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Write out what queue threads logged (main thread). */
void znp_ublk_log_drain(struct znp_ublk_server *s);
/* Wake the main thread to drain the log (ublk-run.c). */
void znp_ublk_log_wake(struct znp_ublk_server *s);

/* ublk-ctrl.c */
/* The device's features (@flags as the driver has them) and the driver's, one log line. */
void znp_ublk_log_features(struct znp_ublk_server *s, uint64_t flags);
int znp_ublk_ctrl(struct znp_ublk_server *s, uint32_t op, uint64_t data0, void *buf, uint32_t len);
/*
 * A server for @ns with its control ring, not yet bound to a device (added:
 * znp_ublk_server_create(); taken back: znp_ublk_server_recover()). On a
 * failure *@out may hold the server still: znp_ublk_server_free() it.
 * Return: 0 or -errno.
 */
int znp_ublk_server_alloc(struct znp_dev *ns, const struct znp_ublk_opts *o,
			  struct znp_ublk_server **out);
/* The parameters (SET_PARAMS) of a device with geometry @g. */
void znp_ublk_fill_params(const struct znp_ublk_geom *g, struct ublk_params *p);

/* ublk-qsetup.c */
/* What a queue needs that does not touch the device: buffers, ring. Return: 0 or -errno. */
int znp_ublk_queue_init(struct znp_ublk_server *s, struct znp_ublk_queue *q, unsigned int qid);
/* Then, with s->cdev_fd open and before the queue's thread starts: its files registered. */
void znp_ublk_queue_files(struct znp_ublk_queue *q);
/*
 * Once every tag is fetched: the request descriptors (mmap). Last, because
 * 6.12 binds the device's mapping to the first process that maps it after
 * START_USER_RECOVERY: a recovering server killed after its mmap but before
 * its queues were ready leaves a device no other process can map. Done
 * once. Return: 0 or -errno.
 */
int znp_ublk_queue_map(struct znp_ublk_queue *q);
void znp_ublk_queue_free(struct znp_ublk_queue *q);

/* ublk-queue.c */
void *znp_ublk_queue_thread(void *arg);
/* Queue an NVMe I/O command of tag @t on its ring. Return: 0 or -EBUSY (no SQE). */
int znp_ublk_nvme_cmd(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		      void *buf, uint32_t len, uint64_t slba, uint32_t cdw12, uint32_t cdw13);
/*
 * The same, for zero copy: the data is bytes [@off, @off + @len) of the
 * request's pages, registered at ZNP_UBLK_ZC_INDEX() (no copy, no pinning).
 */
int znp_ublk_nvme_cmd_zc(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
			 uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12);
/* Where tag @t's request pages go in its queue's buffer table (after the tag buffers). */
#define ZNP_UBLK_ZC_INDEX(q, t)	((q)->s->depth + (t)->tag)
/*
 * Register (@reg) or unregister tag @t's request pages at ZNP_UBLK_ZC_INDEX()
 * (UBLK_U_IO_[UN]REGISTER_IO_BUF; the NVMe commands queued after a
 * registration see it, the driver handles it inline). Return: 0 or -EBUSY.
 */
int znp_ublk_buf_cmd(struct znp_ublk_queue *q, struct znp_ublk_tag *t, bool reg);
/*
 * Start copying bytes [@off, @end) of the request from (@to_kernel false) or
 * to the tag's buffer (user copy: a READ or WRITE on /dev/ublkcN, completing
 * in the ring); znp_ublk_io_copy_done() follows. Return: 0 or -EBUSY (no SQE).
 */
int znp_ublk_ucopy(struct znp_ublk_queue *q, struct znp_ublk_tag *t, bool to_kernel,
		   uint32_t off, uint32_t end);
/* Wake tag @t in @ms milliseconds: znp_ublk_io_timer_done(). Return: 0 or -EBUSY (no SQE). */
int znp_ublk_timer(struct znp_ublk_queue *q, struct znp_ublk_tag *t, unsigned int ms);
/* Commit @res and fetch the next request for this tag. */
void znp_ublk_complete(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res, uint64_t addr);

/* ublk-ctrl.c: zero copy for a new device? (GET_FEATURES has UBLK_F_SUPPORT_ZERO_COPY) */
bool znp_ublk_zero_copy_offered(const struct znp_ublk_server *s);

/* ublk-zone.c */
int znp_ublk_zones_init(struct znp_ublk_server *s, bool recovered);
/*
 * A recovery's inherited journal records, taken over (and cleared in the
 * file) only after START_USER_RECOVERY: a server that fails before it
 * leaves them to the next one. Cannot fail.
 */
void znp_ublk_zones_inherit(struct znp_ublk_server *s);
void znp_ublk_zones_free(struct znp_ublk_server *s);
/* Record append @t at @lba (+@nlb) of its zone, before it is sent. */
void znp_ublk_journal_set(struct znp_ublk_server *s, struct znp_ublk_tag *t, uint64_t lba,
			  uint32_t nlb);
/* Send append @t's queued commit; then clear its record if the slot still holds it. */
void znp_ublk_journal_commit(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
void znp_ublk_inh_drop(struct znp_ublk_server *s, uint64_t z, unsigned int i);
void znp_ublk_zone_set_wp(struct znp_ublk_server *s, uint64_t z, uint64_t wp);
void znp_ublk_zone_wrote(struct znp_ublk_server *s, uint64_t z, uint64_t end);
bool znp_ublk_zone_take(struct znp_ublk_server *s, uint64_t z, struct znp_ublk_tag *t);
struct znp_ublk_tag *znp_ublk_zone_release(struct znp_ublk_queue *q, uint64_t z);
struct znp_ublk_tag *znp_ublk_inbox_take(struct znp_ublk_queue *q);

/*
 * Test hooks (-Dtest_hooks=true only, ublk-zone.c): ZNP_TEST_UBLK_KILL=POINT:N
 * makes the server SIGKILL itself the N-th time a queue passes POINT
 * (append-done: an append's data is on the drive, not yet completed;
 * placed: an append's record is set and its write queued; handover: a
 * finished append hands its zone to the next one); abandon:N abandons the
 * queues (as a failed queue does: the server ends with an error, the device
 * stays quiesced) at the N-th append-done instead.
 * ZNP_TEST_UBLK_DEFER=1: every append's commit waits a turn, as when the
 * ring has no SQE free. ZNP_TEST_UBLK_TERM_ADDED=1: SIGTERM to itself right
 * after ADD_DEV (before the caller records the device); =kill: SIGKILL.
 * ZNP_TEST_UBLK_RING_FAIL=N: the N-th wait of a queue's loop with requests
 * being served fails (-ENOMEM) as io_uring_submit_and_wait() can.
 */
enum znp_ublk_tpoint { ZNP_TP_APPEND_DONE, ZNP_TP_PLACED, ZNP_TP_HANDOVER, ZNP_TP_NR };
#ifdef ZNP_TEST_HOOKS
void znp_ublk_test_point(struct znp_ublk_queue *q, enum znp_ublk_tpoint p);
bool znp_ublk_test_defer(void);
void znp_ublk_test_added(void);
int znp_ublk_test_submit_fail(void);
#else
static inline void znp_ublk_test_point(struct znp_ublk_queue *q, enum znp_ublk_tpoint p)
{
	(void)q;
	(void)p;
}

static inline bool znp_ublk_test_defer(void)
{
	return false;
}

static inline void znp_ublk_test_added(void)
{
}

static inline int znp_ublk_test_submit_fail(void)
{
	return 0;
}
#endif

/* ublk-reconcile.c: an append that waited for its zone now owns it. */
void znp_ublk_append_go(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* The commit of append @t (owning its zone) was sent: clear its record, hand the zone on. */
void znp_ublk_append_answered(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* ublk-nopath.c: the timer of tag @t (waiting for a path) fired. */
void znp_ublk_io_timer_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t);

/* ublk-io.c (its private helpers: ublk-io.h) */
/* A new request on tag @t: its NVMe commands, or its completion. */
void znp_ublk_io_start(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* ublk-write.c: the user copy of tag @t ended: 0, or -errno (its request failed). */
void znp_ublk_io_copy_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err);
/* An NVMe command of tag @t completed. */
void znp_ublk_io_nvme_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t,
			   const struct io_uring_cqe *cqe);

#endif

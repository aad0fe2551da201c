// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: the running device. The queue threads fetch every tag, the
 * device is started (or its recovery ended), then run() waits for a stop
 * request or for a queue to end, and stops the device.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ublk-priv.h"

/* How long a parking server waits for the namespace to finish what it started. */
#define PARK_WAIT_MS	30000
/* how long TRY_STOP_DEV waits out a short-lived opener (udev's probe) */
#define TRY_STOP_WAIT_MS	1000
/*
 * How long QUIESCE_DEV may wait for a tag on every queue that it can end
 * (never 0: the driver would wait for ever, holding the device's mutex).
 */
#define QUIESCE_WAIT_MS		5000

static void wake(struct znp_ublk_server *s)
{
	uint64_t one = 1;
	ssize_t r;

	r = write(s->efd, &one, sizeof(one));
	(void)r;
}

static void abandon(struct znp_ublk_server *s)
{
	uint64_t one = 1;
	ssize_t r;

	atomic_store(&s->stop, 1);
	r = write(s->qefd, &one, sizeof(one));
	(void)r;
}

void znp_ublk_log_wake(struct znp_ublk_server *s)
{
	wake(s);
}

void znp_ublk_server_stop(struct znp_ublk_server *s)
{
	atomic_store(&s->stop, 1);
	wake(s);
}

static int wait_queues_ready(struct znp_ublk_server *s)
{
	struct timespec ts = { 0, 1000 * 1000 };
	unsigned int i;

	for (i = 0; i < s->nr_queues; i++) {
		int r;

		while (!(r = atomic_load(&s->queues[i].ready)))
			nanosleep(&ts, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

static void stop_queues(struct znp_ublk_server *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_queues; i++)
		if (s->queues[i].thread_ok) {
			pthread_join(s->queues[i].thread, NULL);
			s->queues[i].thread_ok = false;
		}
}

/*
 * After START_USER_RECOVERY the driver has forgotten the dead server's
 * queues: until every queue has fetched all its tags again, a server that
 * leaves makes the device unrecoverable on 6.12 (the next
 * START_USER_RECOVERY returns -EINVAL for ever, or with some queues ready
 * puts a NULL task). So a step that fails for want of a resource then is
 * tried again (every 100 ms, logged once), never given up on.
 */
static void recovery_retry(struct znp_ublk_server *s, const char *what, int err,
			   unsigned int *tries)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	if (!(*tries)++)
		znp_ublk_log(s, LOG_ERR, "ublk%d: %s: %s: trying again (the device is half "
			     "taken back: leaving now would make it unrecoverable)", s->dev_id,
			     what, strerror(-err));
	znp_ublk_log_drain(s);
	nanosleep(&ts, NULL);
}

/* -EBUSY while the dead server's files are still being released */
static int start_recovery(struct znp_ublk_server *s)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int ret;

	for (;;) {
		ret = znp_ublk_ctrl(s, UBLK_U_CMD_START_USER_RECOVERY, 0, NULL, 0);
		if (ret != -EBUSY || s->recover_waited >= s->recover_wait_ms)
			break;
		nanosleep(&ts, NULL);
		s->recover_waited += 100;
	}
	if (ret == -EINVAL &&
	    !znp_ublk_ctrl(s, UBLK_U_CMD_GET_DEV_INFO, 0, &s->info, sizeof(s->info)) &&
	    s->info.state == UBLK_S_DEV_QUIESCED) {
		/*
		 * Quiesced, our flags (checked), yet refused: no queue is ready,
		 * so a server that had begun taking it back died before its
		 * queues fetched their tags. The driver already forgot the
		 * queues of the server before it: carry on from there. If the
		 * dead one had mapped the device, the mmap is refused (6.12
		 * binds the mapping to its memory): then only `unmap --force`
		 * removes the device.
		 */
		znp_ublk_log(s, LOG_WARNING, "ublk%d: a recovery was begun and not finished by a "
			     "server that died: carrying it on", s->dev_id);
		s->recovery_continued = true;
		return 0;
	}
	if (ret)
		znp_ublk_log(s, LOG_ERR, "ublk%d: START_USER_RECOVERY failed: %s", s->dev_id,
			     strerror(-ret));
	return ret;
}

/* Worth trying again (memory, file table, a signal), not a refusal. */
static bool transient(int err)
{
	return err == -ENOMEM || err == -EAGAIN || err == -EINTR || err == -EMFILE ||
	       err == -ENFILE;
}

/*
 * Set up the queues, start their threads, wait until every tag is fetched.
 * Everything that may fail (allocations, rings) is done first; a recovery
 * starts (START_USER_RECOVERY) only then, and from there on retries
 * rather than fails until every tag is fetched (recovery_retry()).
 */
static int start_queues(struct znp_ublk_server *s)
{
	char path[64];
	sigset_t all, old;
	unsigned int i, tries = 0;
	bool retry = s->recovering;
	int ret;

	for (i = 0; i < s->nr_queues; i++) {
		ret = znp_ublk_queue_init(s, &s->queues[i], i);
		if (ret) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: queue %u: %s", s->dev_id, i,
				     strerror(-ret));
			return ret;
		}
	}
	if (s->recovering) {
		ret = start_recovery(s);
		if (ret)
			return ret;
		znp_ublk_zones_inherit(s);
		znp_ublk_test_stop(s, "recovery");
	}
	snprintf(path, sizeof(path), "/dev/ublkc%d", s->dev_id);
	/* non-blocking: io_uring then runs the user copy inline, not in io-wq */
	while ((s->cdev_fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)) < 0) {
		ret = -errno;
		if (!retry || !transient(ret)) {
			znp_ublk_log(s, LOG_ERR, "%s: %s", path, strerror(-ret));
			return ret;
		}
		recovery_retry(s, path, ret, &tries);
	}
	for (i = 0; i < s->nr_queues; i++)
		znp_ublk_queue_files(&s->queues[i]);
	/* signals go to the caller's thread, never to a queue thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < s->nr_queues; i++) {
		while ((ret = -pthread_create(&s->queues[i].thread, NULL, znp_ublk_queue_thread,
					      &s->queues[i])) && retry && transient(ret))
			recovery_retry(s, "starting a queue thread", ret, &tries);
		if (ret)
			break;
		s->queues[i].thread_ok = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return ret;
	ret = wait_queues_ready(s);
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: fetching requests failed: %s", s->dev_id,
			     strerror(-ret));
		return ret;
	}
	/*
	 * Every queue is ready: a server that dies from here on leaves a
	 * device the next START_USER_RECOVERY takes. Requests come only after
	 * START_DEV or END_USER_RECOVERY, so the descriptors are mapped now.
	 */
	for (i = 0; i < s->nr_queues; i++) {
		while ((ret = znp_ublk_queue_map(&s->queues[i]))) {
			if (!retry || !transient(ret)) {
				if (s->recovery_continued && ret == -EINVAL)
					znp_ublk_log(s, LOG_ERR, "ublk%d: queue %u: mapping the "
						     "request descriptors: %s (the server that died "
						     "while taking it back had mapped it: on this "
						     "kernel the device can only be removed, `unmap "
						     "--force`)", s->dev_id, i, strerror(-ret));
				else
					znp_ublk_log(s, LOG_ERR, "ublk%d: queue %u: mapping the "
						     "request descriptors: %s", s->dev_id, i,
						     strerror(-ret));
				return ret;
			}
			recovery_retry(s, "mapping the request descriptors", ret, &tries);
		}
	}
	znp_ublk_test_stop(s, "fetched");
	return 0;
}

/*
 * A new device's request timeout: DEV_TIMEOUT_MS where it is still the
 * kernel's default. On 6.12 the driver notices a dead server whose queue
 * was saturated (every tag held) only when a request times out, so a
 * restart waits that long, and a host reaching the device over NVMe-oF
 * fails its own commands after its 30 s (nvme_core.io_timeout): the stall
 * must end well before. A live server's requests never fail by it (6.12
 * and 7.x re-arm the timer while the server lives); an administrator's
 * own value (not the default) is kept.
 */
#define DEV_TIMEOUT_DEFAULT_MS	30000
#define DEV_TIMEOUT_MS		10000

static void set_dev_timeout(struct znp_ublk_server *s)
{
	char path[64], buf[32];
	int fd, ret = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/block/ublkb%d/queue/io_timeout", s->dev_id);
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		znp_ublk_log(s, LOG_WARNING, "ublk%d: cannot open %s: %s", s->dev_id, path,
			     strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		if (strtoul(buf, NULL, 10) != DEV_TIMEOUT_DEFAULT_MS) {
			close(fd);
			return;
		}
		n = snprintf(buf, sizeof(buf), "%d", DEV_TIMEOUT_MS);
		if (pwrite(fd, buf, (size_t)n, 0) != n)
			ret = -errno;
	} else {
		ret = n < 0 ? -errno : -EIO;
	}
	close(fd);
	if (ret)
		znp_ublk_log(s, LOG_WARNING, "ublk%d: request timeout left at the kernel's "
			     "default: %s", s->dev_id, strerror(-ret));
	else
		znp_ublk_log(s, LOG_INFO, "ublk%d: request timeout %d ms (the kernel's %d ms "
			     "would outlast a remote host's own)", s->dev_id, DEV_TIMEOUT_MS,
			     DEV_TIMEOUT_DEFAULT_MS);
}

/* Both block until every tag is fetched; START_DEV reads the zones. */
static int start_dev(struct znp_ublk_server *s)
{
	int ret;

	if (s->recovering) {
		ret = znp_ublk_ctrl(s, UBLK_U_CMD_END_USER_RECOVERY, (uint64_t)getpid(), NULL, 0);
		if (ret) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: END_USER_RECOVERY failed: %s", s->dev_id,
				     strerror(-ret));
			return ret;
		}
		s->recovering = false;
	} else {
		/* until it returns, every request is answered (ublk-io.c) */
		atomic_store(&s->starting, true);
		ret = znp_ublk_ctrl(s, UBLK_U_CMD_START_DEV, (uint64_t)getpid(), NULL, 0);
		atomic_store(&s->starting, false);
		if (ret) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: START_DEV failed: %s", s->dev_id,
				     strerror(-ret));
			return ret;
		}
	}
	s->started = true;
	s->del_on_free = false;
	set_dev_timeout(s);
	znp_ublk_log(s, LOG_NOTICE, "ublk%d: /dev/ublkb%d serving %s", s->dev_id, s->dev_id,
		     s->ns->path);
	return 0;
}

/* Until a stop request, or until a queue thread ends. */
static void wait_end(struct znp_ublk_server *s)
{
	unsigned int i;
	uint64_t v;

	while (!atomic_load(&s->stop)) {
		ssize_t r = read(s->efd, &v, sizeof(v));

		if (r < 0 && errno != EINTR)
			break;
		znp_ublk_log_drain(s);
		if (atomic_load(&s->stop))
			break;
		/* a queue thread ended: stopped or deleted from outside, or failed */
		for (i = 0; i < s->nr_queues; i++)
			if (atomic_load(&s->queues[i].ready) == 2)
				break;
		if (i < s->nr_queues)
			break;
	}
}

/*
 * The stop's one decision: may this device be deleted? Only when nothing
 * can be using it (znp_blk_prove_unused(): mounts, holders, loop devices,
 * NVMe target namespaces, swap, every process's open files; whatever
 * cannot be read counts as a user). Return: true with *@exfd holding it
 * O_EXCL (no mount slips in before STOP_DEV), or false with @why (park).
 */
static bool may_delete(struct znp_ublk_server *s, int *exfd, char *why, size_t size)
{
	char path[64];
	int ret;

	snprintf(path, sizeof(path), "/dev/ublkb%d", s->dev_id);
	ret = znp_blk_prove_unused(NULL, path, exfd, why, size);
	if (!ret || ret == -ENOENT)
		return true;	/* unused, or no block device left to protect */
	if (ret != -EBUSY)
		snprintf(why, size, "cannot tell whether %s is in use: %s", path, strerror(-ret));
	return false;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Where the device has UBLK_F_QUIESCE (7.x): QUIESCE_DEV makes the driver
 * dispatch nothing more (a new request waits in its requeue list for the
 * next server), wait until every queue has a tag that holds no request,
 * and end each such tag's FETCH_REQ with UBLK_IO_RES_ABORT. The device
 * stays LIVE until the queues close their rings. Return: true, or false
 * with the reason logged: then the device is parked as without it (the
 * driver's quiesce when the rings close requeues what was not started;
 * after a refusal by time the driver dispatches nothing more already).
 */
static bool quiesce_dev(struct znp_ublk_server *s)
{
	struct timespec t0;
	const char *why;
	int ret;

	if (!(s->info.flags & UBLK_F_QUIESCE))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = znp_ublk_ctrl(s, UBLK_U_CMD_QUIESCE_DEV, QUIESCE_WAIT_MS, NULL, 0);
	if (!ret) {
		atomic_store(&s->quiesced, true);
		znp_ublk_log(s, LOG_NOTICE, "ublk%d: parking by QUIESCE_DEV: the driver "
			     "dispatches nothing more (%ld ms); the queues answer every request "
			     "they were given", s->dev_id, ms_since(&t0));
		return true;
	}
	switch (ret) {
	case -EBUSY:
		why = "a queue kept every tag busy";
		break;
	case -ENODEV:
		why = "the device is being removed";
		break;
	default:
		why = "the driver refused it";
		break;
	}
	znp_ublk_log(s, LOG_WARNING, "ublk%d: QUIESCE_DEV failed after %ld ms: %s (%s): "
		     "parking by closing the rings instead", s->dev_id, ms_since(&t0),
		     strerror(-ret), why);
	return false;
}

/*
 * Leave the device quiesced for the next server. With QUIESCE_DEV
 * (quiesce_dev()) the driver stops dispatching first and the queues answer
 * every request they were given: nothing is in flight when they end.
 * Without it (6.12, or a device added without UBLK_F_QUIESCE), the queues
 * finish the requests they started (NVMe commands and commits), start no
 * new one and end; closing their rings then makes the driver quiesce the
 * device, and the requests taken but never started are requeued for the
 * next server (UBLK_F_USER_RECOVERY_REISSUE). Either way nothing the file
 * system above sent fails.
 */
static void park(struct znp_ublk_server *s, const char *why)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	uint64_t one = 1;
	unsigned int i, waited = 0, left;
	bool quiesced;
	ssize_t r;

	znp_ublk_log(s, LOG_NOTICE, "ublk%d: /dev/ublkb%d may be in use (%s): leaving it "
		     "quiesced for the next server instead of removing it (unmap removes it)",
		     s->dev_id, s->dev_id, why);
	quiesced = quiesce_dev(s);
	if (!(s->info.flags & UBLK_F_QUIESCE))
		znp_ublk_log(s, LOG_NOTICE, "ublk%d: parking by closing the rings (the device "
			     "has no QUIESCE_DEV): requests given meanwhile are left to the next "
			     "server", s->dev_id);
	r = write(s->pefd, &one, sizeof(one));
	(void)r;
	for (i = 0; i < s->nr_queues; i++) {
		while (atomic_load(&s->queues[i].ready) == 1 && waited < PARK_WAIT_MS) {
			nanosleep(&ts, NULL);
			waited += 10;
		}
	}
	if (waited >= PARK_WAIT_MS) {
		znp_ublk_log(s, LOG_WARNING, "ublk%d: requests still on the namespace after %u ms: "
			     "leaving anyway (the next server reconciles them)", s->dev_id,
			     waited);
		abandon(s);
	} else {
		left = atomic_load(&s->park_left);
		znp_ublk_log(s, LOG_NOTICE, "ublk%d: parked%s: %u request(s) left untouched for "
			     "the next server", s->dev_id, quiesced ? " by QUIESCE_DEV" : "", left);
	}
	s->parked = true;
	s->del_on_free = false;
}

/*
 * On a stop request, with a driver that has TRY_STOP_DEV (7.x): write back,
 * let go of @exfd and stop only if nobody has the device open, in-kernel
 * openers included (a loop device or an nvmet export that dev_is_held()
 * cannot see, or a mount that came after it looked): the driver checks
 * under the disk's open lock. A short-lived opener (udev's probe) is waited
 * for; a device still in use is parked as park() does. Return: 0 or -errno
 * (logged).
 */
static int try_stop_dev(struct znp_ublk_server *s, int exfd)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	unsigned int waited = 0;
	int ret;

	if (exfd >= 0) {
		fsync(exfd);
		close(exfd);
	}
	while ((ret = znp_ublk_ctrl(s, UBLK_U_CMD_TRY_STOP_DEV, 0, NULL, 0)) == -EBUSY &&
	       waited < TRY_STOP_WAIT_MS) {
		nanosleep(&ts, NULL);
		waited += 50;
	}
	if (ret == -EBUSY) {
		park(s, "open: the driver refused TRY_STOP_DEV");
		return 0;
	}
	if (ret && ret != -ENODEV) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: TRY_STOP_DEV failed: %s", s->dev_id,
			     strerror(-ret));
		return ret;
	}
	s->del_on_free = true;
	return 0;
}

/* On a stop request: write back, STOP_DEV. Return: 0 or -errno (logged). */
static int stop_dev(struct znp_ublk_server *s, int exfd)
{
	int ret;

	if (s->features & ZNP_UBLK_F_SAFE_STOP_DEV)
		return try_stop_dev(s, exfd);

	/*
	 * Write back the block device's cache while the queues still
	 * serve: with user recovery, STOP_DEV fails later I/O. @exfd (held
	 * O_EXCL) keeps mounts out until the device is gone.
	 */
	if (exfd >= 0)
		fsync(exfd);
	/* STOP_DEV waits for in-flight I/O */
	ret = znp_ublk_ctrl(s, UBLK_U_CMD_STOP_DEV, 0, NULL, 0);
	if (exfd >= 0)
		close(exfd);
	if (ret && ret != -ENODEV)
		znp_ublk_log(s, LOG_ERR, "ublk%d: STOP_DEV failed: %s", s->dev_id,
			     strerror(-ret));
	else
		ret = 0;
	s->del_on_free = true;
	return ret;
}

/*
 * How requests move, once: the ring's setup, and whether the driver offers
 * zero copy (UBLK_F_SUPPORT_ZERO_COPY from 6.15, UBLK_F_AUTO_BUF_REG from
 * 6.16) and this device uses it (ublk-data.c).
 */
static void log_io_path(struct znp_ublk_server *s)
{
	const struct znp_ublk_queue *q = &s->queues[0];
	bool zc = s->features & ZNP_UBLK_F_SUPPORT_ZERO_COPY;
	bool abr = s->features & ZNP_UBLK_F_AUTO_BUF_REG;
	unsigned int i, nzc = 0;

	for (i = 0; i < s->nr_queues; i++)
		nzc += s->queues[i].zc;
	znp_ublk_log(s, LOG_INFO, "ublk%d: io_uring: %s, %s files, %s buffers", s->dev_id,
		     q->ring_flags & IORING_SETUP_COOP_TASKRUN ?
		     "cooperative task work" : "plain ring",
		     q->sqe_flags ? "registered" : "unregistered",
		     q->fixed_bufs ? "registered" : "unregistered");
	znp_ublk_log(s, LOG_INFO, "ublk%d: driver features 0x%" PRIx64 ": zero copy %s, "
		     "automatic buffer registration %s: data moves by %s", s->dev_id,
		     s->features, !zc ? "absent" : nzc ? "used" : s->o.user_copy ?
		     "offered (user copy asked for)" : "offered (not used)",
		     abr ? "offered (not used: zone appends)" : "absent",
		     nzc == s->nr_queues ? "zero copy (zone reports by user copy)" :
		     nzc ? "zero copy on some queues, user copy on others" : "user copy");
}

/* What moved by user copy, once at the end: a test proves zero copy with it. */
static void log_copies(struct znp_ublk_server *s)
{
	znp_ublk_log(s, LOG_INFO, "ublk%d: user copy: %llu bytes of request data, %llu of "
		     "zone reports", s->dev_id, atomic_load(&s->ucopy_data),
		     atomic_load(&s->ucopy_report));
}

int znp_ublk_server_run(struct znp_ublk_server *s, void (*ready)(void *arg, int dev_id),
			void *arg)
{
	unsigned int i;
	int ret;

	s->queues = calloc(s->nr_queues, sizeof(*s->queues));
	if (!s->queues)
		return -ENOMEM;
	/* the device's flags (added here, or by the server that ran before) */
	s->zero_copy = (s->info.flags & UBLK_F_SUPPORT_ZERO_COPY) && !s->o.user_copy;
	/*
	 * Memory pressure must not make the server wait on writeback to its
	 * own device: its memory stays resident (the queue threads are also
	 * I/O flushers, ublk-queue.c).
	 */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		znp_ublk_log(s, LOG_WARNING, "ublk%d: cannot lock the server's memory: %s",
			     s->dev_id, strerror(errno));
	s->main_thread = pthread_self();
	s->log_async = true;
	ret = start_queues(s);
	if (!ret) {
		log_io_path(s);
		ret = start_dev(s);
	}
	if (ret)
		goto fail;
	znp_ublk_test_stop(s, "live");
	if (ready)
		ready(arg, s->dev_id);

	wait_end(s);
	ret = 0;
	if (!atomic_load(&s->stop)) {
		/*
		 * A queue ended by itself: after STOP_DEV or DEL_DEV from
		 * outside the I/O has drained and every queue ends; after a
		 * failure the others must not be left serving alone (the
		 * device then waits, quiesced, for a recovery).
		 */
		for (i = 0; i < s->nr_queues; i++)
			if (atomic_load(&s->queues[i].ready) == 2)
				znp_ublk_log(s, s->queues[i].err ? LOG_ERR : LOG_NOTICE,
					     "ublk%d: queue %u ended%s%s: stopping the others",
					     s->dev_id, i, s->queues[i].err ? ": " : " (device "
					     "stopped or deleted from outside)",
					     s->queues[i].err ? strerror(-s->queues[i].err) : "");
		abandon(s);
	} else {
		char why[512];
		int exfd;

		if (may_delete(s, &exfd, why, sizeof(why)))
			ret = stop_dev(s, exfd);
		else
			park(s, why);
	}
	stop_queues(s);
	for (i = 0; i < s->nr_queues; i++)
		if (s->queues[i].err && !ret)
			ret = s->queues[i].err;
	s->log_async = false;
	znp_ublk_log_drain(s);
	log_copies(s);
	znp_ublk_log(s, LOG_NOTICE, "ublk%d: stopped", s->dev_id);
	return ret;

fail:
	/* abandon: the queue threads exit, closing their rings cancels the commands */
	abandon(s);
	stop_queues(s);
	s->log_async = false;
	znp_ublk_log_drain(s);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: what a server knows about each zone, so that no request is
 * lost or applied twice across a server's death (UBLK_F_USER_RECOVERY_REISSUE
 * requeues the requests a dead server had taken to the next one).
 *
 * Writes need no record: zone write plugging keeps one write per zone in
 * flight, so a reissued write that an earlier server already applied (or
 * applied in part) meets the write pointer at or inside its own range; the
 * data there is read back and compared with the request's before it counts
 * as done (ublk-reconcile.c).
 *
 * Zone Appends are placed by the server itself: one in flight per zone, as
 * an NVMe Write at the write pointer the server tracks, recorded in the
 * journal (a file under the run-time state directory, shared memory that
 * outlives the process) before it is sent and cleared after its commit. A
 * new server inherits the records of the dead one; each one is checked
 * against the zone's write pointer and, when it landed, against the data of
 * the reissued append of the same length, which then completes at the
 * recorded place instead of being written a second time. See README.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ublk-priv.h"

#define JOURNAL_MAGIC	"ZNPUBJ02"	/* 01: 4 slots per zone, no generation */

struct jhdr {
	char magic[8];
	uint64_t nr_zones;
	uint64_t zone_lbas;
	uint64_t cap_lbas;
	uint64_t fingerprint;
	uint64_t reserved[3];
};

static size_t journal_size(uint64_t nr_zones)
{
	return sizeof(struct jhdr) + nr_zones * ZNP_UBLK_JSLOTS * sizeof(struct znp_ublk_jent);
}

static struct znp_ublk_jent *jslot(struct znp_ublk_server *s, uint64_t zone, unsigned int i)
{
	return (struct znp_ublk_jent *)((char *)s->journal + sizeof(struct jhdr)) +
	       zone * ZNP_UBLK_JSLOTS + i;
}

static uint64_t cap_lbas(const struct znp_ublk_server *s)
{
	return s->g.zone_cap_sectors >> (s->g.lba_shift - 9);
}

/* The dead server's records of zone @z (checked: nothing read is trusted as it is). */
static void inherit(struct znp_ublk_server *s, uint64_t z)
{
	struct znp_ublk_zstate *zs = &s->zs[z];
	uint32_t max = s->g.max_append_sectors >> (s->g.lba_shift - 9);
	unsigned int i;

	for (i = 0; i < ZNP_UBLK_JSLOTS; i++) {
		struct znp_ublk_jent e = *jslot(s, z, i);

		memset(jslot(s, z, i), 0, sizeof(e));
		if (ZNP_UBLK_J_KIND(e.state) == ZNP_UBLK_J_COMMITTING) {
			/*
			 * Killed while acknowledging it: if the driver got the
			 * commit the request is done, else it comes again and is
			 * placed anew (a second copy, see README.md). Matching it
			 * could answer a new append with its place.
			 */
			znp_ublk_log(s, LOG_WARNING, "ublk%d: zone %" PRIu64 ": an append at LBA +%"
				     PRIu64 " was being acknowledged when the last server died: if "
				     "it is sent again it is written again", s->dev_id, z,
				     (uint64_t)e.lba);
			continue;
		}
		if (ZNP_UBLK_J_KIND(e.state) != ZNP_UBLK_J_INFLIGHT)
			continue;
		if (!e.nlb || e.nlb > max || e.lba > cap_lbas(s) || e.nlb > cap_lbas(s) - e.lba) {
			znp_ublk_log(s, LOG_WARNING, "ublk%d: zone %" PRIu64 ": ignoring a journal "
				     "record out of range (LBA %" PRIu64 " +%u)", s->dev_id, z,
				     (uint64_t)e.lba, e.nlb);
			continue;
		}
		if (zs->ninh == ZNP_UBLK_JSLOTS - 1) {
			/*
			 * Each server's life adds at most one record per zone
			 * (its own slot), so this takes seven deaths in a row,
			 * each with an append of this zone in flight, with no
			 * server living to see the reissued ones: said, not
			 * hidden.
			 */
			znp_ublk_log(s, LOG_WARNING, "ublk%d: zone %" PRIu64 ": more unresolved "
				     "append records than the journal holds (%u): the one at LBA +%"
				     PRIu64 " (+%u) is dropped: if it is sent again it is written "
				     "again", s->dev_id, z, ZNP_UBLK_JSLOTS - 1, (uint64_t)e.lba,
				     e.nlb);
			continue;
		}
		zs->inh[zs->ninh].lba = e.lba;
		zs->inh[zs->ninh].nlb = e.nlb;
		zs->inh[zs->ninh].misses = 0;
		*jslot(s, z, zs->ninh) = e;
		zs->ninh++;
	}
}

int znp_ublk_zones_init(struct znp_ublk_server *s, bool recovered)
{
	struct jhdr *h;
	struct stat st;
	size_t len;
	bool valid;

	s->zs = calloc(s->g.nr_zones, sizeof(*s->zs));
	if (!s->zs)
		return -ENOMEM;
	pthread_mutex_init(&s->zlock, NULL);
	s->zlock_ok = true;
	if (s->o.journal_fd < 0)
		return 0;
	len = journal_size(s->g.nr_zones);
	if (fstat(s->o.journal_fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077) || st.st_nlink != 1)
		return -EPERM;	/* a journal others can write or link to is not one */
	valid = recovered && (size_t)st.st_size == len;
	if (!valid && ftruncate(s->o.journal_fd, 0))
		return -errno;
	if (ftruncate(s->o.journal_fd, (off_t)len))
		return -errno;
	s->journal = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->o.journal_fd, 0);
	if (s->journal == MAP_FAILED) {
		s->journal = NULL;
		return -errno;
	}
	s->journal_len = len;
	h = s->journal;
	valid = valid && !memcmp(h->magic, JOURNAL_MAGIC, 8) && h->nr_zones == s->g.nr_zones &&
		h->zone_lbas == s->g.ns.zone_size && h->cap_lbas == cap_lbas(s) &&
		h->fingerprint == s->fingerprint;
	if (recovered && !valid)
		znp_ublk_log(s, LOG_WARNING, "ublk%d: no valid append journal of the last server: "
			     "appends it had in flight cannot be reconciled", s->dev_id);
	if (!valid) {
		memset(s->journal, 0, len);
		memcpy(h->magic, JOURNAL_MAGIC, 8);
		h->nr_zones = s->g.nr_zones;
		h->zone_lbas = s->g.ns.zone_size;
		h->cap_lbas = cap_lbas(s);
		h->fingerprint = s->fingerprint;
		return 0;
	}
	/* taken over (and cleared in the file) once the device is ours: znp_ublk_zones_inherit() */
	s->journal_inherit = true;
	return 0;
}

void znp_ublk_zones_inherit(struct znp_ublk_server *s)
{
	uint64_t z;

	if (!s->journal_inherit)
		return;
	s->journal_inherit = false;
	for (z = 0; z < s->g.nr_zones; z++)
		inherit(s, z);
}

void znp_ublk_zones_free(struct znp_ublk_server *s)
{
	if (s->journal)
		munmap(s->journal, s->journal_len);
	s->journal = NULL;
	if (s->zlock_ok)
		pthread_mutex_destroy(&s->zlock);
	s->zlock_ok = false;
	free(s->zs);
	s->zs = NULL;
}

/* This server's record of append @t (slot ZNP_UBLK_JSLOTS - 1 of its zone: it owns the zone). */
void znp_ublk_journal_set(struct znp_ublk_server *s, struct znp_ublk_tag *t, uint64_t lba,
			  uint32_t nlb)
{
	struct znp_ublk_jent *e;
	uint32_t gen;

	do
		gen = (atomic_fetch_add(&s->jgen, 1) + 1) & 0xffffff;
	while (!gen);
	t->jgen = gen;
	t->jlba = lba;
	if (!s->journal)
		return;
	e = jslot(s, t->ext.zone_no, ZNP_UBLK_JSLOTS - 1);
	e->lba = lba;
	e->nlb = nlb;
	__atomic_store_n(&e->state, ZNP_UBLK_J_INFLIGHT | gen << 8, __ATOMIC_RELEASE);
}

/*
 * Send append @t's queued commit, then drop its record, only if its zone's
 * slot still holds that record (same LBA and generation): a record is
 * cleared by the commit that answered it and by nothing else. Marked
 * "committing" first: a server killed inside that window leaves a record
 * the next one must not match (the request may have been answered;
 * matching a new append of the same data to it would give two appends one
 * place), see inherit().
 */
void znp_ublk_journal_commit(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	struct znp_ublk_server *s = q->s;
	struct znp_ublk_jent *e = NULL;
	uint32_t mine = ZNP_UBLK_J_INFLIGHT | t->jgen << 8;
	uint32_t committing = ZNP_UBLK_J_COMMITTING | t->jgen << 8;

	if (s->journal && t->jgen) {
		e = jslot(s, t->ext.zone_no, ZNP_UBLK_JSLOTS - 1);
		if (e->lba != t->jlba ||
		    !__atomic_compare_exchange_n(&e->state, &mine, committing, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: zone %" PRIu64 ": the journal slot of the "
				     "append at LBA +%" PRIu64 " holds another record: left as it is",
				     s->dev_id, t->ext.zone_no, t->jlba);
			e = NULL;
		}
	}
	io_uring_submit(&q->ring);
	if (e)
		__atomic_compare_exchange_n(&e->state, &committing, 0, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
	t->jgen = 0;
}

/* Forget inherited record @i of zone @z (resolved, or the zone was reset). Under zlock. */
void znp_ublk_inh_drop(struct znp_ublk_server *s, uint64_t z, unsigned int i)
{
	struct znp_ublk_zstate *zs = &s->zs[z];

	if (i >= zs->ninh)
		return;
	zs->ninh--;
	zs->inh[i] = zs->inh[zs->ninh];
	if (s->journal) {
		*jslot(s, z, i) = *jslot(s, z, zs->ninh);
		memset(jslot(s, z, zs->ninh), 0, sizeof(struct znp_ublk_jent));
	}
}

/* A reset, finish or reset-all of zone @z succeeded: its write pointer is known. */
void znp_ublk_zone_set_wp(struct znp_ublk_server *s, uint64_t z, uint64_t wp)
{
	pthread_mutex_lock(&s->zlock);
	s->zs[z].wp = wp;
	s->zs[z].wp_known = true;
	while (s->zs[z].ninh)
		znp_ublk_inh_drop(s, z, 0);
	pthread_mutex_unlock(&s->zlock);
}

/* A write of zone @z ended at @end (relative LBA): the tracked write pointer follows. */
void znp_ublk_zone_wrote(struct znp_ublk_server *s, uint64_t z, uint64_t end)
{
	pthread_mutex_lock(&s->zlock);
	if (s->zs[z].wp_known && s->zs[z].wp < end)
		s->zs[z].wp = end;
	pthread_mutex_unlock(&s->zlock);
}

/*
 * Take zone @z for append @t. Return: true when @t owns the zone now;
 * false when another append has it (@t waits, handed over at release).
 */
bool znp_ublk_zone_take(struct znp_ublk_server *s, uint64_t z, struct znp_ublk_tag *t)
{
	struct znp_ublk_zstate *zs = &s->zs[z];
	bool mine;

	pthread_mutex_lock(&s->zlock);
	mine = !zs->busy;
	if (mine) {
		zs->busy = true;
	} else {
		t->wait_next = NULL;
		if (zs->wait_tail)
			zs->wait_tail->wait_next = t;
		else
			zs->wait_head = t;
		zs->wait_tail = t;
	}
	pthread_mutex_unlock(&s->zlock);
	return mine;
}

/*
 * The append owning zone @z is done: hand the zone to the next waiting
 * append, on its own queue's thread. Return: the waiter when it is on
 * queue @q (the caller goes on with it), else NULL.
 */
struct znp_ublk_tag *znp_ublk_zone_release(struct znp_ublk_queue *q, uint64_t z)
{
	struct znp_ublk_server *s = q->s;
	struct znp_ublk_zstate *zs = &s->zs[z];
	struct znp_ublk_tag *next;

	pthread_mutex_lock(&s->zlock);
	next = zs->wait_head;
	if (next) {
		zs->wait_head = next->wait_next;
		if (!zs->wait_head)
			zs->wait_tail = NULL;
	} else {
		zs->busy = false;
	}
	if (next && next->q != q) {
		/* the zone stays busy, owned by @next: its queue picks it up */
		struct znp_ublk_queue *nq = next->q;
		uint64_t one = 1;
		ssize_t r;

		next->wait_next = NULL;
		if (nq->inbox_tail)
			nq->inbox_tail->wait_next = next;
		else
			nq->inbox = next;
		nq->inbox_tail = next;
		pthread_mutex_unlock(&s->zlock);
		r = write(nq->ifd, &one, sizeof(one));
		(void)r;
		znp_ublk_test_point(q, ZNP_TP_HANDOVER);
		return NULL;
	}
	pthread_mutex_unlock(&s->zlock);
	if (next)
		znp_ublk_test_point(q, ZNP_TP_HANDOVER);
	return next;
}

/* Appends handed to queue @q by other queues. */
struct znp_ublk_tag *znp_ublk_inbox_take(struct znp_ublk_queue *q)
{
	struct znp_ublk_tag *list;

	pthread_mutex_lock(&q->s->zlock);
	list = q->inbox;
	q->inbox = q->inbox_tail = NULL;
	pthread_mutex_unlock(&q->s->zlock);
	return list;
}

#ifdef ZNP_TEST_HOOKS
static const char *const tp_names[ZNP_TP_NR] = { "append-done", "placed", "handover" };
static atomic_uint tp_count[ZNP_TP_NR];

/* ZNP_TEST_UBLK_KILL=POINT:N (see ublk-priv.h). */
void znp_ublk_test_point(struct znp_ublk_queue *q, enum znp_ublk_tpoint p)
{
	const char *v = getenv("ZNP_TEST_UBLK_KILL"), *c;
	unsigned long n;
	size_t len;
	bool ab;

	if (!v)
		return;
	c = strchr(v, ':');
	if (!c)
		return;
	len = (size_t)(c - v);
	ab = len == 7 && !strncmp(v, "abandon", 7) && p == ZNP_TP_APPEND_DONE;
	if (!ab && (strlen(tp_names[p]) != len || strncmp(v, tp_names[p], len)))
		return;
	n = strtoul(c + 1, NULL, 10);
	if (atomic_fetch_add(&tp_count[p], 1) + 1 != n)
		return;
	if (ab) {
		uint64_t one = 1;
		ssize_t r;

		/* as a queue that failed: the server ends with an error, the device stays */
		znp_ublk_log(q->s, LOG_WARNING, "ublk%d: test hook: abandoning the queues",
			     q->s->dev_id);
		q->abandon = true;
		q->err = -EIO;
		r = write(q->s->qefd, &one, sizeof(one));
		(void)r;
		return;
	}
	kill(getpid(), SIGKILL);
}

bool znp_ublk_test_defer(void)
{
	const char *v = getenv("ZNP_TEST_UBLK_DEFER");

	return v && *v == '1';
}

void znp_ublk_test_added(void)
{
	const char *v = getenv("ZNP_TEST_UBLK_TERM_ADDED");

	if (v && !strcmp(v, "1"))
		raise(SIGTERM);
	else if (v && !strcmp(v, "kill"))
		raise(SIGKILL);
}

int znp_ublk_test_submit_fail(void)
{
	static atomic_uint calls;
	const char *v = getenv("ZNP_TEST_UBLK_RING_FAIL");

	if (!v || atomic_fetch_add(&calls, 1) + 1 != strtoul(v, NULL, 10))
		return 0;
	return -ENOMEM;
}
#endif

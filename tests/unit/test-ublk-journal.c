// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ublk server's append journal (src/ublk/ublk-zone.c): a record is
 * cleared only by the commit of the append it records (same LBA and
 * generation), never by a late commit of an earlier append of the zone;
 * a new server inherits a dead one's records, drops a "committing" one and
 * an eighth one of a zone with a warning (never silently), and refuses a
 * journal of another format. Needs no ublk driver: the commit's ring is a
 * plain io_uring with nothing queued.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test.h"
#include "ublk-priv.h"

static char logged[4096];

static void log_line(void *arg, int prio, const char *fmt, ...)
{
	size_t n = strlen(logged);
	va_list ap;

	(void)arg;
	(void)prio;
	va_start(ap, fmt);
	vsnprintf(logged + n, sizeof(logged) - n, fmt, ap);
	va_end(ap);
	n = strlen(logged);
	if (n + 1 < sizeof(logged))
		strcat(logged, "\n");
}

static void server(struct znp_ublk_server *s, int fd)
{
	memset(s, 0, sizeof(*s));
	s->g.nr_zones = 4;
	s->g.ns.zone_size = 1024;		/* LBAs of 4 KiB */
	s->g.lba_shift = 12;
	s->g.zone_cap_sectors = 1024 * 8;
	s->g.max_append_sectors = 256;		/* 32 LBAs */
	s->fingerprint = 0x1234;
	s->o.journal_fd = fd;
	s->o.log = log_line;
	pthread_mutex_init(&s->log_lock, NULL);
}

static struct znp_ublk_jent *slot(struct znp_ublk_server *s, uint64_t z, unsigned int i)
{
	/* the header is 64 bytes (ublk-zone.c's struct jhdr) */
	return (struct znp_ublk_jent *)((char *)s->journal + 64) + z * ZNP_UBLK_JSLOTS + i;
}

int main(void)
{
	char path[] = "/tmp/test-ublk-journal.XXXXXX";
	struct znp_ublk_server s, s2;
	struct znp_ublk_queue q = { .s = &s };
	struct znp_ublk_tag a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
	const unsigned int own = ZNP_UBLK_JSLOTS - 1;
	int fd = mkstemp(path);
	unsigned int i;

	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	CHECK(!io_uring_queue_init(8, &q.ring, 0), "io_uring");
	server(&s, fd);
	CHECK_INT(znp_ublk_zones_init(&s, false), 0);
	CHECK(s.journal != NULL);

	/* append a owns zone 1; its commit is late: b (the next owner) is recorded first */
	a.ext.zone_no = b.ext.zone_no = 1;
	znp_ublk_journal_set(&s, &a, 8, 4);
	CHECK_INT(ZNP_UBLK_J_KIND(slot(&s, 1, own)->state), ZNP_UBLK_J_INFLIGHT);
	znp_ublk_journal_set(&s, &b, 12, 4);
	CHECK(a.jgen && b.jgen && a.jgen != b.jgen, "generations %u %u", a.jgen, b.jgen);
	logged[0] = 0;
	znp_ublk_journal_commit(&q, &a);
	CHECK_INT(slot(&s, 1, own)->state, ZNP_UBLK_J_INFLIGHT | b.jgen << 8);
	CHECK_U64(slot(&s, 1, own)->lba, 12);
	CHECK(strstr(logged, "holds another record"), "said: %s", logged);
	CHECK_INT(a.jgen, 0);
	/* b's own commit clears it */
	znp_ublk_journal_commit(&q, &b);
	CHECK_INT(slot(&s, 1, own)->state, 0);

	/* the same LBA again (the zone was reset between): the generation tells them apart */
	c.ext.zone_no = d.ext.zone_no = 2;
	znp_ublk_journal_set(&s, &d, 0, 8);
	znp_ublk_journal_set(&s, &c, 0, 8);
	znp_ublk_journal_commit(&q, &d);
	CHECK_INT(ZNP_UBLK_J_KIND(slot(&s, 2, own)->state), ZNP_UBLK_J_INFLIGHT);
	CHECK_INT(ZNP_UBLK_J_GEN(slot(&s, 2, own)->state), c.jgen);

	/*
	 * A dead server's journal: zone 2 still holds c; zone 3 has a record in
	 * every slot (one more than a new server keeps); zone 0 one being
	 * committed; zone 1 one out of range.
	 */
	for (i = 0; i < ZNP_UBLK_JSLOTS; i++) {
		slot(&s, 3, i)->lba = 100 + 10 * i;
		slot(&s, 3, i)->nlb = 4;
		slot(&s, 3, i)->state = ZNP_UBLK_J_INFLIGHT | (i + 1) << 8;
	}
	slot(&s, 0, own)->lba = 40;
	slot(&s, 0, own)->nlb = 4;
	slot(&s, 0, own)->state = ZNP_UBLK_J_COMMITTING | 9 << 8;
	slot(&s, 1, own)->lba = 1020;
	slot(&s, 1, own)->nlb = 8;
	slot(&s, 1, own)->state = ZNP_UBLK_J_INFLIGHT | 5 << 8;
	znp_ublk_zones_free(&s);

	server(&s2, fd);
	logged[0] = 0;
	CHECK_INT(znp_ublk_zones_init(&s2, true), 0);
	/* nothing is taken over before the device is ours (START_USER_RECOVERY) */
	CHECK_INT(s2.zs[2].ninh, 0);
	CHECK_INT(ZNP_UBLK_J_KIND(slot(&s2, 2, own)->state), ZNP_UBLK_J_INFLIGHT);
	znp_ublk_zones_inherit(&s2);
	CHECK_INT(s2.zs[2].ninh, 1);
	CHECK_U64(s2.zs[2].inh[0].lba, 0);
	CHECK_INT(s2.zs[3].ninh, ZNP_UBLK_JSLOTS - 1);
	CHECK_INT(s2.zs[0].ninh, 0);
	CHECK_INT(s2.zs[1].ninh, 0);
	/* every record not kept is said, with its LBA */
	CHECK(strstr(logged, "zone 3: more unresolved append records than the journal holds (7): "
		      "the one at LBA +170"), "said: %s", logged);
	CHECK(strstr(logged, "zone 0: an append at LBA +40 was being acknowledged"), "said: %s",
	      logged);
	CHECK(strstr(logged, "zone 1: ignoring a journal record out of range (LBA 1020 +8)"),
	      "said: %s", logged);
	/* the kept records are in the journal again, own slots free */
	for (i = 0; i < ZNP_UBLK_JSLOTS - 1; i++)
		CHECK_INT(ZNP_UBLK_J_KIND(slot(&s2, 3, i)->state), ZNP_UBLK_J_INFLIGHT);
	CHECK_INT(slot(&s2, 3, own)->state, 0);
	CHECK_INT(slot(&s2, 2, own)->state, 0);
	znp_ublk_zones_free(&s2);

	/* a journal of the earlier format (4 slots a zone) is not read as this one */
	CHECK(!ftruncate(fd, 64 + 4 * 4 * 16), "ftruncate");
	server(&s2, fd);
	logged[0] = 0;
	CHECK_INT(znp_ublk_zones_init(&s2, true), 0);
	znp_ublk_zones_inherit(&s2);
	CHECK(strstr(logged, "no valid append journal"), "said: %s", logged);
	for (i = 0; i < 4; i++)
		CHECK_INT(s2.zs[i].ninh, 0);
	znp_ublk_zones_free(&s2);

	io_uring_queue_exit(&q.ring);
	close(fd);
	unlink(path);
	return t_done("ublk-journal");
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: its log. The main thread writes through the caller's log
 * function; a queue thread's line goes to a ring the main thread drains.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ublk-priv.h"

void znp_ublk_log(struct znp_ublk_server *s, int prio, const char *fmt, ...)
{
	char line[ZNP_UBLK_LOG_LINE];
	va_list ap;

	if (!s->o.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&s->log_lock);
	if (s->log_async && !pthread_equal(pthread_self(), s->main_thread)) {
		/*
		 * A queue thread never waits for the log (a stalled journal
		 * under memory pressure would stall the device): the line goes
		 * to a ring that the main thread writes out.
		 */
		if (s->log_n < ZNP_UBLK_LOG_RING) {
			unsigned int i = (s->log_head + s->log_n) % ZNP_UBLK_LOG_RING;

			s->log_ring[i].prio = prio;
			memcpy(s->log_ring[i].line, line, sizeof(line));
			s->log_n++;
		} else {
			s->log_lost++;
		}
		pthread_mutex_unlock(&s->log_lock);
		znp_ublk_log_wake(s);
		return;
	}
	s->o.log(s->o.log_arg, prio, "%s", line);
	pthread_mutex_unlock(&s->log_lock);
}

void znp_ublk_log_drain(struct znp_ublk_server *s)
{
	struct znp_ublk_logline l;
	unsigned long lost;

	for (;;) {
		pthread_mutex_lock(&s->log_lock);
		if (!s->log_n && !s->log_lost) {
			pthread_mutex_unlock(&s->log_lock);
			return;
		}
		lost = 0;
		if (s->log_n) {
			l = s->log_ring[s->log_head];
			s->log_head = (s->log_head + 1) % ZNP_UBLK_LOG_RING;
			s->log_n--;
		} else {
			lost = s->log_lost;
			s->log_lost = 0;
		}
		pthread_mutex_unlock(&s->log_lock);
		if (lost)
			s->o.log(s->o.log_arg, LOG_WARNING, "ublk%d: %lu log lines dropped (the log "
				 "could not keep up)", s->dev_id, lost);
		else
			s->o.log(s->o.log_arg, l.prio, "%s", l.line);
	}
}

#ifdef ZNP_TEST_HOOKS
void znp_ublk_test_stop(struct znp_ublk_server *s, const char *point)
{
	if (!s->test_stop_at || strcmp(s->test_stop_at, point) ||
	    atomic_exchange(&s->test_stopped, true))
		return;
	/* the test sees the process stopped (state T) and SIGKILLs it here */
	kill(getpid(), SIGSTOP);
}
#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/* Progress on a terminal for the ranged zone commands and discard. */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "progress.h"

bool znp_cli_progress_init(struct znp_cli_progress *pg, const struct znp_cli *cli,
			   const struct znp_opts *o, const char *what, bool bytes)
{
	*pg = (struct znp_cli_progress){ .what = what, .bytes = bytes };
	/* for a person only: a script reads the result, not a line rewritten in place */
	if (o->fmt == ZNP_FMT_JSON || !cli->err || !isatty(fileno(cli->err)))
		return false;
	pg->tty = cli->err;
	return true;
}

static void eta_str(char *buf, size_t size, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	if (t < 60)
		snprintf(buf, size, "%lu s", t);
	else if (t < 3600)
		snprintf(buf, size, "%lum%02lus", t / 60, t % 60);
	else
		snprintf(buf, size, "%luh%02lum", t / 3600, t / 60 % 60);
}

void znp_cli_progress_fmt(char *buf, size_t size, const char *what, bool bytes,
			  const struct znp_aio_progress *p)
{
	uint64_t done = bytes ? p->bytes_done : p->cmds_done;
	uint64_t total = bytes ? p->bytes_total : p->cmds_total;
	unsigned int pct = total ? (unsigned int)((double)done * 100 / (double)total) : 100;
	double rate = p->seconds > 0 ? (double)p->cmds_done / p->seconds : 0;
	double left = p->cmds_total > p->cmds_done ? (double)(p->cmds_total - p->cmds_done) : 0;
	char eta[32], a[32], b[32];

	if (pct > 100)
		pct = 100;
	if (rate > 0)
		eta_str(eta, sizeof(eta), left / rate);
	else
		snprintf(eta, sizeof(eta), "?");
	if (bytes) {
		znp_human_size(a, sizeof(a), p->bytes_done);
		znp_human_size(b, sizeof(b), p->bytes_total);
		snprintf(buf, size, "%s: %u%% (%s of %s, %" PRIu64 "/%" PRIu64 " commands), "
			 "%.0f IOPS, ETA %s", what, pct, a, b, p->cmds_done, p->cmds_total, rate,
			 eta);
	} else {
		snprintf(buf, size, "%s: %u%% (%" PRIu64 "/%" PRIu64 " zones), %.0f zones/s, "
			 "ETA %s", what, pct, p->cmds_done, p->cmds_total, rate, eta);
	}
}

void znp_cli_progress_cb(const struct znp_aio_progress *p, void *arg)
{
	struct znp_cli_progress *pg = arg;
	char line[256];

	if (!pg->tty)
		return;
	znp_cli_progress_fmt(line, sizeof(line), pg->what, pg->bytes, p);
	fprintf(pg->tty, "\r%s\033[K", line);
	fflush(pg->tty);
	pg->shown = true;
}

void znp_cli_progress_end(struct znp_cli_progress *pg)
{
	if (pg->shown)
		fputc('\n', pg->tty);
	pg->shown = false;
}

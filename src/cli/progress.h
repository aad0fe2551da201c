/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Progress of long work on a terminal: the ranged zone commands and
 * discard. One line on stderr, rewritten in place: percentage, done/total,
 * rate, ETA. Off when stderr is not a terminal or the output is JSON.
 */
#ifndef ZNP_CLI_PROGRESS_H
#define ZNP_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "cmdtab.h"

struct znp_cli_progress {
	FILE *tty;		/* NULL: off */
	const char *what;	/* "reset", "discard" */
	bool bytes;		/* the percentage from bytes (discard), else from commands */
	bool shown;		/* a line is on the terminal */
};

/**
 * znp_cli_progress_init() - decide whether @pg shows anything
 * Return: true when on (stderr a terminal, -o normal): pass
 * znp_cli_progress_cb() and @pg to the engine.
 */
bool znp_cli_progress_init(struct znp_cli_progress *pg, const struct znp_cli *cli,
			   const struct znp_opts *o, const char *what, bool bytes);

/* The engine's progress callback (struct znp_aio_progress); @arg: the znp_cli_progress. */
void znp_cli_progress_cb(const struct znp_aio_progress *p, void *arg);

/* Ends the line, if one was shown, so that what follows starts on its own. */
void znp_cli_progress_end(struct znp_cli_progress *pg);

/* "42% (84/200 zones), 1234 zones/s, ETA 3 s" for @p, without the leading "\r". */
void znp_cli_progress_fmt(char *buf, size_t size, const char *what, bool bytes,
			  const struct znp_aio_progress *p);

#endif

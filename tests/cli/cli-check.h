/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Assertion helpers shared by the command-layer C tests (exit 0 pass, 1 fail). */
#ifndef ZNP_CLI_CHECK_H
#define ZNP_CLI_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n",		\
			__FILE__, __LINE__, #cond);			\
		failures++;						\
	}								\
} while (0)

/* Return: the exit status, after a summary line on stderr when something failed. */
static inline int check_done(void)
{
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures ? 1 : 0;
}

#endif

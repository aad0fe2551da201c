/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ctrl-C for long-running commands: the handler only sets a flag, which the
 * async engine polls (struct znp_aio_job.stop); waits are not restarted.
 */
#ifndef ZNP_CLI_SIGINT_H
#define ZNP_CLI_SIGINT_H

#include <signal.h>
#include <stdatomic.h>

/*
 * The signal number seen (SIGINT or SIGTERM), 0 if none: a lock-free atomic,
 * which a signal handler may set (C11 7.14.1.1) and any thread may read.
 */
extern atomic_int znp_cli_interrupted;

/* Install the handler and clear the flag. Return: 0 or -errno. */
int znp_cli_sigint_begin(void);
/* Restore the previous handlers. */
void znp_cli_sigint_end(void);

#endif

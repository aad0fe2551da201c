// SPDX-License-Identifier: GPL-2.0-or-later
/* Ctrl-C / SIGTERM for long-running commands: the handler only sets a flag. */
#include <errno.h>
#include <string.h>

#include "sigint.h"

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler may only set a lock-free atomic");

atomic_int znp_cli_interrupted;
static struct sigaction old_int, old_term;

static void on_signal(int sig)
{
	atomic_store(&znp_cli_interrupted, sig);
}

int znp_cli_sigint_begin(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: waits return EINTR */
	sigemptyset(&sa.sa_mask);
	atomic_store(&znp_cli_interrupted, 0);
	if (sigaction(SIGINT, &sa, &old_int))
		return -errno;
	if (sigaction(SIGTERM, &sa, &old_term)) {
		int err = -errno;

		/* all or nothing: the caller runs no end() after a failure */
		sigaction(SIGINT, &old_int, NULL);
		return err;
	}
	return 0;
}

void znp_cli_sigint_end(void)
{
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
}

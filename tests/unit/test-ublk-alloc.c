// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ublk server's allocation failing half-way: an eventfd that cannot be
 * made leaves no descriptor behind (the others are closed too), whichever
 * of them fails. Needs no ublk driver: the failure comes before
 * /dev/ublk-control is opened.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test.h"
#include "znp.h"

/* eventfd(2) with a fault switch: the library's call resolves to this one. */
static int eventfd_calls, eventfd_fail_at;

int eventfd(unsigned int initval, int flags)
{
	if (++eventfd_calls == eventfd_fail_at) {
		errno = EMFILE;
		return -1;
	}
	return (int)syscall(SYS_eventfd2, initval, flags);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own descriptor */
}

int main(void)
{
	struct znp_ublk_opts o = { .dev_id = -1 };
	struct znp_dev dev = { .fd = -1 };
	struct znp_ublk_server *s0;
	int nr;

	/* how many the server makes: none fails, the dummy namespace is refused later */
	eventfd_calls = eventfd_fail_at = 0;
	CHECK(znp_ublk_server_create(&dev, &o, &s0) < 0 && !s0, "a dummy namespace is refused");
	nr = eventfd_calls;
	CHECK(nr >= 2, "%d eventfds", nr);
	for (eventfd_fail_at = 1; eventfd_fail_at <= nr; eventfd_fail_at++) {
		struct znp_ublk_server *s = (struct znp_ublk_server *)&dev;
		int before = open_fds(), ret;

		eventfd_calls = 0;
		ret = znp_ublk_server_create(&dev, &o, &s);
		CHECK_INT(ret, -EMFILE);
		CHECK(s == NULL, "no server handed out");
		CHECK_INT(eventfd_calls, nr);
		CHECK(before > 0 && open_fds() == before, "eventfd %d failing: %d descriptors "
		      "open before, %d after", eventfd_fail_at, before, open_fds());
	}
	return t_done("ublk-alloc");
}

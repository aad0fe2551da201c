// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notify-listen: stand in for systemd's notification socket in VM tests.
 * Binds an AF_UNIX datagram socket at PATH (removed first), waits up to SEC
 * seconds for one message and prints it on stdout. A service started with
 * NOTIFY_SOCKET=PATH that follows the Type=notify protocol sends "READY=1".
 *
 *   notify-listen PATH SEC
 *
 * Exit 0: a message was printed; 1: timeout or error (said on stderr).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	struct pollfd pfd;
	ssize_t n;
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify-listen PATH SEC\n");
		return 1;
	}
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "notify-listen: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, atoi(argv[2]) * 1000) != 1) {
		fprintf(stderr, "notify-listen: %s: no message in %s s\n", argv[1], argv[2]);
		return 1;
	}
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		fprintf(stderr, "notify-listen: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	buf[n] = '\0';
	printf("%s\n", buf);
	return 0;
}

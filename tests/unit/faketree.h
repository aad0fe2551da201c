/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Build a throw-away sysfs-like tree under a temporary directory. */
#ifndef ZNP_FAKETREE_H
#define ZNP_FAKETREE_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char ft_root[256];

static void ft_mkdirs(const char *path)
{
	char tmp[1024], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

static void ft_parent(const char *path)
{
	char tmp[1024], *s;

	snprintf(tmp, sizeof(tmp), "%s", path);
	s = strrchr(tmp, '/');
	if (s) {
		*s = '\0';
		ft_mkdirs(tmp);
	}
}

static const char *ft_path(const char *rel)
{
	static char buf[4][1024];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", ft_root, rel);
	return buf[i];
}

static void ft_dir(const char *rel)
{
	ft_mkdirs(ft_path(rel));
}

static void ft_write(const char *rel, const char *val)
{
	const char *p = ft_path(rel);
	FILE *f;

	ft_parent(p);
	f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(1);
	}
	fprintf(f, "%s\n", val);
	fclose(f);
}

/* Symlink @rel -> @target (taken literally, may be relative). */
static void ft_link(const char *rel, const char *target)
{
	const char *p = ft_path(rel);

	ft_parent(p);
	unlink(p);
	if (symlink(target, p)) {
		perror(p);
		exit(1);
	}
}

static void ft_init(void)
{
	snprintf(ft_root, sizeof(ft_root), "/tmp/znp-unit-XXXXXX");
	if (!mkdtemp(ft_root)) {
		perror("mkdtemp");
		exit(1);
	}
}

static void ft_cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ft_root);
	if (system(cmd))
		fprintf(stderr, "cleanup of %s failed\n", ft_root);
}

#endif

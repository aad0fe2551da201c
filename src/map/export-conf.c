// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * export --persist: a mapping's export options in
 * <conf_dir>/export-<instance>.conf, which zns-npo2-export@<instance>.service
 * reads at boot (ZNP_EXPORT_ARGS=..., an EnvironmentFile= line whose value
 * ExecStart= splits at blanks). <instance> is the mapping's name escaped as
 * systemd-escape does (the unit's %i). The file is replaced atomically
 * (znp_file_replace(): a planted temporary is never written), mode 0644; a
 * symbolic link or anything but a regular file at its name is refused
 * before the export is made or removed, so a refusal changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map-priv.h"

#define CONF_MODE	0644

/*
 * A value the unit gets back as one word: printable, no blank, none of
 * the quotes, backslash and '$' an EnvironmentFile= line or ExecStart=
 * would interpret.
 */
static bool is_conf_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~' || strchr("'\"\\$", *s))
			return false;
	return true;
}

/* The first of @r's free-form values that is no conf word, or NULL. */
static const char *bad_word(const struct znp_map_export_req *r)
{
	if (r->traddr && !is_conf_word(r->traddr))
		return r->traddr;
	if (r->trsvcid && !is_conf_word(r->trsvcid))
		return r->trsvcid;
	if (r->transport && !is_conf_word(r->transport))
		return r->transport;
	return NULL;
}

int znp_map_export_conf(const struct znp_map_ctx *c, const char *name,
			const struct znp_map_export_req *r, char *path, size_t size,
			struct znp_map_err *e)
{
	char inst[ZNP_DM_NAME_MAX * 4 + 1];
	const char *bad = r ? bad_word(r) : NULL;
	struct stat st;
	int n;

	if (bad) {
		e->subject = bad;
		return znp_map_fail(e, ZNP_MAP_USAGE, -EINVAL,
				    "cannot be recorded for the export unit (a blank, quote, "
				    "backslash or '$')");
	}
	if (znp_unit_escape(name, inst, sizeof(inst)))
		return znp_map_fail(e, ZNP_MAP_USAGE, -EINVAL,
				    "cannot be a systemd unit instance name");
	n = snprintf(path, size, "%s/export-%s.conf", c->conf_dir ? c->conf_dir :
		     ZNP_EXPORT_CONF_DIR, inst);
	if (n < 0 || (size_t)n >= size)
		return znp_map_fail(e, ZNP_MAP_USAGE, -ENAMETOOLONG, "export file name too long");
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		return znp_map_fail(e, ZNP_MAP_FAILED, -errno, "cannot look at %s: %s", path,
				    strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return znp_map_fail(e, ZNP_MAP_REFUSED, -ELOOP,
				    "%s is a symbolic link: export --persist neither writes "
				    "through it nor removes it", path);
	if (!S_ISREG(st.st_mode))
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EEXIST,
				    "%s exists and is not a regular file", path);
	return 1;
}

int znp_map_export_conf_write(const char *path, const struct znp_map_export_req *r,
			      struct znp_map_err *e)
{
	char buf[1024], dir[PATH_MAX];
	const char *base = strrchr(path, '/');
	int n, dirfd, ret;

	n = snprintf(buf, sizeof(buf),
		     "# export --persist; read by zns-npo2-export@.service at boot\n"
		     "ZNP_EXPORT_ARGS=--nqn %s --transport %s%s%s%s%s %s%s\n", r->nqn,
		     r->transport, r->traddr ? " --traddr " : "", r->traddr ? r->traddr : "",
		     r->trsvcid ? " --trsvcid " : "", r->trsvcid ? r->trsvcid : "",
		     r->hostnqn ? "--hostnqn " : "--allow-any-host", r->hostnqn ? r->hostnqn : "");
	if (n < 0 || (size_t)n >= sizeof(buf))
		return znp_map_fail(e, ZNP_MAP_USAGE, -ENAMETOOLONG, "export options too long");
	if (!base || znp_strlcpy(dir, path, sizeof(dir)))
		return znp_map_fail(e, ZNP_MAP_FAILED, -EINVAL, "bad export file name %s", path);
	dir[base - path] = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		return znp_map_fail(e, ZNP_MAP_FAILED, -errno, "cannot create %s: %s", dir,
				    strerror(errno));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return znp_map_fail(e, ZNP_MAP_FAILED, -errno, "cannot open %s: %s", dir,
				    strerror(errno));
	ret = znp_file_replace(dirfd, base + 1, buf, (size_t)n, CONF_MODE);
	close(dirfd);
	if (ret)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot write %s: %s", path,
				    strerror(-ret));
	return 0;
}

int znp_map_export_conf_remove(const char *path, struct znp_map_err *e)
{
	if (unlink(path) && errno != ENOENT)
		return znp_map_fail(e, ZNP_MAP_FAILED, -errno, "cannot remove %s: %s", path,
				    strerror(errno));
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/* Is the ublk route open on the running kernel? */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svc.h"

enum znp_ublk_route znp_ublk_route_decide(bool ctl, bool module, int probe_ret,
					  uint64_t features)
{
	if (probe_ret == -ENOENT)
		ctl = false;	/* gone since we looked (module unloaded) */
	if (ctl && (!probe_ret || probe_ret == -EOPNOTSUPP))
		return (features & ZNP_ROUTE_F_NEEDED) == ZNP_ROUTE_F_NEEDED ? ZNP_ROUTE_OPEN
									   : ZNP_ROUTE_NO_ZONED;
	if (ctl)
		return ZNP_ROUTE_UNVERIFIED;
	return module ? ZNP_ROUTE_LOADABLE : ZNP_ROUTE_ABSENT;
}

const char *znp_ublk_route_name(enum znp_ublk_route r)
{
	switch (r) {
	case ZNP_ROUTE_ABSENT:
		return "absent";
	case ZNP_ROUTE_OPEN:
		return "open";
	case ZNP_ROUTE_LOADABLE:
		return "loadable";
	case ZNP_ROUTE_UNVERIFIED:
		return "unverified";
	case ZNP_ROUTE_NO_ZONED:
		return "no-zoned-ublk";
	}
	return "unknown";
}

bool znp_ublk_route_usable(enum znp_ublk_route r)
{
	return r == ZNP_ROUTE_OPEN || r == ZNP_ROUTE_LOADABLE || r == ZNP_ROUTE_UNVERIFIED;
}

/*
 * Does a modules.dep-style file list ublk_drv as a module of its own? Each
 * line starts with a module's path ("kernel/drivers/block/ublk_drv.ko.xz:
 * deps..." in modules.dep, the bare path in modules.builtin).
 */
static bool lists_ublk(const char *path)
{
	static const char mod[] = "ublk_drv.ko";
	char line[1024];
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *base;

		line[strcspn(line, ":\n")] = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		found = !strncmp(base, mod, sizeof(mod) - 1) &&
			(!base[sizeof(mod) - 1] || base[sizeof(mod) - 1] == '.');
	}
	fclose(f);
	return found;
}

bool znp_ublk_module_installed(const char *modules_dir)
{
	char path[4096];

	if (!modules_dir)
		return false;
	snprintf(path, sizeof(path), "%s/modules.dep", modules_dir);
	if (lists_ublk(path))
		return true;
	snprintf(path, sizeof(path), "%s/modules.builtin", modules_dir);
	return lists_ublk(path);
}

void znp_ublk_route(const char *ctl_path, const char *modules_dir,
		    int (*probe)(uint64_t *features), struct znp_ublk_route_info *out)
{
	struct stat st;
	bool ctl = ctl_path && !stat(ctl_path, &st) && S_ISCHR(st.st_mode);
	bool module = false;

	out->features = 0;
	out->probe_ret = 1;
	if (ctl && probe)
		out->probe_ret = probe(&out->features);
	if (!ctl)
		module = znp_ublk_module_installed(modules_dir);
	out->route = znp_ublk_route_decide(ctl, module, out->probe_ret, out->features);
}

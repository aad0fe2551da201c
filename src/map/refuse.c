// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Refusals of the mapping life cycle: the one table from a check verdict to
 * the refusal each route gives, and the reasons both routes share.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "map.h"

int znp_map_fail(struct znp_map_err *e, enum znp_map_kind kind, int ret, const char *fmt, ...)
{
	va_list ap;

	e->kind = kind;
	e->ret = ret;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	return ret < 0 ? ret : -EIO;
}

const char *znp_map_conf_strerror(const char *conf, int ret, char *buf, size_t size)
{
	char path[64], comm[64] = "";
	pid_t pid;
	FILE *f;

	if (ret != -EBUSY)
		return znp_strerror(ret);
	pid = znp_dmconf_lock_holder(conf);
	if (pid <= 0) {
		snprintf(buf, size, "its lock %s.lock stayed held for %d s", conf,
			 ZNP_DMCONF_LOCK_MS / 1000);
		return buf;
	}
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(buf, size, "its lock %s.lock stayed held for %d s by pid %ld%s%s%s", conf,
		 ZNP_DMCONF_LOCK_MS / 1000, (long)pid, comm[0] ? " (" : "", comm,
		 comm[0] ? ")" : "");
	return buf;
}

int znp_map_forget(const struct znp_map_ctx *c, const char *ident, struct znp_map_removed *out,
		   struct znp_map_err *e)
{
	char lockwhy[PATH_MAX + 96];
	int ret = znp_dmconf_drop(c->config, ident, NULL);

	if (ret < 0)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "removed, but cannot update %s: %s",
				    c->config, znp_map_conf_strerror(c->config, ret, lockwhy,
				    sizeof(lockwhy)));
	out->forgotten = ret == 1;
	return 0;
}

/* What a refusal text is followed by (its printf arguments). */
enum refusal_args {
	ARGS_NONE,		/* the text alone */
	ARGS_SIZE,		/* zone size */
	ARGS_CAP_SIZE,		/* zone capacity, zone size */
	ARGS_VERDICT,		/* znp_verdict_text() */
	ARGS_FORMAT,		/* the LBA format (metadata, PI) */
};

struct refusal {
	enum znp_map_kind kind;	/* ZNP_MAP_OK: accepted */
	enum refusal_args args;
	const char *fmt;
};

static const char no_npo2[] = "kernel lacks npo2 support: it hid the block device of "
	"this npo2 namespace (boot a kernel with kernel-patches/)";
static const char no_md_dm[] = "the kernel gives the block device no capacity for this LBA "
	"format (%u bytes of metadata per LBA, %s%s)";
static const char cap_dm[] = "zone capacity 0x%" PRIx64 " < zone size 0x%" PRIx64
	" LBAs: dm-po2zone needs capacity == size";
static const char cap_ublk[] = "zone capacity 0x%" PRIx64 " < zone size 0x%" PRIx64
	" LBAs: a po2 mapping needs capacity == size";
static const char is_po2[] = "zone size 0x%" PRIx64 " LBAs is a power of 2: nothing to do "
	"(no mapping needed)";

/*
 * The one table: for each verdict, what each route says. A visible block
 * device (ZNP_V_MAPPABLE) is refused by the ublk route unless --force-ublk
 * (znp_map_refuse()); ZNP_V_METADATA with a visible block device is the dm
 * route's own text (no_md_dm).
 */
static const struct refusal table[][2] = {
	[ZNP_V_MAPPABLE] = {
		[ZNP_MAP_VIA_DM] = { ZNP_MAP_OK, ARGS_NONE, NULL },
		[ZNP_MAP_VIA_UBLK] = { ZNP_MAP_REFUSED, ARGS_NONE, "the kernel shows this "
			"namespace's block device (npo2 kernel patches): map it with plain `map` "
			"(dm-po2zone, cheaper), or add --force-ublk to serve it through ublk "
			"anyway" },
	},
	[ZNP_V_PO2] = {
		[ZNP_MAP_VIA_DM] = { ZNP_MAP_UNSUITABLE, ARGS_SIZE, is_po2 },
		[ZNP_MAP_VIA_UBLK] = { ZNP_MAP_UNSUITABLE, ARGS_SIZE, is_po2 },
	},
	[ZNP_V_NEEDS_KERNEL] = {
		[ZNP_MAP_VIA_DM] = { ZNP_MAP_UNSUPPORTED, ARGS_NONE, no_npo2 },
		[ZNP_MAP_VIA_UBLK] = { ZNP_MAP_OK, ARGS_NONE, NULL },
	},
	[ZNP_V_UBLK] = {
		[ZNP_MAP_VIA_DM] = { ZNP_MAP_UNSUPPORTED, ARGS_NONE, no_npo2 },
		[ZNP_MAP_VIA_UBLK] = { ZNP_MAP_OK, ARGS_NONE, NULL },
	},
	[ZNP_V_CAP_LT_SIZE] = {
		[ZNP_MAP_VIA_DM] = { ZNP_MAP_UNSUITABLE, ARGS_CAP_SIZE,
			cap_dm },
		[ZNP_MAP_VIA_UBLK] = { ZNP_MAP_UNSUITABLE, ARGS_CAP_SIZE,
			cap_ublk },
	},
	[ZNP_V_CAP_VARIES] = {
		[ZNP_MAP_VIA_DM] = { ZNP_MAP_UNSUITABLE, ARGS_VERDICT, "%s" },
		[ZNP_MAP_VIA_UBLK] = { ZNP_MAP_UNSUITABLE, ARGS_VERDICT, "%s" },
	},
	[ZNP_V_NOT_ZNS] = {
		[ZNP_MAP_VIA_DM] = { ZNP_MAP_UNSUITABLE, ARGS_NONE, "not a zoned namespace or "
			"zoned block device" },
		[ZNP_MAP_VIA_UBLK] = { ZNP_MAP_UNSUITABLE, ARGS_NONE, "not a zoned namespace" },
	},
	[ZNP_V_METADATA] = {
		[ZNP_MAP_VIA_DM] = { ZNP_MAP_UNSUPPORTED, ARGS_NONE, no_npo2 },
		[ZNP_MAP_VIA_UBLK] = { ZNP_MAP_UNSUITABLE, ARGS_FORMAT, NULL },
	},
};

/* An LBA format with metadata or PI, named as Identify Namespace gives it (ublk). */
static int refuse_format(const struct znp_geom *g, struct znp_map_err *e)
{
	char pi[48] = "";

	if (g->pi_type)
		snprintf(pi, sizeof(pi), ", protection information type %u", g->pi_type);
	if (!g->md_bytes)
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EINVAL, "the LBA format has protection "
				    "information type %u: the ublk server moves data only (no "
				    "metadata, no PI)", g->pi_type);
	return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EINVAL, "the LBA format has %u bytes of "
			    "metadata per LBA (%s%s): the ublk server moves data only (no "
			    "metadata, no PI)", g->md_bytes, g->md_extended ? "extended LBA, "
			    "interleaved with the data" : "in a separate buffer", pi);
}

/* The formats are this file's table: literal, checked here by hand. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
static int refuse_row(const struct refusal *r, enum znp_verdict v, const struct znp_geom *g,
		      struct znp_map_err *e)
{
	switch (r->args) {
	case ARGS_NONE:
		return znp_map_fail(e, r->kind, -EINVAL, r->fmt);
	case ARGS_SIZE:
		return znp_map_fail(e, r->kind, -EINVAL, r->fmt, g->zone_size);
	case ARGS_CAP_SIZE:
		return znp_map_fail(e, r->kind, -EINVAL, r->fmt, g->zone_cap, g->zone_size);
	case ARGS_VERDICT:
		return znp_map_fail(e, r->kind, -EINVAL, r->fmt, znp_verdict_text(v));
	case ARGS_FORMAT:
		return refuse_format(g, e);
	}
	return znp_map_fail(e, ZNP_MAP_FAILED, -EINVAL, "no refusal for verdict %d", (int)v);
}
#pragma GCC diagnostic pop

int znp_map_refuse(const struct znp_map_ctx *c, enum znp_map_via via, const struct znp_dev *dev,
		   struct znp_map_err *e)
{
	const struct znp_ns_info *ns = znp_dev_is_nvme(dev) ? &dev->ns : NULL;
	const struct znp_geom *g = &dev->geom;
	const struct refusal *r;
	struct znp_check_result res;
	int ret;

	if (via == ZNP_MAP_VIA_UBLK && !ns)
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENODEV, "not an NVMe namespace: a ublk "
				    "mapping serves an NVMe ZNS namespace through its ng node");
	ret = znp_check(ns, g, dev->is_zoned, &res);
	if (ret)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot decide: %s", znp_strerror(ret));
	if ((unsigned int)res.verdict >= ZNP_ARRAY_SIZE(table))
		return znp_map_fail(e, ZNP_MAP_FAILED, -EINVAL, "unknown verdict %d",
				    (int)res.verdict);
	r = &table[res.verdict][via];
	if (via == ZNP_MAP_VIA_UBLK && res.verdict == ZNP_V_MAPPABLE && c->force_ublk)
		r = &table[ZNP_V_NEEDS_KERNEL][via];
	if (via == ZNP_MAP_VIA_DM && res.verdict == ZNP_V_METADATA &&
	    !(res.reasons & ZNP_R_BLK_HIDDEN))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EINVAL, no_md_dm, g->md_bytes,
				    g->md_extended ? "extended LBA" : "separate",
				    g->pi_type ? ", protection information" : "");
	if (r->kind != ZNP_MAP_OK)
		return refuse_row(r, res.verdict, g, e);
	if (via == ZNP_MAP_VIA_UBLK && znp_lba_format_has_md(g))	/* visible, --force-ublk */
		return refuse_format(g, e);
	if (res.reasons & ZNP_R_SMALL_LAST_ZONE)
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EINVAL, "the last zone is smaller than "
				    "the others: %s maps whole zones only",
				    via == ZNP_MAP_VIA_DM ? "dm-po2zone" : "a po2 mapping");
	return 0;
}

int znp_map_dm_target_error(int ret, struct znp_map_err *e)
{
	if (ret == -ENODEV)
		return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, ret, "device-mapper is not available "
				    "(kernel without it, or no access to /dev/mapper/control)");
	if (ret == -EOPNOTSUPP)
		return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, ret, "the kernel has no dm-po2zone "
				    "target: build it with kernel-patches/ (CONFIG_DM_PO2ZONE)");
	return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot list device-mapper targets: %s",
			    znp_strerror(ret));
}

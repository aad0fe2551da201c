// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mapping file's lines: parsing (the state-file toolkit's line walker,
 * field splitter and number parser: znp_line_next, znp_kv_split,
 * znp_dec_u64) and formatting; pure text functions. dmconf.c reads and
 * rewrites the file. Names and identities are checked by the dm room's
 * rules (znp_dm_name_invalid(), znp_ident_valid()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dmconf.h"

/* One blank-separated field of a line of known length. */
static bool line_field(const char **p, const char *end, const char **f, size_t *n)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end)
		return false;
	*f = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*n = (size_t)(s - *f);
	*p = s;
	return true;
}

/* One key=value field after the identity into @e; @seen tracks the keys given. */
static int parse_key(const char *f, size_t n, unsigned int *seen, struct znp_dmconf_entry *e,
		     const char **why)
{
	struct znp_kv kv;
	unsigned int bit;
	uint64_t x;

	if (!znp_kv_split(f, n, &kv))
		bit = 0;
	else if (znp_kv_is(&kv, "lba_size"))
		bit = 1;
	else if (znp_kv_is(&kv, "zone_size"))
		bit = 2;
	else if (znp_kv_is(&kv, "nr_zones"))
		bit = 4;
	else if (znp_kv_is(&kv, "via"))
		bit = 8;
	else
		bit = 0;
	if (!bit) {
		if (*f == '#')
			*why = "comments must be on their own line";
		else
			*why = "unknown key (want lba_size, zone_size, nr_zones, via)";
		return -EINVAL;
	}
	if (*seen & bit) {
		*why = "key given twice";
		return -EINVAL;
	}
	*seen |= bit;
	if (bit == 8) {
		if (kv.vlen == 4 && !memcmp(kv.val, "ublk", 4)) {
			e->ublk = true;
		} else if (!(kv.vlen == 2 && !memcmp(kv.val, "dm", 2))) {
			*why = "via must be dm or ublk";
			return -EINVAL;
		}
		return 0;
	}
	if (znp_kv_u64(&kv, &x) || !x) {
		*why = "value must be a positive decimal number";
		return -EINVAL;
	}
	if (bit == 1) {
		if (x > UINT32_MAX || !znp_is_po2(x) || x < 512) {
			*why = "lba_size must be a power of 2, at least 512";
			return -EINVAL;
		}
		e->lba_size = (uint32_t)x;
	} else if (bit == 2) {
		e->zone_size = x;
	} else {
		e->nr_zones = x;
	}
	return 0;
}

int znp_dmconf_parse_line(const char *line, size_t len, struct znp_dmconf_entry *e,
			  const char **why)
{
	const char *p = line, *end = line + len, *f;
	unsigned int seen = 0;
	const char *bad;
	size_t n;

	memset(e, 0, sizeof(*e));
	if (memchr(line, '\0', len)) {
		*why = "NUL byte in line";
		return -EINVAL;
	}
	if (len && line[len - 1] == '\r')
		end--;		/* tolerate CRLF */
	if (!line_field(&p, end, &f, &n) || *f == '#')
		return 0;
	if (n >= sizeof(e->name)) {
		*why = "name too long";
		return -EINVAL;
	}
	memcpy(e->name, f, n);
	bad = znp_dm_name_invalid(e->name);
	if (bad) {
		*why = bad;
		return -EINVAL;
	}
	if (!line_field(&p, end, &f, &n)) {
		*why = "missing identity after the name";
		return -EINVAL;
	}
	if (n >= sizeof(e->ident)) {
		*why = "identity too long";
		return -EINVAL;
	}
	memcpy(e->ident, f, n);
	if (!znp_ident_valid(e->ident)) {
		*why = "invalid identity (want nguid:HEX, eui64:HEX or sn:SERIAL:nsid:N)";
		return -EINVAL;
	}
	while (line_field(&p, end, &f, &n))
		if (parse_key(f, n, &seen, e, why))
			return -EINVAL;
	return 1;
}

struct seen_list {
	struct znp_dmconf_entry *v;
	size_t n, cap;
};

static const char *dup_of(const struct seen_list *l, const struct znp_dmconf_entry *e)
{
	for (size_t i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].name, e->name))
			return "name already used by an earlier line";
		if (!strcmp(l->v[i].ident, e->ident))
			return "identity already recorded by an earlier line";
	}
	return NULL;
}

static int seen_add(struct seen_list *l, const struct znp_dmconf_entry *e)
{
	struct znp_dmconf_entry *v = znp_grow(l->v, &l->cap, l->n, sizeof(*v), 16);

	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->n++] = *e;
	return 0;
}

int znp_dmconf_parse(const char *buf, size_t len,
		     int (*cb)(unsigned int lineno, const struct znp_dmconf_entry *e,
			       const char *why, void *arg),
		     void *arg)
{
	struct seen_list seen = { 0 };
	struct znp_dmconf_entry e;
	unsigned int lineno = 0;
	size_t off = 0;
	int ret = 0;

	const char *line;
	size_t n;

	while (!ret && (line = znp_line_next(buf, len, &off, &n))) {
		const char *why = NULL;
		int r;

		lineno++;
		r = znp_dmconf_parse_line(line, n, &e, &why);
		if (r == 1) {
			why = dup_of(&seen, &e);
			if (why)
				r = -EINVAL;
		}
		if (r == 1) {
			ret = seen_add(&seen, &e);
			if (!ret)
				ret = cb(lineno, &e, NULL, arg);
		} else if (r < 0) {
			ret = cb(lineno, NULL, why, arg);
		}
	}
	free(seen.v);
	return ret;
}

int znp_dmconf_format(char *buf, size_t size, const struct znp_dmconf_entry *e)
{
	int n;

	if (znp_dm_name_invalid(e->name) || !znp_ident_valid(e->ident))
		return -EINVAL;
	n = snprintf(buf, size, "%s %s", e->name, e->ident);
	if (n >= 0 && (size_t)n < size && e->lba_size)
		n += snprintf(buf + n, size - (size_t)n, " lba_size=%u", e->lba_size);
	if (n >= 0 && (size_t)n < size && e->zone_size)
		n += snprintf(buf + n, size - (size_t)n, " zone_size=%llu",
			      (unsigned long long)e->zone_size);
	if (n >= 0 && (size_t)n < size && e->nr_zones)
		n += snprintf(buf + n, size - (size_t)n, " nr_zones=%llu",
			      (unsigned long long)e->nr_zones);
	if (n >= 0 && (size_t)n < size && e->ublk)
		n += snprintf(buf + n, size - (size_t)n, " via=ublk");
	if (n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "\n");
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

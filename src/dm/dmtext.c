// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dm-po2zone text formats: pure functions, no I/O, no global state. They
 * read what the kernel and users wrote, so every input is bounded and
 * checked; the fuzz targets call them. This file: table and status lines;
 * dmident.c: namespace identity, names and UUIDs. The mapping file's
 * lines are the map room's (src/map/dmconf-text.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dmtext-int.h"
#include "dmtext.h"

#define SEP " \t"

bool znp_dm_is_po2_target(const char *name)
{
	return name && (!strcmp(name, "po2zone") || !strcmp(name, "po2zoned"));
}

int znp_dm_table_len(const struct znp_geom *g, uint64_t *len)
{
	uint64_t lbas = znp_po2_dev_lbas(g);
	uint64_t spl;

	if (g->lba_size < 512 || g->lba_size % 512)
		return -EINVAL;
	if (!lbas)
		return -EOVERFLOW;
	spl = g->lba_size / 512;
	if (lbas > UINT64_MAX / spl)
		return -EOVERFLOW;
	*len = lbas * spl;
	return 0;
}

bool znp_dmtext_has_space(const char *s)
{
	return strpbrk(s, " \t\r\n") != NULL;
}

int znp_dm_table_format(char *buf, size_t size, const struct znp_dm_table *t)
{
	int n;

	if (!t->target[0] || !t->dev[0] || znp_dmtext_has_space(t->target) || znp_dmtext_has_space(t->dev))
		return -EINVAL;
	n = snprintf(buf, size, "%llu %llu %s %s", (unsigned long long)t->start,
		     (unsigned long long)t->len, t->target, t->dev);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Next field of @*p (separated by blanks) into [*start, *start + *n). */
static bool next_field(const char **p, const char **start, size_t *n)
{
	const char *s = *p + strspn(*p, SEP);

	if (!*s || *s == '\n')
		return false;
	*start = s;
	*n = strcspn(s, SEP "\n");
	*p = s + *n;
	return true;
}

static int copy_field(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* Nothing but blanks and one optional newline left? */
static bool at_end(const char *p)
{
	p += strspn(p, SEP);
	if (*p == '\n')
		p++;
	return !*p;
}

int znp_dm_table_parse(const char *line, struct znp_dm_table *t)
{
	const char *p = line, *f;
	size_t n;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!next_field(&p, &f, &n))
		return -EINVAL;
	ret = znp_dec_u64(f, n, &t->start);
	if (ret)
		return ret;
	if (!next_field(&p, &f, &n))
		return -EINVAL;
	ret = znp_dec_u64(f, n, &t->len);
	if (ret)
		return ret;
	if (!t->len || t->start > UINT64_MAX - t->len)
		return -ERANGE;
	if (!next_field(&p, &f, &n))
		return -EINVAL;
	ret = copy_field(t->target, sizeof(t->target), f, n);
	if (ret)
		return ret;
	if (next_field(&p, &f, &n)) {
		ret = copy_field(t->dev, sizeof(t->dev), f, n);
		if (ret)
			return ret;
	}
	/* Other targets have more parameters; they are not ours to read. */
	if (znp_dm_is_po2_target(t->target) && !at_end(p))
		return -EINVAL;
	return 0;
}

int znp_dm_status_parse(const char *params, struct znp_po2_status *s)
{
	uint64_t v[3];
	const char *p = params, *f;
	size_t n;
	int ret;

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 3; i++) {
		if (!next_field(&p, &f, &n))
			return -EINVAL;
		ret = znp_dec_u64(f, n, &v[i]);
		if (ret)
			return ret;
	}
	if (!at_end(p))
		return -EINVAL;
	if (!v[0] || !v[1] || !v[2] || !znp_is_po2(v[1]) || v[1] < v[0] ||
	    v[1] / 2 >= v[0])
		return -EINVAL;
	s->zone_sectors = v[0];
	s->po2_zone_sectors = v[1];
	s->nr_zones = v[2];
	return 0;
}

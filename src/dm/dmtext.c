// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dm-po2zone text formats: pure functions, no I/O, no global state. They
 * read what the kernel and users wrote (table and status lines, the mapping
 * file), so every input is bounded and checked; the fuzz targets call them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static bool has_space(const char *s)
{
	return strpbrk(s, " \t\r\n") != NULL;
}

int znp_dm_table_format(char *buf, size_t size, const struct znp_dm_table *t)
{
	int n;

	if (!t->target[0] || !t->dev[0] || has_space(t->target) || has_space(t->dev))
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

/* Unsigned decimal, no sign, no leading blanks; all of [s, s + n). */
static int parse_dec(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 20)
		return n ? -ERANGE : -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
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
	ret = parse_dec(f, n, &t->start);
	if (ret)
		return ret;
	if (!next_field(&p, &f, &n))
		return -EINVAL;
	ret = parse_dec(f, n, &t->len);
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
		ret = parse_dec(f, n, &v[i]);
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

/* ---- identity --------------------------------------------------------- */

static bool all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static bool ident_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '.' || c == '_' || c == '-';
}

static int put_hex(char *buf, size_t size, const char *tag, const uint8_t *b, size_t n)
{
	size_t off = strlen(tag);

	if (off + 2 * n + 1 > size)
		return -ENAMETOOLONG;
	memcpy(buf, tag, off);
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, size - off, "%02x", b[i]);
	return 0;
}

int znp_ident_from_ns(const struct znp_ns_info *ns, char *buf, size_t size)
{
	size_t off, slen;
	int n;

	if (!size)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	if (!all_zero(ns->nguid, sizeof(ns->nguid)))
		return put_hex(buf, size, "nguid:", ns->nguid, sizeof(ns->nguid));
	if (!all_zero(ns->eui64, sizeof(ns->eui64)))
		return put_hex(buf, size, "eui64:", ns->eui64, sizeof(ns->eui64));
	slen = strnlen(ns->serial, sizeof(ns->serial));
	if (!slen || !ns->nsid)
		return -ENODATA;
	off = 3;
	if (size < off + 1)
		return -ENAMETOOLONG;
	memcpy(buf, "sn:", off);
	for (size_t i = 0; i < slen; i++) {
		unsigned char c = (unsigned char)ns->serial[i];

		n = ident_char(c) ? snprintf(buf + off, size - off, "%c", c)
				  : snprintf(buf + off, size - off, "=%02X", c);
		if (n < 0 || (size_t)n >= size - off)
			return -ENAMETOOLONG;
		off += (size_t)n;
	}
	n = snprintf(buf + off, size - off, ":nsid:%u", ns->nsid);
	if (n < 0 || (size_t)n >= size - off)
		return -ENAMETOOLONG;
	return 0;
}

static bool is_hex_n(const char *s, size_t n, bool upper)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (!upper && c >= 'a' && c <= 'f') ||
		      (upper && c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

bool znp_ident_valid(const char *s)
{
	const char *p;
	uint64_t nsid;
	size_t len;

	if (!s || (len = strnlen(s, ZNP_IDENT_MAX)) >= ZNP_IDENT_MAX)
		return false;
	if (!strncmp(s, "nguid:", 6))
		return len == 6 + 32 && is_hex_n(s + 6, 32, false);
	if (!strncmp(s, "eui64:", 6))
		return len == 6 + 16 && is_hex_n(s + 6, 16, false);
	if (strncmp(s, "sn:", 3))
		return false;
	p = s + 3;
	if (*p == ':')
		return false;		/* empty serial */
	while (*p && *p != ':') {
		if (*p == '=') {
			if (strnlen(p + 1, 2) < 2 || !is_hex_n(p + 1, 2, true))
				return false;
			p += 3;
		} else if (ident_char((unsigned char)*p)) {
			p++;
		} else {
			return false;
		}
	}
	if (strncmp(p, ":nsid:", 6))
		return false;
	p += 6;
	if (*p == '0' || parse_dec(p, strlen(p), &nsid) || !nsid || nsid > UINT32_MAX)
		return false;
	return true;
}

/* ---- names and UUIDs ---------------------------------------------------- */

static bool name_char(unsigned char c)
{
	return ident_char(c) || c == '+' || c == ':' || c == '@' || c == '=' || c == '#';
}

const char *znp_dm_name_invalid(const char *name)
{
	size_t len;

	if (!name || !*name)
		return "empty name";
	len = strnlen(name, ZNP_DM_USER_NAME_MAX + 1);
	if (len > ZNP_DM_USER_NAME_MAX)
		return "name longer than 100 characters";
	for (size_t i = 0; i < len; i++)
		if (!name_char((unsigned char)name[i]))
			return "name may only contain letters, digits and . _ - + : @ = #";
	if (name[0] == '.' || name[0] == '-')
		return "name must not start with '.' or '-'";
	if (znp_dm_name_is_creating(name))
		return "names starting with '" ZNP_DM_CREATING_PREFIX "' are reserved";
	return NULL;
}

int znp_dm_default_name(const struct znp_ns_info *ns, const char *kname,
			char *buf, size_t size)
{
	char part[48];
	const char *src;
	size_t n;
	int ret;

	src = ns ? ns->serial : kname;
	if (!src)
		return -EINVAL;
	n = strnlen(src, ns ? sizeof(ns->serial) : sizeof(part) - 1);
	if (n >= sizeof(part))
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++)
		part[i] = name_char((unsigned char)src[i]) ? src[i] : '_';
	part[n] = '\0';
	if (ns) {
		if (!n || !ns->nsid)
			return -EINVAL;
		ret = snprintf(buf, size, "po2-%s-n%u", part, ns->nsid);
	} else {
		if (!n)
			return -EINVAL;
		ret = snprintf(buf, size, "po2-%s", part);
	}
	if (ret < 0 || (size_t)ret >= size)
		return -ENAMETOOLONG;
	return znp_dm_name_invalid(buf) ? -EINVAL : 0;
}

int znp_dm_uuid(const char *ident, char *buf, size_t size)
{
	int n;

	if (!ident || !*ident || has_space(ident))
		return -EINVAL;
	n = snprintf(buf, size, ZNP_DM_UUID_PREFIX "%s", ident);
	if (n < 0 || (size_t)n >= size || (size_t)n >= ZNP_DM_UUID_MAX)
		return -ENAMETOOLONG;
	return 0;
}

bool znp_dm_uuid_is_ours(const char *uuid)
{
	return uuid && !strncmp(uuid, ZNP_DM_UUID_PREFIX, strlen(ZNP_DM_UUID_PREFIX)) &&
	       uuid[strlen(ZNP_DM_UUID_PREFIX)];
}

const char *znp_dm_uuid_ident(const char *uuid)
{
	return znp_dm_uuid_is_ours(uuid) ? uuid + strlen(ZNP_DM_UUID_PREFIX) : NULL;
}

bool znp_dm_name_is_creating(const char *name)
{
	return name && !strncmp(name, ZNP_DM_CREATING_PREFIX, strlen(ZNP_DM_CREATING_PREFIX));
}

/* ---- the mapping file ------------------------------------------------- */

/* Is [s, s + n) "key=" followed by the value? Sets *val and *vn. */
static bool kv(const char *s, size_t n, const char *key, const char **val, size_t *vn)
{
	size_t k = strlen(key);

	if (n <= k || memcmp(s, key, k) || s[k] != '=')
		return false;
	*val = s + k + 1;
	*vn = n - k - 1;
	return true;
}

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

int znp_dmconf_parse_line(const char *line, size_t len, struct znp_dmconf_entry *e,
			  const char **why)
{
	const char *p = line, *end = line + len, *f, *v;
	unsigned int seen = 0;
	size_t n, vn;
	uint64_t x;
	const char *bad;

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
	while (line_field(&p, end, &f, &n)) {
		unsigned int bit;

		if (kv(f, n, "lba_size", &v, &vn))
			bit = 1;
		else if (kv(f, n, "zone_size", &v, &vn))
			bit = 2;
		else if (kv(f, n, "nr_zones", &v, &vn))
			bit = 4;
		else if (kv(f, n, "via", &v, &vn))
			bit = 8;
		else {
			*why = *f == '#' ? "comments must be on their own line"
					 : "unknown key (want lba_size, zone_size, nr_zones, via)";
			return -EINVAL;
		}
		if (seen & bit) {
			*why = "key given twice";
			return -EINVAL;
		}
		seen |= bit;
		if (bit == 8) {
			if (vn == 4 && !memcmp(v, "ublk", 4)) {
				e->ublk = true;
			} else if (!(vn == 2 && !memcmp(v, "dm", 2))) {
				*why = "via must be dm or ublk";
				return -EINVAL;
			}
			continue;
		}
		if (parse_dec(v, vn, &x) || !x) {
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
	}
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
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct znp_dmconf_entry *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
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

	while (off < len && !ret) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
		const char *why = NULL;
		int r;

		lineno++;
		r = znp_dmconf_parse_line(buf + off, n, &e, &why);
		off += n + (nl ? 1 : 0);
		if (r == 1 && (why = dup_of(&seen, &e)))
			r = -EINVAL;
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

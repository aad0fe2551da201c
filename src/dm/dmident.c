// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Namespace identity (nguid:, eui64:, sn:...:nsid:), mapping names and
 * UUIDs: pure text functions (see dmtext.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dmtext-int.h"
#include "dmtext.h"

static bool all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

bool znp_dmtext_ident_char(unsigned char c)
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

		n = znp_dmtext_ident_char(c) ? snprintf(buf + off, size - off, "%c", c)
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

	if (!s)
		return false;
	len = strnlen(s, ZNP_IDENT_MAX);
	if (len >= ZNP_IDENT_MAX)
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
		} else if (znp_dmtext_ident_char((unsigned char)*p)) {
			p++;
		} else {
			return false;
		}
	}
	if (strncmp(p, ":nsid:", 6))
		return false;
	p += 6;
	if (*p == '0' || znp_dec_u64(p, strlen(p), &nsid) || !nsid || nsid > UINT32_MAX)
		return false;
	return true;
}

/* ---- names and UUIDs ---------------------------------------------------- */

bool znp_dmtext_name_char(unsigned char c)
{
	return znp_dmtext_ident_char(c) || c == '+' || c == ':' || c == '@' || c == '=' || c == '#';
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
		if (!znp_dmtext_name_char((unsigned char)name[i]))
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
		part[i] = znp_dmtext_name_char((unsigned char)src[i]) ? src[i] : '_';
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

	if (!ident || !*ident || znp_dmtext_has_space(ident))
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

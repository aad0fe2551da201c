// SPDX-License-Identifier: GPL-2.0-or-later
/* Value parsers for command-line options. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "opts.h"

void znp_opts_init(struct znp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fmt = ZNP_FMT_NORMAL;
	o->state = ZNP_RF_ALL;
}

struct suffix {
	const char *s;
	unsigned int base;	/* 1024 or 1000 */
	unsigned int power;
};

static const struct suffix suffixes[] = {
	{ "k", 1024, 1 }, { "K", 1024, 1 }, { "Ki", 1024, 1 }, { "KiB", 1024, 1 },
	{ "M", 1024, 2 }, { "Mi", 1024, 2 }, { "MiB", 1024, 2 },
	{ "G", 1024, 3 }, { "Gi", 1024, 3 }, { "GiB", 1024, 3 },
	{ "T", 1024, 4 }, { "Ti", 1024, 4 }, { "TiB", 1024, 4 },
	{ "P", 1024, 5 }, { "Pi", 1024, 5 }, { "PiB", 1024, 5 },
	{ "E", 1024, 6 }, { "Ei", 1024, 6 }, { "EiB", 1024, 6 },
	{ "kB", 1000, 1 }, { "KB", 1000, 1 }, { "MB", 1000, 2 }, { "GB", 1000, 3 },
	{ "TB", 1000, 4 }, { "PB", 1000, 5 }, { "EB", 1000, 6 },
};

static int digit_value(char c, unsigned int base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Hand-rolled digits instead of strtoull(): strtoull() accepts leading
 * space, '+', '-' (wrapping -1 to UINT64_MAX) and octal, all of which a
 * device tool must reject.
 */
int znp_parse_u64(const char *s, uint64_t *out, const char **why)
{
	unsigned int base = 10;
	const char *p = s;
	uint64_t v = 0;
	size_t i;
	int d;

	if (!s || !*s) {
		*why = "empty";
		return -EINVAL;
	}
	if (*p == '-') {
		*why = "negative";
		return -EINVAL;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (digit_value(*p, base) < 0) {
		*why = "not a number";
		return -EINVAL;
	}
	for (; (d = digit_value(*p, base)) >= 0; p++) {
		if (v > (UINT64_MAX - (uint64_t)d) / base) {
			*why = "out of range";
			return -ERANGE;
		}
		v = v * base + (uint64_t)d;
	}
	if (*p) {
		for (i = 0; i < ZNP_ARRAY_SIZE(suffixes); i++)
			if (!strcmp(p, suffixes[i].s))
				break;
		if (i == ZNP_ARRAY_SIZE(suffixes)) {
			*why = isalpha((unsigned char)*p) ? "unknown suffix" :
							    "trailing garbage";
			return -EINVAL;
		}
		for (unsigned int k = 0; k < suffixes[i].power; k++) {
			if (v > UINT64_MAX / suffixes[i].base) {
				*why = "out of range";
				return -ERANGE;
			}
			v *= suffixes[i].base;
		}
	}
	*out = v;
	return 0;
}

int znp_parse_u32(const char *s, uint32_t *out, const char **why)
{
	uint64_t v;
	int ret;

	ret = znp_parse_u64(s, &v, why);
	if (ret)
		return ret;
	if (v > UINT32_MAX) {
		*why = "out of range";
		return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

struct state_name {
	const char *name;
	enum znp_state_filter f;
};

/* The first entry for each filter is its canonical name. */
static const struct state_name state_names[] = {
	{ "all", ZNP_RF_ALL },
	{ "empty", ZNP_RF_EMPTY },
	{ "implicit-open", ZNP_RF_IMP_OPEN },
	{ "explicit-open", ZNP_RF_EXP_OPEN },
	{ "closed", ZNP_RF_CLOSED },
	{ "full", ZNP_RF_FULL },
	{ "read-only", ZNP_RF_READONLY },
	{ "offline", ZNP_RF_OFFLINE },
	/* nvme-cli report-zones JSON state names */
	{ "imp-opened", ZNP_RF_IMP_OPEN },
	{ "exp-opened", ZNP_RF_EXP_OPEN },
	{ "readonly", ZNP_RF_READONLY },
	/* other spellings */
	{ "imp-open", ZNP_RF_IMP_OPEN },
	{ "exp-open", ZNP_RF_EXP_OPEN },
	{ "implicit-opened", ZNP_RF_IMP_OPEN },
	{ "explicit-opened", ZNP_RF_EXP_OPEN },
	/* util-linux blkzone abbreviations */
	{ "em", ZNP_RF_EMPTY },
	{ "oi", ZNP_RF_IMP_OPEN },
	{ "oe", ZNP_RF_EXP_OPEN },
	{ "cl", ZNP_RF_CLOSED },
	{ "fu", ZNP_RF_FULL },
	{ "ro", ZNP_RF_READONLY },
	{ "of", ZNP_RF_OFFLINE },
};

int znp_parse_state(const char *s, enum znp_state_filter *out, const char **why)
{
	char buf[32];
	size_t i, n;

	if (!s || !*s) {
		*why = "empty state name";
		return -EINVAL;
	}
	/* nvme-cli's -S takes the Zone Receive Action Specific value. */
	if (s[0] >= '0' && s[0] <= '7' && !s[1]) {
		*out = (enum znp_state_filter)(s[0] - '0');
		return 0;
	}
	n = strlen(s);
	if (n >= sizeof(buf))
		goto unknown;
	for (i = 0; i <= n; i++)
		buf[i] = s[i] == '_' ? '-' : s[i];
	for (i = 0; i < ZNP_ARRAY_SIZE(state_names); i++) {
		if (!strcasecmp(buf, state_names[i].name)) {
			*out = state_names[i].f;
			return 0;
		}
	}
unknown:
	*why = "unknown zone state (expected empty, implicit-open, explicit-open, closed, read-only, full or offline)";
	return -EINVAL;
}

const char *znp_state_filter_name(enum znp_state_filter f)
{
	for (size_t i = 0; i < ZNP_ARRAY_SIZE(state_names); i++)
		if (state_names[i].f == f)
			return state_names[i].name;
	return "unknown";
}

int znp_parse_states(const char *s, uint32_t *mask, const char **why)
{
	uint32_t m = 0;

	if (!s || !*s) {
		*why = "empty state name";
		return -EINVAL;
	}
	for (const char *p = s, *q;; p = q + 1) {
		char item[64] = "?";	/* longer than any name: unknown */
		enum znp_state_filter f;
		size_t n;
		int ret;

		q = strchrnul(p, ',');
		n = (size_t)(q - p);
		if (!n) {
			*why = "empty state name in the list";
			return -EINVAL;
		}
		if (n < sizeof(item)) {
			memcpy(item, p, n);
			item[n] = '\0';
		}
		ret = znp_parse_state(item, &f, why);
		if (ret)
			return ret;
		m |= UINT32_C(1) << f;
		if (!*q)
			break;
	}
	*mask |= m;
	return 0;
}

enum znp_state_filter znp_states_filter(uint32_t mask)
{
	/* one bit, and not "all" (bit 0) */
	if (mask && !(mask & (mask - 1)) && !(mask & 1))
		return (enum znp_state_filter)__builtin_ctz(mask);
	return ZNP_RF_ALL;
}

enum znp_state_filter znp_cond_filter(uint8_t cond)
{
	static const uint8_t filter_of[16] = {
		[ZNP_ZC_EMPTY] = ZNP_RF_EMPTY, [ZNP_ZC_IMP_OPEN] = ZNP_RF_IMP_OPEN,
		[ZNP_ZC_EXP_OPEN] = ZNP_RF_EXP_OPEN, [ZNP_ZC_CLOSED] = ZNP_RF_CLOSED,
		[ZNP_ZC_FULL] = ZNP_RF_FULL, [ZNP_ZC_READONLY] = ZNP_RF_READONLY,
		[ZNP_ZC_OFFLINE] = ZNP_RF_OFFLINE,
	};

	return cond < 16 ? (enum znp_state_filter)filter_of[cond] : ZNP_RF_ALL;
}

bool znp_states_match(uint32_t mask, uint8_t cond)
{
	enum znp_state_filter f = znp_cond_filter(cond);

	if (!mask || (mask & 1))
		return true;
	/* not-write-pointer (conventional) zones, and unknown states, only with all */
	return f != ZNP_RF_ALL && (mask & (UINT32_C(1) << f));
}

const char *znp_states_name(uint32_t mask, char *buf, size_t size)
{
	size_t n = 0;

	if (!mask || (mask & 1)) {
		znp_strlcpy(buf, "all", size);
		return buf;
	}
	buf[0] = '\0';
	for (int f = ZNP_RF_EMPTY; f <= ZNP_RF_OFFLINE; f++) {
		if (!(mask & (UINT32_C(1) << f)) || n >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "",
				      znp_state_filter_name((enum znp_state_filter)f));
	}
	return buf;
}

int znp_parse_fmt(const char *s, enum znp_fmt *out, const char **why)
{
	if (s && !strcmp(s, "normal")) {
		*out = ZNP_FMT_NORMAL;
		return 0;
	}
	if (s && !strcmp(s, "json")) {
		*out = ZNP_FMT_JSON;
		return 0;
	}
	*why = "unknown output format (expected normal or json)";
	return -EINVAL;
}

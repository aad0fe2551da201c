// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the argument value parsers: sizes / LBAs / counts
 * (znp_parse_u64, znp_parse_u32; range files use znp_parse_u64 too), zone
 * states (znp_parse_state) and output formats (znp_parse_fmt).
 *
 * Invariants: failures set a reason; u32 agrees with u64 below 2^32; a
 * plain decimal or 0x number agrees with strtoull (a leading zero is not
 * octal); a suffix never wraps (the value is at least the leading number);
 * a parsed state's canonical name parses back to the same state.
 */
#include <ctype.h>
#include <errno.h>

#include "fuzz.h"
#include "opts.h"

static bool is_plain_number(const char *s)
{
	const char *p = s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		if (!*p)
			return false;
		for (; *p; p++)
			if (!isxdigit((unsigned char)*p))
				return false;
		return true;
	}
	if (!*p || (p[0] == '0' && p[1]))	/* octal-looking: rejected */
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);
	const char *why = NULL;
	enum znp_state_filter st, st2;
	enum znp_fmt fmt;
	uint64_t v64 = 0;
	uint32_t v32 = 0;
	int r64, r32, ret;

	r64 = znp_parse_u64(s, &v64, &why);
	FUZZ_ASSERT(r64 == 0 || r64 == -EINVAL || r64 == -ERANGE);
	if (r64)
		FUZZ_ASSERT(why && *why);
	why = NULL;
	r32 = znp_parse_u32(s, &v32, &why);
	FUZZ_ASSERT(r32 == 0 || r32 == -EINVAL || r32 == -ERANGE);
	if (r32)
		FUZZ_ASSERT(why && *why);
	if (r64 == 0 && v64 <= UINT32_MAX)
		FUZZ_ASSERT(r32 == 0 && v32 == v64);
	if (r64 == 0 && v64 > UINT32_MAX)
		FUZZ_ASSERT(r32 == -ERANGE);
	if (r64)
		FUZZ_ASSERT(r32);
	if (strlen(s) == size && is_plain_number(s)) {
		unsigned long long ref;
		char *end;

		errno = 0;
		ref = strtoull(s, &end, 0);
		if (errno == ERANGE)
			FUZZ_ASSERT(r64 == -ERANGE);
		else
			FUZZ_ASSERT(r64 == 0 && v64 == ref && !*end);
	}
	if (r64 == 0) {
		unsigned long long lead;

		errno = 0;
		lead = strtoull(s, NULL, s[0] == '0' && (s[1] | 0x20) == 'x' ? 16 : 10);
		FUZZ_ASSERT(errno == 0 && v64 >= lead);
	}

	why = NULL;
	ret = znp_parse_state(s, &st, &why);
	FUZZ_ASSERT(ret == 0 || ret == -EINVAL);
	if (ret) {
		FUZZ_ASSERT(why && *why);
	} else {
		FUZZ_ASSERT(st >= ZNP_RF_ALL && st <= ZNP_RF_OFFLINE);
		FUZZ_ASSERT(znp_parse_state(znp_state_filter_name(st), &st2, &why) == 0);
		FUZZ_ASSERT(st2 == st);
	}

	why = NULL;
	ret = znp_parse_fmt(s, &fmt, &why);
	FUZZ_ASSERT(ret == 0 || (ret == -EINVAL && why && *why));
	if (ret == 0)
		FUZZ_ASSERT(!strcmp(s, fmt == ZNP_FMT_JSON ? "json" : "normal"));

	free(s);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: dm table lines as `dmsetup table` / libdevmapper return
 * them (znp_dm_table_parse), and the name / UUID checks applied to names
 * read back from the kernel (znp_dm_name_invalid, znp_dm_uuid_ident, ...).
 *
 * Invariants: a parsed line formats back (znp_dm_table_format) to a line
 * that parses to the same table; fields are NUL-terminated inside their
 * buffers; a UUID we call ours has a non-empty identity after the prefix,
 * and a valid one makes the same UUID again (znp_dm_uuid).
 */
#include <errno.h>

#include "dmtext.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);
	struct znp_dm_table t, t2;
	char buf[256];
	const char *id;
	int ret;

	ret = znp_dm_table_parse(s, &t);
	FUZZ_ASSERT(ret == 0 || ret == -EINVAL || ret == -ERANGE || ret == -ENAMETOOLONG);
	if (ret == 0) {
		FUZZ_ASSERT(memchr(t.target, '\0', sizeof(t.target)));
		FUZZ_ASSERT(memchr(t.dev, '\0', sizeof(t.dev)));
		FUZZ_ASSERT(t.target[0]);
		if (t.dev[0]) {
			ret = znp_dm_table_format(buf, sizeof(buf), &t);
			/* the parser keeps a CR inside a field; the writer refuses it */
			FUZZ_ASSERT(ret == 0 || (ret == -EINVAL &&
				    (strchr(t.target, '\r') || strchr(t.dev, '\r'))));
		}
		if (t.dev[0] && ret == 0) {
			FUZZ_ASSERT(znp_dm_table_parse(buf, &t2) == 0);
			FUZZ_ASSERT(t2.start == t.start && t2.len == t.len);
			FUZZ_ASSERT(!strcmp(t2.target, t.target) && !strcmp(t2.dev, t.dev));
		}
		(void)znp_dm_is_po2_target(t.target);
	}

	if (!znp_dm_name_invalid(s)) {
		size_t n = strlen(s);

		FUZZ_ASSERT(n >= 1 && n <= ZNP_DM_USER_NAME_MAX);
		FUZZ_ASSERT(!znp_dm_name_is_creating(s));
		FUZZ_ASSERT(!strchr(s, '/') && !strchr(s, ' '));
	}
	if (znp_dm_uuid_is_ours(s)) {
		id = znp_dm_uuid_ident(s);
		FUZZ_ASSERT(id && *id && id == s + strlen(ZNP_DM_UUID_PREFIX));
		if (znp_ident_valid(id))	/* what unmap forgets in the mapping file */
			FUZZ_ASSERT(znp_dm_uuid(id, buf, sizeof(buf)) == 0 && !strcmp(buf, s));
	} else {
		FUZZ_ASSERT(znp_dm_uuid_ident(s) == NULL);
	}
	free(s);
	return 0;
}

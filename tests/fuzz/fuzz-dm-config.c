// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the persistent mapping file (znp_dmconf_parse: whole file,
 * NUL bytes included) and the identity writer (znp_ident_from_ns) whose
 * output the file stores.
 *
 * Invariants: every entry has a valid name and identity, names and
 * identities are unique, line numbers increase, and each entry formats back
 * (znp_dmconf_format) to a line that parses to the same entry; an identity
 * or default mapping name made from any namespace data is valid.
 */
#include <errno.h>

#include "dev.h"
#include "dmconf.h"
#include "dmtext.h"
#include "fuzz.h"

#define MAX_SEEN 64

struct seen {
	unsigned int last_line;
	size_t n;
	struct znp_dmconf_entry e[MAX_SEEN];
};

static bool same_entry(const struct znp_dmconf_entry *a, const struct znp_dmconf_entry *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->ident, b->ident) &&
	       a->lba_size == b->lba_size && a->zone_size == b->zone_size &&
	       a->nr_zones == b->nr_zones;
}

static int on_line(unsigned int lineno, const struct znp_dmconf_entry *e,
		   const char *why, void *arg)
{
	struct seen *s = arg;
	struct znp_dmconf_entry back;
	const char *why2 = NULL;
	char buf[512];
	size_t n;

	FUZZ_ASSERT(lineno >= 1 && lineno > s->last_line);
	s->last_line = lineno;
	if (!e) {
		FUZZ_ASSERT(why && *why);
		return 0;
	}
	FUZZ_ASSERT(memchr(e->name, '\0', sizeof(e->name)));
	FUZZ_ASSERT(memchr(e->ident, '\0', sizeof(e->ident)));
	FUZZ_ASSERT(znp_dm_name_invalid(e->name) == NULL);
	FUZZ_ASSERT(znp_ident_valid(e->ident));
	for (size_t i = 0; i < s->n; i++) {
		FUZZ_ASSERT(strcmp(s->e[i].name, e->name));
		FUZZ_ASSERT(strcmp(s->e[i].ident, e->ident));
	}
	if (s->n < MAX_SEEN)
		s->e[s->n++] = *e;
	FUZZ_ASSERT(znp_dmconf_format(buf, sizeof(buf), e) == 0);
	n = strlen(buf);
	FUZZ_ASSERT(n && buf[n - 1] == '\n');
	FUZZ_ASSERT(znp_dmconf_parse_line(buf, n - 1, &back, &why2) == 1);
	FUZZ_ASSERT(same_entry(&back, e));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct znp_ns_info ns = { 0 };
	struct seen *s;
	char ident[ZNP_IDENT_MAX];
	uint8_t *buf;
	int ret;

	/* first byte: which identity fields are set; then their bytes */
	if (size > 64 && (data[0] & 0x80)) {
		uint8_t sel = (uint8_t)fuzz_take(&in, 1);

		if (sel & 1)
			memcpy(ns.nguid, in.p, 16);
		if (sel & 2)
			memcpy(ns.eui64, in.p + 16, 8);
		memcpy(ns.serial, in.p + 24, sizeof(ns.serial) - 1);
		ns.nsid = (uint32_t)in.p[44] << 8 | in.p[45];
		ret = znp_ident_from_ns(&ns, ident, sizeof(ident));
		FUZZ_ASSERT(ret == 0 || ret == -ENODATA || ret == -ENAMETOOLONG);
		if (ret == 0)
			FUZZ_ASSERT(znp_ident_valid(ident));
		ret = znp_dm_default_name(&ns, NULL, ident, sizeof(ident));
		if (ret == 0)
			FUZZ_ASSERT(znp_dm_name_invalid(ident) == NULL);
	}

	s = calloc(1, sizeof(*s));
	buf = malloc(size ? size : 1);	/* exact size: not NUL-terminated */
	if (!s || !buf)
		abort();
	memcpy(buf, data, size);
	ret = znp_dmconf_parse((const char *)buf, size, on_line, s);
	FUZZ_ASSERT(ret == 0);
	free(buf);
	free(s);
	return 0;
}

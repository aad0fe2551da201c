// SPDX-License-Identifier: GPL-2.0-or-later
/* Printer selection and helpers shared by both printers. */
#include <inttypes.h>
#include <string.h>

#include "print.h"

void znp_print_init(struct znp_print *p, enum znp_fmt fmt, FILE *out,
		    unsigned int flags)
{
	memset(p, 0, sizeof(*p));
	p->ops = fmt == ZNP_FMT_JSON ? &znp_print_json_ops : &znp_print_text_ops;
	p->out = out;
	p->flags = flags;
	p->first_key = true;
	p->first_elem = true;
}

void znp_human_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	uint64_t unit = 1;
	unsigned int u = 0;

	while (u < ZNP_ARRAY_SIZE(units) - 1 && bytes / 1024 >= unit) {
		unit *= 1024;
		u++;
	}
	if (bytes % unit == 0)
		snprintf(buf, len, "%" PRIu64 " %s", bytes / unit, units[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)unit, units[u]);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the fuzz targets: a failed invariant aborts, which libFuzzer
 * (and the corpus replay driver) reports as a crash with the input saved.
 */
#ifndef ZNP_FUZZ_H
#define ZNP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: invariant failed: %s\n",	\
			__FILE__, __LINE__, #c);			\
		abort();						\
	}								\
} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Consume little-endian integers from the front of the input. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fuzz_take(struct fuzz_in *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && in->n; i++, in->p++, in->n--)
		v |= (uint64_t)*in->p << (8 * i);
	return v;
}

/* The rest of the input as a NUL-terminated string (caller frees). */
static inline char *fuzz_strdup(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one assertion header of the C tests (unit, emulator, command layer):
 * exit 0 pass, 1 fail, 77 skip (as liburing's tests; meson reports a skip,
 * never a pass). CHECK(cond) or CHECK(cond, "format", ...): the message,
 * when given, must start with a string literal.
 */
#ifndef ZNP_TEST_H
#define ZNP_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_EXIT_SKIP	77

static int t_failed;
static int t_checks;

#define CHECK(cond, ...) do {						\
	t_checks++;							\
	if (!(cond)) {							\
		t_failed++;						\
		fprintf(stderr, "%s:%d: CHECK(%s) failed:",		\
			__FILE__, __LINE__, #cond);			\
		fprintf(stderr, " " __VA_ARGS__);			\
		fputc('\n', stderr);					\
	}								\
} while (0)

#define CHECK_U64(got, want) do {					\
	uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);		\
	CHECK(g_ == w_, "%s = %" PRIu64 " (0x%" PRIx64 "), want %"	\
	      PRIu64 " (0x%" PRIx64 ")", #got, g_, g_, w_, w_);		\
} while (0)

#define CHECK_INT(got, want) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	CHECK(g_ == w_, "%s = %lld, want %lld", #got, g_, w_);		\
} while (0)

#define CHECK_STR(got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	CHECK(g_ && !strcmp(g_, w_), "%s = \"%s\", want \"%s\"",	\
	      #got, g_ ? g_ : "(null)", w_);				\
} while (0)

/* Stop here: the test cannot run on this machine (exit 77). */
static inline void t_skip(const char *why)
{
	fprintf(stderr, "SKIP: %s\n", why);
	exit(T_EXIT_SKIP);
}

static inline int t_done(const char *name)
{
	fprintf(stderr, "%s: %d checks, %d failed\n", name, t_checks, t_failed);
	return t_failed ? 1 : 0;
}

#endif

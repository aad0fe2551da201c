// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Baselines for bench/discard-loop.sh, timed the same way as the engine
 * (from the first command to the last completion, parsing excluded):
 *   discard-helper gen SIZE COUNT BS SEED    COUNT distinct random BS-aligned ranges
 *   discard-helper sync DEVICE RANGES        one thread, one BLKDISCARD per range
 *   discard-helper punch FILE RANGES         fallocate(PUNCH_HOLE) per range (the limit)
 * RANGES: "OFFSET LENGTH" per line (bytes). Prints "<count> <seconds> <iops>".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/falloc.h>
#include <linux/fs.h>

static uint64_t rng_state;

static uint64_t rng(void)	/* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int gen(uint64_t size, uint64_t count, uint64_t bs, uint64_t seed)
{
	uint64_t nblocks = size / bs, i, j, t, *blk;

	if (count > nblocks) {
		fprintf(stderr, "gen: %" PRIu64 " ranges do not fit\n", count);
		return 2;
	}
	blk = malloc(nblocks * sizeof(*blk));
	if (!blk)
		return 1;
	for (i = 0; i < nblocks; i++)
		blk[i] = i;
	rng_state = seed;
	for (i = 0; i < count; i++) {	/* partial Fisher-Yates: distinct blocks */
		j = i + rng() % (nblocks - i);
		t = blk[i];
		blk[i] = blk[j];
		blk[j] = t;
		printf("%" PRIu64 " %" PRIu64 "\n", blk[i] * bs, bs);
	}
	free(blk);
	return 0;
}

static uint64_t *load(const char *path, size_t *nr)
{
	uint64_t off, len, *r = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	*nr = 0;
	if (!f)
		return NULL;
	while (fscanf(f, "%" SCNu64 " %" SCNu64, &off, &len) == 2) {
		if (*nr == cap) {
			cap = cap ? 2 * cap : 4096;
			r = realloc(r, 2 * cap * sizeof(*r));
			if (!r)
				break;
		}
		r[2 * *nr] = off;
		r[2 * *nr + 1] = len;
		(*nr)++;
	}
	fclose(f);
	return r;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int run(const char *mode, const char *target, const char *ranges)
{
	bool punch = !strcmp(mode, "punch");
	size_t nr, i;
	uint64_t *r;
	double t0, t;
	int fd;

	r = load(ranges, &nr);
	if (!r || !nr) {
		fprintf(stderr, "%s: no ranges in %s\n", mode, ranges);
		return 1;
	}
	fd = open(target, O_RDWR);
	if (fd < 0) {
		perror(target);
		return 1;
	}
	t0 = now();
	for (i = 0; i < nr; i++) {
		int ret = punch ?
			fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  (off_t)r[2 * i], (off_t)r[2 * i + 1]) :
			ioctl(fd, BLKDISCARD, &r[2 * i]);

		if (ret) {
			fprintf(stderr, "%s: range %zu: %s\n", mode, i, strerror(errno));
			return 1;
		}
	}
	t = now() - t0;
	printf("%zu %.6f %.0f\n", nr, t, (double)nr / t);
	close(fd);
	free(r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "gen"))
		return gen(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0),
			   strtoull(argv[4], NULL, 0), strtoull(argv[5], NULL, 0));
	if (argc == 4 && (!strcmp(argv[1], "sync") || !strcmp(argv[1], "punch")))
		return run(argv[1], argv[2], argv[3]);
	fprintf(stderr, "usage: %s gen SIZE COUNT BS SEED | sync DEVICE RANGES | punch FILE RANGES\n",
		argv[0]);
	return 2;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Known data for the loop-device discard tests.
 *   blkpat fill DEVICE                  every 512-byte sector s gets 64 words (s << 8 | w) | 1 << 63
 *   blkpat check DEVICE RANGES [N]      sectors inside the first N ranges of RANGES ("OFFSET LENGTH"
 *                                       in bytes per line; all when N is absent) must read zero, every
 *                                       other sector must still hold its pattern
 * Reads use O_DIRECT, so the device is checked, not the page cache.
 * Exit: 0 as expected, 1 mismatch (first bad sector printed), 2 usage/IO.
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
#include <unistd.h>

#include <linux/fs.h>

#define CHUNK	(1u << 20)
#define WORDS	64		/* per 512-byte sector */

struct range {
	uint64_t start, end;	/* bytes, [start, end) */
};

static void fill_chunk(uint64_t *buf, uint64_t first_sector, size_t sectors)
{
	for (size_t s = 0; s < sectors; s++)
		for (unsigned int w = 0; w < WORDS; w++)
			buf[s * WORDS + w] = ((first_sector + s) << 8 | w) | 1ull << 63;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static struct range *load(const char *path, long limit, size_t *nr)
{
	uint64_t off, len;
	struct range *r = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	*nr = 0;
	if (!f)
		return NULL;
	while ((limit < 0 || (long)*nr < limit) &&
	       fscanf(f, "%" SCNu64 " %" SCNu64, &off, &len) == 2) {
		if (*nr == cap) {
			cap = cap ? 2 * cap : 1024;
			r = realloc(r, cap * sizeof(*r));
			if (!r)
				exit(2);
		}
		r[*nr].start = off;
		r[(*nr)++].end = off + len;
	}
	fclose(f);
	if (*nr)
		qsort(r, *nr, sizeof(*r), cmp_range);
	return r;
}

int main(int argc, char **argv)
{
	uint64_t size, pos, sector, pat[WORDS], zero_sectors = 0, kept = 0;
	bool fill = argc == 3 && !strcmp(argv[1], "fill");
	struct range *r = NULL;
	size_t nr = 0, ri = 0;
	uint64_t *buf;
	int fd;

	if (!fill && !((argc == 4 || argc == 5) && !strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: blkpat fill DEVICE | check DEVICE RANGES [N]\n");
		return 2;
	}
	fd = open(argv[2], (fill ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || posix_memalign((void **)&buf, 4096, CHUNK)) {
		perror(argv[2]);
		return 2;
	}
	if (!fill) {
		r = load(argv[3], argc == 5 ? atol(argv[4]) : -1, &nr);
		if (argc == 5 && atol(argv[4]) > 0 && !r) {
			perror(argv[3]);
			return 2;
		}
	}
	for (pos = 0; pos < size; pos += CHUNK) {
		size_t n = size - pos < CHUNK ? size - pos : CHUNK;

		if (fill) {
			fill_chunk(buf, pos / 512, n / 512);
			if (pwrite(fd, buf, n, (off_t)pos) != (ssize_t)n) {
				perror("pwrite");
				return 2;
			}
			continue;
		}
		if (pread(fd, buf, n, (off_t)pos) != (ssize_t)n) {
			perror("pread");
			return 2;
		}
		for (size_t s = 0; s < n / 512; s++) {
			uint64_t byte = pos + s * 512;
			bool in_range;

			sector = byte / 512;
			while (ri < nr && r[ri].end <= byte)
				ri++;
			in_range = ri < nr && r[ri].start <= byte;
			if (in_range) {
				memset(pat, 0, sizeof(pat));
				zero_sectors++;
			} else {
				fill_chunk(pat, sector, 1);
				kept++;
			}
			if (memcmp(&buf[s * WORDS], pat, sizeof(pat))) {
				printf("sector %" PRIu64 " (byte %" PRIu64 "): expected %s\n",
				       sector, byte, in_range ? "zeros (discarded)" : "its pattern (kept)");
				return 1;
			}
		}
	}
	if (fsync(fd) && fill)
		return 2;
	if (!fill)
		printf("ok: %" PRIu64 " sectors zero, %" PRIu64 " sectors intact\n", zero_sectors, kept);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Native cost of the block layer's zone helpers along the zoned write path,
 * power-of-2 fast path against the npo2 division, on the host CPU.
 *
 * The helpers below are the expressions of include/linux/blkdev.h after the
 * kernel series (kernel-patches/, "block: make the zone number and zone
 * offset helpers npo2-generic") and of blk_boundary_sectors_left() in 6.12;
 * bench/kernel-helpers.sh checks that the series still contains them. On
 * x86-64 div_u64(), div_u64_rem() and sector_div() are a plain 64-bit
 * division, as here.
 *
 * One write I/O on a zoned blk-mq disk in 6.12 (zone write plugging) runs:
 *   split      bio_split_rw() -> blk_boundary_sectors_left()     1 div or mask
 *   straddle   blk_zone_wplug_handle_write(): bio_straddles_zones() 2 zone_no
 *   conv       disk_zone_is_conv() (disks with conventional zones) 1 zone_no
 *   plug       disk_get_and_lock_zone_wplug() -> disk_zone_no()    1 zone_no
 *   seq        bio_offset_from_zone_start() != wp_offset           1 div_rem
 *   endio      blk_zone_write_plug_bio_endio() and
 *              blk_zone_write_plug_finish_request(): disk_get_zone_wplug() 2 zone_no
 * "recip" is the same path with the reciprocal of the zone size that the
 * queue limits cache ("block: divide by a cached reciprocal of a
 * non-power-of-2 zone size", v4: blk_zone_npo2_div() multiplies, checks the
 * quotient against the zone size and divides only when it is off, which it
 * is above (2^64 - 1) / zone_sectors or with a reciprocal read while the
 * limits change; checked here against the division for every divisor used
 * before timing, in range, above it and with a stale reciprocal). The split keeps its
 * division: blk_boundary_sectors_left() is not changed by the series.
 *
 * Usage: zone-helpers [IOS_PER_RUN [RUNS]]; prints one line per variant:
 *   variant zone_sectors step ns_per_io
 * Exit 1 if the reciprocal disagrees with the division.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef uint64_t sector_t;
typedef uint32_t u32;
typedef uint64_t u64;
#define U64_MAX UINT64_MAX

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && ((n & (n - 1)) == 0);
}

static inline unsigned int ilog2(u64 n)
{
	return 63 - __builtin_clzll(n);
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

/* sector_div(n, base): n becomes the quotient, returns the remainder */
static inline u32 sector_div_fn(sector_t *n, u32 base)
{
	u32 rem = *n % base;

	*n = *n / base;
	return rem;
}
#define sector_div(n, base) sector_div_fn(&(n), (base))

/* the parts of gendisk/request_queue/queue_limits the helpers read */
struct disk {
	unsigned int chunk_sectors;	/* queue->limits.chunk_sectors */
	bool zoned;			/* blk_queue_is_zoned() */
	unsigned long *conv_zones_bitmap;
	/* queue_limits' cached reciprocal (the variant measured as "recip") */
	u64 zone_recip;			/* ceil(2^64 / zone_sectors) */
};

/* ---- include/linux/blkdev.h after the series ---------------------------- */

static inline unsigned int disk_zone_no(const struct disk *disk, sector_t sector)
{
	unsigned int zone_sectors = disk->chunk_sectors;

	if (!disk->zoned)
		return 0;
	if (likely(is_power_of_2(zone_sectors)))
		return sector >> ilog2(zone_sectors);
	return div_u64(sector, zone_sectors);
}

static inline sector_t bdev_offset_from_zone_start(const struct disk *disk,
						   sector_t sector)
{
	unsigned int zone_sectors = disk->chunk_sectors;
	u32 offset;

	if (likely(is_power_of_2(zone_sectors)) || !zone_sectors)
		return sector & ((sector_t)zone_sectors - 1);
	div_u64_rem(sector, zone_sectors, &offset);
	return offset;
}

static inline unsigned int blk_boundary_sectors_left(sector_t offset,
						     unsigned int boundary_sectors)
{
	if (unlikely(!is_power_of_2(boundary_sectors)))
		return boundary_sectors - sector_div(offset, boundary_sectors);
	return boundary_sectors - (offset & (boundary_sectors - 1));
}

/* ---- the same helpers with a cached reciprocal for npo2 ----------------- */

static inline u64 mul_u64_u64_shr(u64 a, u64 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)

/* the out-of-line fallback of the series (block/blk-settings.c) */
static __attribute__((noinline)) sector_t
blk_zone_npo2_div_slow(sector_t sector, unsigned int zone_sectors)
{
	return div_u64(sector, zone_sectors);
}

/* blk_zone_npo2_div() of the series; @lim: the disk's queue limits */
static inline sector_t blk_zone_npo2_div(const struct disk *lim,
					 sector_t sector,
					 unsigned int zone_sectors)
{
	u64 q = mul_u64_u64_shr(sector, READ_ONCE(lim->zone_recip), 64);
	u64 start;

	if (likely(!check_mul_overflow(q, (u64)zone_sectors, &start) &&
		   start <= sector && sector - start < zone_sectors))
		return q;
	return blk_zone_npo2_div_slow(sector, zone_sectors);
}

static inline u64 recip_div(const struct disk *disk, u64 n)
{
	return blk_zone_npo2_div(disk, n, disk->chunk_sectors);
}

static inline unsigned int disk_zone_no_r(const struct disk *disk, sector_t sector)
{
	unsigned int zone_sectors = disk->chunk_sectors;

	if (!disk->zoned)
		return 0;
	if (likely(is_power_of_2(zone_sectors)))
		return sector >> ilog2(zone_sectors);
	return recip_div(disk, sector);
}

static inline sector_t bdev_offset_from_zone_start_r(const struct disk *disk,
						     sector_t sector)
{
	unsigned int zone_sectors = disk->chunk_sectors;

	if (likely(is_power_of_2(zone_sectors)) || !zone_sectors)
		return sector & ((sector_t)zone_sectors - 1);
	return sector - recip_div(disk, sector) * zone_sectors;
}

/* the split is the same in both variants (a division for npo2) */
static inline unsigned int boundary_left_r(const struct disk *disk, sector_t offset)
{
	return blk_boundary_sectors_left(offset, disk->chunk_sectors);
}

static int test_bit(unsigned int nr, const unsigned long *addr)
{
	return 1UL & (addr[nr / (8 * sizeof(long))] >> (nr % (8 * sizeof(long))));
}

/* ---- one write I/O: the helper calls of the 6.12 write path ------------- */

struct bio {
	sector_t sector;
	unsigned int sectors;
};

struct wplug {
	unsigned int wp_offset;
};

/* steps, as bits of a mask, so that each can be timed alone */
enum { S_SPLIT = 1, S_STRADDLE = 2, S_CONV = 4, S_PLUG = 8, S_SEQ = 16, S_ENDIO = 32, S_ALL = 63 };

#define PATH(name, ZNO, OFF, LEFT)                                                       \
	static __attribute__((noinline)) unsigned long name(const struct disk *disk,   \
							     const struct bio *bio,     \
							     struct wplug *plugs, int steps) \
	{                                                                               \
		unsigned long acc = 0;                                                  \
		sector_t s = bio->sector, e = bio->sector + bio->sectors - 1;           \
		if (steps & S_SPLIT)                                                    \
			acc += LEFT;                                                    \
		if (steps & S_STRADDLE)                                                 \
			acc += ZNO(disk, s) != ZNO(disk, e);                            \
		if (steps & S_CONV)                                                     \
			acc += test_bit(ZNO(disk, s), disk->conv_zones_bitmap);         \
		if (steps & S_PLUG) {                                                   \
			struct wplug *p = &plugs[ZNO(disk, s) & 1023];                  \
			if (steps & S_SEQ)                                              \
				acc += OFF(disk, s) != p->wp_offset;                    \
			p->wp_offset += bio->sectors;                                   \
		} else if (steps & S_SEQ) {                                             \
			acc += OFF(disk, s);                                            \
		}                                                                       \
		if (steps & S_ENDIO)                                                    \
			acc += plugs[ZNO(disk, s) & 1023].wp_offset +                   \
			       plugs[ZNO(disk, s) & 1023].wp_offset;                    \
		return acc;                                                             \
	}

PATH(write_path, disk_zone_no, bdev_offset_from_zone_start,
     blk_boundary_sectors_left(s, disk->chunk_sectors))
PATH(write_path_r, disk_zone_no_r, bdev_offset_from_zone_start_r, boundary_left_r(disk, s))

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

typedef unsigned long (*path_fn)(const struct disk *, const struct bio *, struct wplug *, int);

static struct bio *bios;
static struct wplug plugs[1024];
static unsigned long conv_bitmap[1 << 14];
static volatile unsigned long sink;

/* time per I/O over IOS I/Os of one case */
static double time_path(path_fn fn, const struct disk *d, int steps, long ios)
{
	unsigned long acc = 0;
	double t0 = now_ns();

	for (long i = 0; i < ios; i++)
		acc += fn(d, &bios[i & 4095], plugs, steps);
	sink += acc;
	return (now_ns() - t0) / ios;
}

static void setup_disk(struct disk *lim, unsigned int zs)
{
	lim->chunk_sectors = zs;
	lim->zoned = true;
	lim->conv_zones_bitmap = conv_bitmap;
	/* blk_validate_limits() of the series */
	lim->zone_recip = 0;
	if (lim->chunk_sectors && !is_power_of_2(lim->chunk_sectors))
		lim->zone_recip = div_u64(U64_MAX, lim->chunk_sectors) + 1;
}

/*
 * blk_zone_npo2_div() must equal the division for every sector: with its
 * reciprocal (exact up to (2^64 - 1) / zs, checked and divided above), and
 * with the reciprocal of another zone size, as a reader can see while the
 * limits change (the check sends it to the division).
 */
static int check_recip(unsigned int zs)
{
	struct disk d, stale;
	u64 lim = UINT64_MAX / zs, n, x = 88172645463325252ULL;

	setup_disk(&d, zs);
	setup_disk(&stale, zs + 2 + (zs & 1));	/* npo2 too, the other parity: not zs */
	stale.chunk_sectors = zs;
	if (is_power_of_2(zs))
		return 0;
	for (long i = 0; i < 2000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		switch (i % 6) {
		case 0: n = x % lim; break;			/* anywhere in range */
		case 1: n = (x % (lim / zs)) * zs; break;	/* zone starts */
		case 2: n = (x % (lim / zs)) * zs - 1; break;	/* zone ends */
		case 3: n = lim - (x & 0xffff); break;		/* top of range */
		case 4: n = lim + 1 + (x % (UINT64_MAX - lim)); break;	/* above it */
		default: n = UINT64_MAX - (x & 0xffff); break;	/* top of sector_t */
		}
		if (disk_zone_no_r(&d, n) != (unsigned int)div_u64(n, zs) ||
		    bdev_offset_from_zone_start_r(&d, n) != n % zs ||
		    (n <= lim && boundary_left_r(&d, n) != blk_boundary_sectors_left(n, zs)) ||
		    recip_div(&d, n) != n / zs || recip_div(&stale, n) != n / zs) {
			fprintf(stderr, "zone-helpers: reciprocal of %u wrong at %" PRIu64 "\n", zs, n);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long ios = argc > 1 ? atol(argv[1]) : 200000;
	int runs = argc > 2 ? atoi(argv[2]) : 151;
	/* 128 MiB (po2), 96 MiB and 1077 MiB - 0.5 (npo2, 512 B sectors) */
	static const unsigned int sizes[] = { 262144, 196608, 2205695 };
	static const struct { int mask; const char *name; } steps[] = {
		{ S_SPLIT, "split" }, { S_STRADDLE, "straddle" }, { S_CONV, "conv" },
		{ S_PLUG, "plug" }, { S_SEQ, "seq" }, { S_ENDIO, "endio" }, { S_ALL, "all" },
	};
	int rc = 0;

	bios = calloc(4096, sizeof(*bios));
	if (!bios)
		return 1;
	/* sequential 4 KiB writes, 16 write streams over a 4 TiB disk */
	for (int i = 0; i < 4096; i++) {
		bios[i].sector = (sector_t)(i % 16) * 536870912ULL + (sector_t)(i / 16) * 8;
		bios[i].sectors = 8;
	}
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
		rc |= check_recip(sizes[z]);
	if (rc)
		return 1;
	printf("check reciprocal-equals-division ok\n");

	/*
	 * Cases interleaved inside each run so that a busy machine disturbs
	 * them alike; the minimum over the runs is printed (least disturbed).
	 */
	struct tcase { path_fn fn; const char *variant; unsigned int zs; int steps; const char *step; double best; };
	static struct tcase cases[64];
	int nc = 0;

	cases[nc++] = (struct tcase){ write_path, "none", sizes[0], 0, "none", 1e30 };
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
		for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
			cases[nc++] = (struct tcase){ write_path, "div", sizes[z], steps[s].mask,
						      steps[s].name, 1e30 };
			if (!is_power_of_2(sizes[z]))
				cases[nc++] = (struct tcase){ write_path_r, "recip", sizes[z],
							      steps[s].mask, steps[s].name, 1e30 };
		}
	for (int r = 0; r < runs; r++)
		for (int c = 0; c < nc; c++) {
			struct disk d;
			double t;

			setup_disk(&d, cases[c].zs);
			t = time_path(cases[c].fn, &d, cases[c].steps, ios);
			if (t < cases[c].best)
				cases[c].best = t;
		}
	for (int c = 0; c < nc; c++)
		printf("%s %u %s %.3f\n", cases[c].variant, cases[c].zs, cases[c].step, cases[c].best);
	return 0;
}

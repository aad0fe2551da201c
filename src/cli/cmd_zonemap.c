// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zonemap: a picture of the zones, streamed from the zone report into the
 * text or SVG renderer (zonemap.h). Reads COLUMNS, NO_COLOR and the locale
 * variables: what a terminal program is expected to honour.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cmd.h"
#include "dm.h"
#include "sigint.h"
#include "zonemap.h"

#define DEFAULT_WIDTH	80u
#define MIN_WIDTH	8u
#define MAX_WIDTH	4096u

static unsigned int term_width(const struct znp_cli *cli, const struct znp_opts *o)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;

	if (znp_opt_given(o, ZNP_O_WIDTH))
		return o->width;
	if (cols && *cols) {
		char *end;
		unsigned long v = strtoul(cols, &end, 10);

		if (!*end && v >= MIN_WIDTH && v <= MAX_WIDTH)
			return (unsigned int)v;
	}
	if (!ioctl(fileno(cli->out), TIOCGWINSZ, &ws) && ws.ws_col >= MIN_WIDTH &&
	    ws.ws_col <= MAX_WIDTH)
		return ws.ws_col;
	return DEFAULT_WIDTH;
}

/* The locale's character set, as setlocale(LC_CTYPE, "") would pick it. */
static bool locale_is_utf8(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };

	for (size_t i = 0; i < ZNP_ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v) {
			char cs[16];
			size_t n = 0;

			/* the codeset: after the '.', before any '@' */
			v = strchr(v, '.');
			for (v = v ? v + 1 : ""; *v && *v != '@' && n < sizeof(cs) - 1; v++)
				if (*v != '-')
					cs[n++] = (char)tolower((unsigned char)*v);
			cs[n] = '\0';
			return !strcmp(cs, "utf8");
		}
	}
	return false;
}

/* --color: Return: 0 (never), 1 (always), 2 (auto) or -1 (invalid). */
static int color_mode(const char *s)
{
	if (!s || !strcmp(s, "auto"))
		return 2;
	if (!strcmp(s, "always"))
		return 1;
	if (!strcmp(s, "never"))
		return 0;
	return -1;
}

/*
 * The padding of a dm-po2zone mapping on top of the device, found through
 * sysfs holders (as `list` shows MAPPED-AS), with the sizes from the
 * target's status when device-mapper can be asked, else from the geometry
 * (the target rounds the zone size up to a power of 2). A ublk mapping
 * would fill the same (zone size, po2 size) pair from its own state.
 */
static int find_padding(const struct znp_cli *cli, const struct znp_dev *dev,
			struct znp_zm_pad *pad, struct znp_holder *h)
{
	const char *blk = dev->ns.blk_name[0] ? dev->ns.blk_name :
			  dev->kind == ZNP_DEV_ZONED_BLOCK ? dev->name : NULL;
	const struct znp_geom *g = &dev->geom;
	struct znp_dm_info info;

	if (!blk || !znp_blk_po2_holder(&cli->env, blk, h))
		return -ENOENT;
	*pad = (struct znp_zm_pad){
		.mapping = h->dm_name,
		.kind = "dm-po2zone",
		.zone_size = g->zone_size,
		.po2_size = znp_po2_zone_size(g),
	};
	if (!znp_dm_get(h->dm_name, &info) && info.has_status && g->lba_size >= 512 &&
	    info.status.zone_sectors == g->zone_size * (g->lba_size / 512))
		pad->po2_size = info.status.po2_zone_sectors / (g->lba_size / 512);
	return pad->po2_size > pad->zone_size ? 0 : -ENOENT;
}

struct dm_match {
	dev_t rdev;
	struct znp_dm_info info;
};

static int dm_match_rdev(const struct znp_dm_info *info, void *arg)
{
	struct dm_match *m = arg;

	if (makedev(info->major, info->minor) != m->rdev)
		return 0;
	m->info = *info;
	return 1;
}

/*
 * @dev is itself one of our mappings (found in device-mapper's list by its
 * device number): its zones have the po2 size; the target's status has the
 * size of the device's zones under it.
 */
static int mapping_padding(const struct znp_dev *dev, struct znp_zm_pad *pad,
			   struct znp_holder *h)
{
	const struct znp_geom *g = &dev->geom;
	uint32_t per = g->lba_size / 512;	/* sectors per LBA */
	struct dm_match m;
	struct stat st;

	if (dev->kind != ZNP_DEV_ZONED_BLOCK || !per || fstat(dev->fd, &st) ||
	    !S_ISBLK(st.st_mode))
		return -ENOENT;
	m.rdev = st.st_rdev;
	if (znp_dm_list(dm_match_rdev, &m) != 1 || !znp_dm_uuid_is_ours(m.info.uuid) ||
	    !m.info.has_status || m.info.status.po2_zone_sectors != g->zone_size * per)
		return -ENOENT;
	snprintf(h->dm_name, sizeof(h->dm_name), "%s", m.info.name);
	*pad = (struct znp_zm_pad){
		.mapping = h->dm_name,
		.kind = "dm-po2zone",
		.zone_size = m.info.status.zone_sectors / per,
		.po2_size = g->zone_size,
	};
	return pad->po2_size > pad->zone_size ? 0 : -ENOENT;
}

/*
 * SVG into a temporary file beside @path, renamed over it at the end
 * (znp_out_open(): a node, FIFO, socket or directory at @path is refused, a
 * symbolic link followed once, an existing file's owner and mode kept), so
 * that a failed or interrupted run leaves no half picture; "-" is @out.
 * Return: the stream, or NULL with a negative errno in @err (@of->found: what
 * is at @path for -EEXIST).
 */
static FILE *svg_open(const char *path, FILE *out, struct znp_outfile *of, int *err)
{
	FILE *f;

	of->dirfd = of->fd = -1;
	if (!strcmp(path, "-"))
		return out;
	*err = znp_out_open(path, 0666, of);
	if (*err)
		return NULL;
	f = fdopen(of->fd, "w");
	if (!f) {
		*err = -errno;
		close(of->fd);
		znp_out_commit(of, false);
	}
	return f;
}

/* @keep: rename the temporary file over @path, else remove it. Return: 0 or -errno. */
static int svg_close(FILE *f, struct znp_outfile *of, bool keep)
{
	int ret = 0;

	if (of->dirfd < 0)
		return fflush(f) ? -errno : 0;
	if (fflush(f) || ferror(f))
		ret = -EIO;
	ret = znp_out_commit(of, keep && !ret) ?: ret;
	fclose(f);
	return ret;
}

/* The one line for a --svg target that cannot be written. */
static void svg_err(const struct znp_cli *cli, const char *subject, const char *path, int err,
		    mode_t found)
{
	static const struct { mode_t type; const char *name; } types[] = {
		{ S_IFCHR, "a character device" }, { S_IFBLK, "a block device" },
		{ S_IFIFO, "a FIFO" }, { S_IFSOCK, "a socket" }, { S_IFDIR, "a directory" },
		{ S_IFLNK, "a symbolic link" },
	};

	if (err == -EEXIST) {
		const char *what = "not a regular file";

		for (size_t i = 0; i < ZNP_ARRAY_SIZE(types); i++)
			if (types[i].type == found)
				what = types[i].name;
		znp_cli_err(cli, subject, "will not write %s: it is %s, not a regular file", path,
			    what);
		return;
	}
	znp_cli_err(cli, subject, "cannot write %s: %s", path, strerror(-err));
}

struct zm_run {
	const struct znp_zm_ops *ops;
	void *priv;
	struct znp_zm_view v;
	struct znp_zm_sum total;
};

/* Stream the report into cells. Return: 0 or the report's error. */
static int zm_draw(struct zm_run *r, struct znp_dev *dev, uint64_t slba)
{
	struct znp_report_iter *it;
	struct znp_zm_cell c = { 0 };
	uint64_t left = r->v.nr_zones, in_cell = 0, idx = 0;
	struct znp_zone z;
	int ret;

	ret = znp_report_begin(dev, slba, ZNP_RF_ALL, &it);
	if (ret)
		return ret;
	r->ops->begin(r->priv, &r->v);
	while (left && !atomic_load(&znp_cli_interrupted) && znp_report_next(it, &z, &ret)) {
		if (!in_cell) {
			c = (struct znp_zm_cell){
				.index = idx,
				.first_zone = znp_zone_no(&dev->geom, z.start),
				.start_lba = z.start,
				.wp = z.wp,
				.cap = z.cap,
			};
		}
		znp_zm_sum_add(&c.sum, &z);
		znp_zm_sum_add(&r->total, &z);
		left--;
		if (++in_cell == r->v.group || !left) {
			c.state = znp_zm_dominant(&c.sum);
			c.fill = znp_zm_fill(&c.sum);
			r->ops->cell(r->priv, &c);
			idx++;
			in_cell = 0;
		}
	}
	if (!ret && atomic_load(&znp_cli_interrupted))
		ret = -EINTR;
	if (!ret && in_cell) {
		/* the device reported fewer zones than the range */
		c.state = znp_zm_dominant(&c.sum);
		c.fill = znp_zm_fill(&c.sum);
		r->ops->cell(r->priv, &c);
	}
	r->ops->end(r->priv, &r->total, ret);
	znp_report_end(it);
	return ret;
}

/* --count, --width and --color (@color: color_mode()). Return: 0 or exit 2. */
static int check_args(const struct znp_cli *cli, const struct znp_opts *o, int color)
{
	const char *path = o->args[0];

	if (znp_opt_given(o, ZNP_O_COUNT) && !o->count) {
		znp_cli_err(cli, path, "--count must be at least 1");
		return ZNP_EXIT_USAGE;
	}
	if (znp_opt_given(o, ZNP_O_WIDTH) && (o->width < MIN_WIDTH || o->width > MAX_WIDTH)) {
		znp_cli_err(cli, path, "--width must be %u to %u columns", MIN_WIDTH, MAX_WIDTH);
		return ZNP_EXIT_USAGE;
	}
	if (color < 0) {
		znp_cli_err(cli, path, "invalid --color '%s': auto, always or never", o->color);
		return ZNP_EXIT_USAGE;
	}
	return 0;
}

/*
 * Draw into the --svg file (its temporary file @of until the end), with
 * Ctrl-C caught. Return: 0 or exit 1 (error printed).
 */
static int use_svg(const struct znp_cli *cli, const struct znp_opts *o, struct zm_run *r,
		   struct znp_zm_svg *svg, struct znp_outfile *of)
{
	int ret, err = 0;

	znp_zm_layout(&r->v, ZNP_ZM_SVG_COLS, ZNP_ZM_SVG_ROWS);
	znp_zm_svg_shape(&r->v);
	/* Ctrl-C stops the report and removes the temporary file (exit 130) */
	ret = znp_cli_sigint_begin();
	svg->out = ret ? NULL : svg_open(o->svg, cli->out, of, &err);
	if (!svg->out) {
		svg_err(cli, o->args[0], o->svg, ret ? ret : err, of->found);
		if (!ret)
			znp_cli_sigint_end();
		/* a target that is not a regular file: a bad argument, nothing written */
		return !ret && err == -EEXIST ? ZNP_EXIT_USAGE : ZNP_EXIT_FAILED;
	}
	r->ops = &znp_zm_svg_ops;
	r->priv = svg;
	return 0;
}

/* Draw on the terminal: its width, colours (@color: color_mode()) and charset. */
static void use_text(const struct znp_cli *cli, const struct znp_opts *o, int color,
		     struct zm_run *r, struct znp_zm_text *text)
{
	const char *nc = getenv("NO_COLOR");

	text->width = term_width(cli, o);
	text->color = color == 1 ||
		      (color == 2 && isatty(fileno(cli->out)) && !(nc && *nc));
	text->utf8 = locale_is_utf8();
	znp_zm_layout(&r->v, znp_zm_text_cols(&r->v, text->width), ZNP_ZM_TEXT_ROWS);
	r->ops = &znp_zm_text_ops;
	r->priv = text;
}

int znp_cmd_zonemap(const struct znp_cli *cli, const struct znp_opts *o,
		    struct znp_print *p)
{
	const char *path = o->args[0];
	int color = color_mode(o->color);
	struct znp_zm_text text = { .out = cli->out };
	struct znp_zm_svg svg = { 0 };
	struct zm_run r = { 0 };
	struct znp_zm_pad pad;
	struct znp_holder h;
	struct znp_dev *dev;
	uint64_t first, slba;
	struct znp_outfile of = { .dirfd = -1, .fd = -1 };
	int ret, err;

	ret = check_args(cli, o, color);
	if (ret)
		return ret;
	ret = znp_cli_open_report(cli, o, &dev, &slba);
	if (ret)
		return ret;
	if (o->padding) {
		if (find_padding(cli, dev, &pad, &h) && mapping_padding(dev, &pad, &h)) {
			znp_cli_err(cli, path, "--padding: not a power-of-2 mapping, and none "
				    "on top of it (see map)");
			ret = ZNP_EXIT_UNSUITABLE;
			goto out_close;
		}
		r.v.pad = &pad;
	}

	first = znp_zone_no(&dev->geom, slba);
	r.v.device = path;
	r.v.geom = &dev->geom;
	r.v.first_zone = first;
	r.v.nr_zones = dev->geom.nr_zones - first;
	if (znp_opt_given(o, ZNP_O_COUNT) && o->count < r.v.nr_zones)
		r.v.nr_zones = o->count;
	if (o->svg) {
		ret = use_svg(cli, o, &r, &svg, &of);
		if (ret)
			goto out_close;
	} else {
		use_text(cli, o, color, &r, &text);
	}

	ret = zm_draw(&r, dev, slba);
	if (o->svg) {
		znp_cli_sigint_end();
		err = svg_close(svg.out, &of, !ret);
		if (!ret && err) {
			svg_err(cli, path, o->svg, err, of.found);
			ret = ZNP_EXIT_FAILED;
			goto out_close;
		}
	}
	if (ret == -EINTR) {
		znp_cli_err(cli, path, "interrupted%s", o->svg ? "; no SVG written" : "");
		ret = ZNP_EXIT_INTERRUPTED;
	} else {
		ret = ret ? znp_cli_fail(cli, path, "zone report failed", ret) : ZNP_EXIT_OK;
	}
out_close:
	znp_dev_close(dev);
	return ret;
}

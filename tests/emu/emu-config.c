// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * znpemu config file: one device per line, whitespace-separated key=value
 * pairs, '#' starts a comment. Keys are documented in README.md.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu-priv.h"

struct cfg_ctx {
	const char *file;
	int line;
	char dir[PATH_MAX];
};

static const struct {
	const char *name;
	uint8_t cond;
} cond_names[] = {
	{ "empty", 0x1 }, { "iopen", 0x2 }, { "eopen", 0x3 }, { "closed", 0x4 },
	{ "ro", 0xd }, { "full", 0xe }, { "offline", 0xf },
};

const char *emu_cond_name(uint8_t cond)
{
	for (size_t i = 0; i < sizeof(cond_names) / sizeof(cond_names[0]); i++)
		if (cond_names[i].cond == cond)
			return cond_names[i].name;
	return "?";
}

static void __attribute__((noreturn, format(printf, 2, 3)))
cfg_die(const struct cfg_ctx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "znpemu: %s:%d: ", c->file, c->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(125);
}

static uint64_t cfg_num(const struct cfg_ctx *c, const char *key, const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		cfg_die(c, "%s: bad number '%s'", key, s);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	case 't': case 'T': v <<= 40; end++; break;
	}
	if (*end)
		cfg_die(c, "%s: bad number '%s'", key, s);
	return v;
}

static uint8_t cfg_cond(const struct cfg_ctx *c, const char *s)
{
	for (size_t i = 0; i < sizeof(cond_names) / sizeof(cond_names[0]); i++)
		if (!strcmp(cond_names[i].name, s))
			return cond_names[i].cond;
	cfg_die(c, "unknown zone condition '%s'", s);
}

/* Split "a:b:c" into at most @max fields. */
static int cfg_split(char *s, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = s;
		s = strchr(s, ':');
		if (!s)
			break;
		*s++ = '\0';
	}
	return n;
}

/*
 * fail=N:STATUS, fail_io=OPC:N:STATUS, fail_admin=OPC:N:STATUS,
 * errno=N:ERRNO, errno_io=OPC:N:ERRNO, short=N:BYTES (N-th Zone
 * Management Receive). N = '*' means every matching command.
 */
static void cfg_fault(const struct cfg_ctx *c, struct emu_dev *d, const char *key, char *val)
{
	struct emu_fault *f;
	char *fld[3];
	int n = cfg_split(val, fld, 3), i = 0;

	if (d->nfaults == EMU_MAX_FAULTS)
		cfg_die(c, "too many faults");
	f = &d->faults[d->nfaults++];
	f->cls = -1;
	f->opc = -1;
	if (!strcmp(key, "fail") || !strcmp(key, "errno") || !strcmp(key, "short")) {
		if (n != 2)
			cfg_die(c, "%s: expected N:VALUE", key);
		f->kind = key[0] == 'f' ? EMU_FAULT_STATUS :
			  key[0] == 'e' ? EMU_FAULT_ERRNO : EMU_FAULT_SHORT;
		if (f->kind == EMU_FAULT_SHORT) {
			f->cls = ZNPEMU_CLS_IO;
			f->opc = 0x7a;
		}
	} else {
		if (n != 3)
			cfg_die(c, "%s: expected OPC:N:VALUE", key);
		f->kind = key[0] == 'f' ? EMU_FAULT_STATUS : EMU_FAULT_ERRNO;
		f->cls = strstr(key, "admin") ? ZNPEMU_CLS_ADMIN :
			 strstr(key, "blk") ? ZNPEMU_CLS_BLK : ZNPEMU_CLS_IO;
		f->opc = (int)cfg_num(c, key, fld[i++]);
		if (f->opc > 255)
			cfg_die(c, "%s: opcode > 0xff", key);
	}
	f->nth = !strcmp(fld[i], "*") ? 0 : cfg_num(c, key, fld[i]);
	if (strcmp(fld[i], "*") && !f->nth)
		cfg_die(c, "%s: N counts from 1", key);
	f->value = (uint32_t)cfg_num(c, key, fld[i + 1]);
}

static void cfg_path(const struct cfg_ctx *c, char *out, const char *val)
{
	char tmp[PATH_MAX];

	if (val[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s", val);
	else if (snprintf(tmp, sizeof(tmp), "%s/%s", c->dir, val) >= (int)sizeof(tmp))
		cfg_die(c, "path too long");
	if (!realpath(tmp, out))
		snprintf(out, PATH_MAX, "%s", tmp);
}

static void cfg_key(const struct cfg_ctx *c, struct emu_dev *d, char *key, char *val)
{
	char *fld[3];

	if (!strcmp(key, "path")) {
		cfg_path(c, d->path, val);
	} else if (!strcmp(key, "kind")) {
		if (!strcmp(val, "ng"))
			d->kind = EMU_NG;
		else if (!strcmp(val, "nvme"))
			d->kind = EMU_NVME_BLK;
		else if (!strcmp(val, "blk"))
			d->kind = EMU_BLK;
		else if (!strcmp(val, "ctrl"))
			d->kind = EMU_CTRL;
		else
			cfg_die(c, "kind: ng, nvme, blk or ctrl");
	} else if (!strcmp(key, "major")) {
		d->major = (unsigned int)cfg_num(c, key, val);
	} else if (!strcmp(key, "minor")) {
		d->minor = (unsigned int)cfg_num(c, key, val);
	} else if (!strcmp(key, "ctrl")) {
		snprintf(d->ctrl, sizeof(d->ctrl), "%s", val);
	} else if (!strcmp(key, "nsid")) {
		d->nsid = (uint32_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "csi")) {
		d->csi = (uint8_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "lba")) {
		d->lba_size = (uint32_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "zsze")) {
		d->zsze = cfg_num(c, key, val);
	} else if (!strcmp(key, "zcap")) {
		d->zcap = cfg_num(c, key, val);
	} else if (!strcmp(key, "zones")) {
		d->nzones = cfg_num(c, key, val);
	} else if (!strcmp(key, "nlbas")) {
		d->nlbas = cfg_num(c, key, val);
	} else if (!strcmp(key, "mdts")) {
		d->mdts_bytes = (uint32_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "max_xfer")) {
		d->max_xfer = (uint32_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "zdes")) {
		d->zdes = (uint32_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "ms")) {
		d->ms = (uint16_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "mset")) {
		d->mset = (uint8_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "pi")) {
		d->pi = (uint8_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "max_open")) {
		d->max_open = (uint32_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "max_active")) {
		d->max_active = (uint32_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "zasl")) {
		d->zasl_bytes = (uint32_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "serial")) {
		snprintf(d->sn, sizeof(d->sn), "%s", val);
	} else if (!strcmp(key, "model")) {
		snprintf(d->mn, sizeof(d->mn), "%s", val);
	} else if (!strcmp(key, "firmware")) {
		snprintf(d->fr, sizeof(d->fr), "%s", val);
	} else if (!strcmp(key, "preset")) {
		if (!strcmp(val, "empty"))
			d->preset = EMU_PRESET_EMPTY;
		else if (!strcmp(val, "full"))
			d->preset = EMU_PRESET_FULL;
		else if (!strcmp(val, "mixed"))
			d->preset = EMU_PRESET_MIXED;
		else
			cfg_die(c, "preset: empty, full or mixed");
	} else if (!strcmp(key, "zone")) {
		struct emu_zoneset *z;
		int n = cfg_split(val, fld, 3);

		if (n < 2 || d->nzoneset == EMU_MAX_ZONESET)
			cfg_die(c, "zone: expected IDX:COND[:WPOFF] (at most %d)", EMU_MAX_ZONESET);
		z = &d->zoneset[d->nzoneset++];
		z->idx = cfg_num(c, key, fld[0]);
		z->cond = cfg_cond(c, fld[1]);
		z->wp_off = n == 3 ? cfg_num(c, key, fld[2]) : UINT64_MAX;
	} else if (!strncmp(key, "fail", 4) || !strncmp(key, "errno", 5) || !strcmp(key, "short")) {
		cfg_fault(c, d, key, val);
	} else if (!strcmp(key, "bad_wp")) {
		d->bad_wp = (int64_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "bad_start")) {
		d->bad_start = (int64_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "bad_cap")) {
		d->bad_cap = (int64_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "small_cap")) {
		d->small_cap = (int64_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "bad_cond")) {
		d->bad_cond = (int64_t)cfg_num(c, key, val);
	} else if (!strcmp(key, "zones_delta")) {
		d->zones_delta = strtoll(val, NULL, 0);
	} else if (!strcmp(key, "excl_busy")) {
		d->excl_busy = cfg_num(c, key, val) != 0;
	} else if (!strcmp(key, "twin")) {
		snprintf(d->twin_name, sizeof(d->twin_name), "%s", val);
	} else if (!strcmp(key, "disk")) {
		/* sysfs layout hint for mkfake.py */
		if (strcmp(val, "hidden") && strcmp(val, "none"))
			cfg_die(c, "disk: hidden or none");
	} else if (!strcmp(key, "state")) {
		cfg_path(c, d->state_file, val);
	} else {
		cfg_die(c, "unknown key '%s'", key);
	}
}

static void cfg_defaults(struct emu_dev *d, int idx)
{
	memset(d, 0, sizeof(*d));
	d->kind = EMU_NG;
	d->nsid = 1;
	d->csi = 2;
	d->lba_size = 4096;
	d->mdts_bytes = 512 * 1024;
	d->minor = (unsigned int)idx;
	d->bad_wp = d->bad_start = d->bad_cap = d->bad_cond = d->small_cap = -1;
	snprintf(d->sn, sizeof(d->sn), "ZNPEMU%04d", idx);
	snprintf(d->mn, sizeof(d->mn), "znpemu ZNS emulated namespace");
	snprintf(d->fr, sizeof(d->fr), "1.0");
}

/* Share geometry, identity and zone state with an earlier node of the namespace. */
static void cfg_twin(const struct cfg_ctx *c, struct emu_dev *d)
{
	struct emu_dev *t = NULL;

	for (int i = 0; i < emu.ndevs; i++)
		if (!strcmp(emu.devs[i].base, d->twin_name))
			t = &emu.devs[i];
	if (!t || t->kind == EMU_CTRL)
		cfg_die(c, "twin: no earlier namespace node '%s'", d->twin_name);
	t = t->owner;
	d->owner = t;
	snprintf(d->ctrl, sizeof(d->ctrl), "%s", t->ctrl);
	d->nsid = t->nsid;
	d->csi = t->csi;
	d->lba_size = t->lba_size;
	d->nlbas = t->nlbas;
	d->zsze = t->zsze;
	d->zcap = t->zcap;
	d->nzones = t->nzones;
	d->mdts_bytes = t->mdts_bytes;
	d->max_xfer = t->max_xfer;
	d->zdes = t->zdes;
	d->ms = t->ms;
	d->mset = t->mset;
	d->pi = t->pi;
	d->max_open = t->max_open;
	d->max_active = t->max_active;
	d->zasl_bytes = t->zasl_bytes;
	memcpy(d->sn, t->sn, sizeof(d->sn));
	memcpy(d->mn, t->mn, sizeof(d->mn));
	memcpy(d->fr, t->fr, sizeof(d->fr));
}

/* Fill what the config left out and reject impossible geometries. */
static void cfg_finish(const struct cfg_ctx *c, struct emu_dev *d)
{
	const char *b;
	unsigned int inst;

	if (!d->path[0])
		cfg_die(c, "path= is required");
	b = strrchr(d->path, '/');
	d->base = b ? b + 1 : d->path;
	if (!d->ctrl[0]) {
		if (sscanf(d->base, "ng%u", &inst) == 1 || sscanf(d->base, "nvme%u", &inst) == 1)
			snprintf(d->ctrl, sizeof(d->ctrl), "nvme%u", inst);
		else
			snprintf(d->ctrl, sizeof(d->ctrl), "nvme0");
	}
	if (!d->major)
		d->major = d->kind == EMU_NG ? 242 : d->kind == EMU_CTRL ? 241 :
			   d->kind == EMU_NVME_BLK ? 259 : 254;
	d->owner = d;
	if (d->twin_name[0])
		cfg_twin(c, d);
	if (d->kind == EMU_CTRL || d->owner != d)
		return;
	if (d->lba_size < 512 || (d->lba_size & (d->lba_size - 1)))
		cfg_die(c, "lba must be a power of two >= 512");
	if (d->mdts_bytes && (d->mdts_bytes < 4096 || (d->mdts_bytes & (d->mdts_bytes - 1))))
		cfg_die(c, "mdts must be 0 or 4096 * 2^n bytes");
	if (!d->max_xfer)
		d->max_xfer = d->mdts_bytes ? d->mdts_bytes : 4u << 20;
	if (d->zdes % 64 || d->zdes > 255 * 64)
		cfg_die(c, "zdes must be a multiple of 64 up to 16320");
	if (d->mset > 1 || d->pi > 3 || (d->pi && d->ms < 8))
		cfg_die(c, "mset is 0 or 1, pi 0..3 and needs ms >= 8");
	if (d->csi != 2) {
		if (!d->nlbas)
			cfg_die(c, "nlbas= is required for a conventional namespace");
		return;
	}
	if (!d->zsze || d->zsze > UINT32_MAX)
		cfg_die(c, "zsze= (LBAs, 1..2^32-1) is required");
	if (!d->zcap)
		d->zcap = d->zsze;
	if (d->zcap > d->zsze)
		cfg_die(c, "zcap > zsze");
	if (!d->nlbas) {
		if (!d->nzones)
			cfg_die(c, "zones= or nlbas= is required");
		d->nlbas = d->nzones * d->zsze;
	}
	d->nzones = d->nlbas / d->zsze + (d->nlbas % d->zsze ? 1 : 0);
	if (!d->nzones)
		cfg_die(c, "namespace smaller than one zone");
	if ((int64_t)d->nzones + d->zones_delta < 0)
		cfg_die(c, "zones_delta below zero zones");
	for (int i = 0; i < d->nzoneset; i++)
		if (d->zoneset[i].idx >= d->nzones)
			cfg_die(c, "zone %" PRIu64 " past the last zone", d->zoneset[i].idx);
}

int emu_config_load(const char *file)
{
	struct cfg_ctx c = { .file = file };
	char buf[4096], *p, *slash;
	FILE *f;

	f = fopen(file, "re");
	if (!f) {
		fprintf(stderr, "znpemu: %s: %s\n", file, strerror(errno));
		_exit(125);
	}
	snprintf(c.dir, sizeof(c.dir), "%s", file);
	slash = strrchr(c.dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(c.dir, sizeof(c.dir), ".");
	while (fgets(buf, sizeof(buf), f)) {
		struct emu_dev *d;
		char *save = NULL, *tok;

		c.line++;
		p = strchr(buf, '#');
		if (p)
			*p = '\0';
		for (p = buf; isspace((unsigned char)*p); p++)
			;
		if (!*p)
			continue;
		if (emu.ndevs == EMU_MAX_DEVS)
			cfg_die(&c, "too many devices");
		d = &emu.devs[emu.ndevs];
		cfg_defaults(d, emu.ndevs);
		for (tok = strtok_r(p, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
			char *eq = strchr(tok, '=');

			if (!eq)
				cfg_die(&c, "expected key=value, got '%s'", tok);
			*eq = '\0';
			cfg_key(&c, d, tok, eq + 1);
		}
		cfg_finish(&c, d);
		emu.ndevs++;
	}
	fclose(f);
	return 0;
}

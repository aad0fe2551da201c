// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Printer golden tests: fixed data through the text and JSON printers,
 * compared byte for byte with tests/cli/golden/. JSON output is also parsed
 * back with json-c and checked against the data that was fed in.
 *
 *   test-print GOLDEN_DIR            compare
 *   ZNP_UPDATE_GOLDEN=1 test-print GOLDEN_DIR   rewrite the golden files
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../unit/test.h"
#include "print.h"
#include "progress.h"

static const char *golden_dir;

/* 96 MiB zones of 4 KiB LBAs: the kernel's "invalid zone size: 24576". */
static struct znp_geom g_npo2 = {
	.lba_size = 4096, .nlbas = 10 * 24576, .zone_size = 24576, .zone_cap = 24576,
};
/* Zones beyond 2^32 LBAs, small last zone, capacity < size. */
static struct znp_geom g_big = {
	.lba_size = 512, .nlbas = 0x300000000ull + 0x18000, .zone_size = 0x30000,
	.zone_cap = 0x20000,
};
static struct znp_geom g_po2 = {
	.lba_size = 512, .nlbas = 8 * 0x40000, .zone_size = 0x40000, .zone_cap = 0x40000,
};

static const struct znp_ns_info ns_hidden = {
	.ctrl = "nvme0", .ng_name = "ng0n1", .blk_name = "nvme0n1", .blk_visible = false,
	.nsid = 1, .csi = ZNP_CSI_ZNS, .serial = "ZNP0001", .model = "QEMU NVMe Ctrl",
};
static const struct znp_ns_info ns_visible = {
	.ctrl = "nvme1", .ng_name = "ng1n2", .blk_name = "nvme1n2", .blk_visible = true,
	.nsid = 2, .csi = ZNP_CSI_ZNS, .serial = "ZNP0002", .model = "QEMU \"quoted\" \\ model",
};
static const struct znp_ns_info ns_noblk = {
	.ctrl = "nvme2", .ng_name = "ng2n1", .blk_name = "", .blk_visible = false,
	.nsid = 1, .csi = ZNP_CSI_ZNS,
};

static const struct znp_zone zones_npo2[] = {
	{ 0, 24576, 24576, 0, ZNP_ZC_EMPTY, ZNP_ZT_SEQ_REQ, 0, 0, 0 },
	{ 24576, 24576, 24576, 24576 + 4096, ZNP_ZC_IMP_OPEN, ZNP_ZT_SEQ_REQ, 0, 0, 0 },
	{ 49152, 24576, 24576, 49152 + 1, ZNP_ZC_EXP_OPEN, ZNP_ZT_SEQ_REQ, 0x80, 0, 0 },
	{ 73728, 24576, 24576, 73728 + 12288, ZNP_ZC_CLOSED, ZNP_ZT_SEQ_REQ, 0, 0, 0 },
	{ 98304, 24576, 24576, UINT64_MAX, ZNP_ZC_FULL, ZNP_ZT_SEQ_REQ, 0, 0, 0 },
	{ 122880, 24576, 24576, UINT64_MAX, ZNP_ZC_READONLY, ZNP_ZT_SEQ_REQ, 0, 0, 0 },
	{ 147456, 24576, 24576, UINT64_MAX, ZNP_ZC_OFFLINE, ZNP_ZT_SEQ_REQ, 0x02, 0x01, 0 },
};

static const struct znp_zone zones_big[] = {
	{ 0x300000000ull - 0x30000, 0x30000, 0x20000, 0x300000000ull - 0x30000 + 0x1234,
	  ZNP_ZC_IMP_OPEN, ZNP_ZT_SEQ_REQ, 0, 0, 0 },
	{ 0x300000000ull, 0x18000, 0x18000, 0x300000000ull, ZNP_ZC_EMPTY, ZNP_ZT_SEQ_REQ, 0, 0, 0 },
};

typedef void case_fn(struct znp_print *p);

static void report(struct znp_print *p, const char *dev, const struct znp_ns_info *ns,
		   const struct znp_geom *g, const struct znp_zone *z, size_t n,
		   uint64_t slba, enum znp_state_filter f)
{
	struct znp_report_hdr h = { dev, ns, g, slba, f, znp_state_filter_name(f), false };

	p->ops->report_begin(p, &h);
	for (size_t i = 0; i < n; i++)
		p->ops->report_zone(p, &z[i], znp_zone_no(g, z[i].start));
	p->ops->report_end(p);
}

static void c_report_npo2(struct znp_print *p)
{
	report(p, "/dev/ng0n1", &ns_hidden, &g_npo2, zones_npo2,
	       sizeof(zones_npo2) / sizeof(zones_npo2[0]), 0, ZNP_RF_ALL);
}

static void c_report_big(struct znp_print *p)
{
	report(p, "/dev/mapper/big", NULL, &g_big, zones_big, 2, 0x300000000ull - 0x30000 + 5,
	       ZNP_RF_ALL);
}

static void c_report_empty(struct znp_print *p)
{
	report(p, "/dev/ng0n1", &ns_hidden, &g_npo2, NULL, 0, 0, ZNP_RF_FULL);
}

/* The device stopped the report after two zones: Invalid Field (SC 0x02). */
static void c_report_partial(struct znp_print *p)
{
	struct znp_report_hdr h = { "/dev/ng0n1", &ns_hidden, &g_npo2, 0, ZNP_RF_ALL, "all", false };

	p->ops->report_begin(p, &h);
	for (size_t i = 0; i < 2; i++)
		p->ops->report_zone(p, &zones_npo2[i], i);
	p->report_ret = 0x2;
	p->ops->report_end(p);
}

/* A command refused before it printed anything (znp_cli_run()'s case). */
static void c_error_refused(struct znp_print *p)
{
	const struct znp_error_view e = {
		.ret = 0, .device = "/dev/ng0n1", .exit_code = 4,
		.message = "reset destroys data: add --force (or confirm on a terminal)",
	};

	p->ops->error(p, &e);
}

/* An NVMe status with DNR set (0x4000): named by libnvme without it. */
static void c_error_nvme(struct znp_print *p)
{
	const struct znp_error_view e = {
		.ret = 0x41bf, .device = "/dev/ng0n1", .exit_code = 1,
		.message = "zone management: NVMe status 0x41bf: Invalid Zone State Transition",
	};

	p->ops->error(p, &e);
}

static void c_error_errno(struct znp_print *p)
{
	const struct znp_error_view e = { .ret = -EBUSY, .device = "/dev/nvme0n1",
					  .exit_code = 4, .message = NULL };

	p->ops->error(p, &e);
}

static void c_list(struct znp_print *p)
{
	struct znp_list_row rows[] = {
		{ &ns_hidden, &g_npo2, true, 0, NULL, "/dev/ng0n1", "/dev/nvme0n1" },
		{ &ns_visible, &g_po2, true, 0, "po2zone-ng1n2", "/dev/ng1n2", "/dev/nvme1n2" },
		{ &ns_noblk, NULL, false, -EIO, NULL, "/dev/ng2n1", NULL },
	};

	p->ops->list_begin(p);
	for (size_t i = 0; i < 3; i++)
		p->ops->list_row(p, &rows[i]);
	p->ops->list_end(p);
}

static void c_list_empty(struct znp_print *p)
{
	p->ops->list_begin(p);
	p->ops->list_end(p);
}

static void c_check_needs_kernel(struct znp_print *p)
{
	struct znp_check_view v = { "/dev/ng0n1", &ns_hidden, &g_npo2, true, { 0 }, 11 };

	CHECK(!znp_check(&ns_hidden, &g_npo2, true, &v.res));
	CHECK(v.res.verdict == ZNP_V_NEEDS_KERNEL);
	p->ops->check(p, &v);
}

static void c_check_cap(struct znp_print *p)
{
	struct znp_check_view v = { "/dev/mapper/big", NULL, &g_big, true, { 0 }, 12 };

	CHECK(!znp_check(NULL, &g_big, true, &v.res));
	CHECK(v.res.verdict == ZNP_V_CAP_LT_SIZE);
	p->ops->check(p, &v);
}

static void c_check_not_zns(struct znp_print *p)
{
	struct znp_check_view v = { "/dev/ng2n1", &ns_noblk, NULL, false, { 0 }, 14 };
	struct znp_geom conv = { .lba_size = 512, .nlbas = 1 << 20 };

	CHECK(!znp_check(&ns_noblk, &conv, false, &v.res));
	CHECK(v.res.verdict == ZNP_V_NOT_ZNS);
	p->ops->check(p, &v);
}

static void c_zone_dry_run(struct znp_print *p)
{
	struct znp_zone_op_view v = { "/dev/ng0n1", ZNP_ZA_RESET, false, true, 24576, 1, 3 };

	p->ops->zone_op_begin(p, &v);
	for (uint64_t i = 0; i < 3; i++)
		p->ops->zone_op_cmd(p, ZNP_ZA_RESET, znp_zone_start(&g_npo2, 1 + i), 1 + i, false);
	p->ops->zone_op_end(p, 0, 0);
}

static void c_zone_all_dry_run(struct znp_print *p)
{
	struct znp_zone_op_view v = { "/dev/ng0n1", ZNP_ZA_FINISH, true, true, 0, 0, 0 };

	p->ops->zone_op_begin(p, &v);
	p->ops->zone_op_cmd(p, ZNP_ZA_FINISH, 0, 0, true);
	p->ops->zone_op_end(p, 0, 0);
}

static void c_zone_done(struct znp_print *p)
{
	struct znp_zone_op_view v = { "/dev/ng0n1", ZNP_ZA_OPEN, false, false, 49152, 2, 2 };

	p->ops->zone_op_begin(p, &v);
	p->ops->zone_op_end(p, 2, 0);
}

static void c_zone_error(struct znp_print *p)
{
	struct znp_zone_op_view v = { "/dev/ng0n1", ZNP_ZA_CLOSE, false, false, 0, 0, 4 };

	p->ops->zone_op_begin(p, &v);
	p->ops->zone_op_end(p, 1, -EIO);
}

static void c_discard_dry_run(struct znp_print *p)
{
	struct znp_discard_view v = { "/dev/loop7", "block", "io_uring-discard", "bytes", true,
				      64, 1, 2, 3ull << 32 };

	p->ops->discard_begin(p, &v);
	p->ops->discard_cmd(p, 0, 1ull << 32);
	p->ops->discard_cmd(p, 1ull << 32, 2ull << 32);
	p->ops->discard_end(p, NULL);
}

static void c_discard_done(struct znp_print *p)
{
	struct znp_discard_view v = { "/dev/ng0n1", "zoned", "io_uring-nvme-passthru", "lba",
				      false, 8, 1, 4, 4ull * 24576 * 4096 };
	struct znp_discard_summary s = { "nvme-ioctl", 1, "Operation not supported", 4, 4, 4, 0,
					 4ull * 24576 * 4096, 0.5, 8.0, false, 0 };

	p->ops->discard_begin(p, &v);
	p->ops->discard_end(p, &s);
}

static void c_version(struct znp_print *p)
{
	p->ops->version(p, "nvme-zns-npo2", "1.2.3");
}

struct tcase {
	const char *name;
	case_fn *fn;
	unsigned int flags;
};

static const struct tcase cases[] = {
	{ "report-npo2", c_report_npo2, 0 },
	{ "report-npo2-human", c_report_npo2, ZNP_PF_HUMAN },
	{ "report-npo2-verbose", c_report_npo2, ZNP_PF_VERBOSE },
	{ "report-big", c_report_big, 0 },
	{ "report-empty", c_report_empty, 0 },
	{ "report-partial", c_report_partial, 0 },
	{ "error-refused", c_error_refused, 0 },
	{ "error-nvme", c_error_nvme, 0 },
	{ "error-errno", c_error_errno, 0 },
	{ "list", c_list, 0 },
	{ "list-human", c_list, ZNP_PF_HUMAN | ZNP_PF_VERBOSE },
	{ "list-empty", c_list_empty, 0 },
	{ "check-needs-kernel", c_check_needs_kernel, 0 },
	{ "check-cap-lt-size", c_check_cap, 0 },
	{ "check-not-zns", c_check_not_zns, 0 },
	{ "zone-dry-run", c_zone_dry_run, 0 },
	{ "zone-all-dry-run", c_zone_all_dry_run, 0 },
	{ "zone-done", c_zone_done, 0 },
	{ "zone-error", c_zone_error, 0 },
	{ "discard-dry-run", c_discard_dry_run, 0 },
	{ "discard-done", c_discard_done, 0 },
	{ "version", c_version, 0 },
};

static char *render(const struct tcase *t, enum znp_fmt fmt, size_t *len)
{
	struct znp_print p;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	znp_print_init(&p, fmt, f, t->flags);
	t->fn(&p);
	fclose(f);
	return buf;
}

static void compare(const char *name, const char *got, size_t len)
{
	char path[512], *want = NULL;
	size_t wlen = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", golden_dir, name);
	if (getenv("ZNP_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		CHECK(f && fwrite(got, 1, len, f) == len);
		if (f)
			fclose(f);
		return;
	}
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		t_failed++;
		return;
	}
	want = malloc(len + 2);
	wlen = fread(want, 1, len + 1, f);
	fclose(f);
	if (wlen != len || memcmp(want, got, len)) {
		fprintf(stderr, "%s differs from the golden file; got:\n%s", path, got);
		t_failed++;
	}
	free(want);
}

static struct json_object *parse(const char *name, const char *s)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = json_tokener_parse_ex(tok, s, (int)strlen(s));

	size_t end = json_tokener_get_parse_end(tok);

	/* exactly one document, then only the final newline */
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    strspn(s + end, "\n") != strlen(s + end) || s[strlen(s) - 1] != '\n') {
		fprintf(stderr, "%s: not one JSON document: %s\n", name,
			json_tokener_error_desc(json_tokener_get_error(tok)));
		t_failed++;
	}
	json_tokener_free(tok);
	return o;
}

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int)) {
		fprintf(stderr, "missing integer key %s\n", key);
		t_failed++;
		return UINT64_MAX - 1;
	}
	return json_object_get_uint64(v);
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

/* Parsed report == what was fed in, key by key (nvme-cli 2.3 keys). */
static void check_report_json(struct json_object *o, const struct znp_geom *g,
			      const struct znp_zone *z, size_t n)
{
	struct json_object *list;

	CHECK(get_u64(o, "lba_size") == g->lba_size);
	CHECK(get_u64(o, "zone_size") == g->zone_size);
	CHECK(get_u64(o, "zone_cap") == g->zone_cap);
	CHECK(get_u64(o, "nr_zones") == g->nr_zones);	/* the namespace's, as nvme-cli's */
	CHECK(get_u64(o, "nr_reported") == n);		/* the zones listed */
	CHECK(json_object_object_get_ex(o, "zone_list", &list));
	CHECK(json_object_array_length(list) == n);
	for (size_t i = 0; i < n && i < json_object_array_length(list); i++) {
		struct json_object *e = json_object_array_get_idx(list, i);

		CHECK(get_u64(e, "slba") == z[i].start);
		CHECK(get_u64(e, "wp") == z[i].wp);
		CHECK(get_u64(e, "cap") == z[i].cap);
		CHECK(get_u64(e, "attrs") == z[i].attrs);
		CHECK(!strcmp(get_str(e, "state"), znp_zone_cond_name(z[i].cond)));
		CHECK(!strcmp(get_str(e, "type"), "SEQWRITE_REQ"));
	}
}

/* The error object: the numbers fed in, the one that does not apply null. */
static void check_error_json(struct json_object *e, int ret, const char *device)
{
	struct json_object *v;

	CHECK(json_object_is_type(e, json_type_object));
	CHECK(json_object_object_get_ex(e, "errno", &v) &&
	      (ret < 0 ? (uint64_t)-ret == json_object_get_uint64(v) : !v));
	CHECK(json_object_object_get_ex(e, "nvme_status", &v) &&
	      (ret > 0 ? (uint64_t)ret == json_object_get_uint64(v) : !v));
	CHECK(!strcmp(get_str(e, "device"), device));
	CHECK(*get_str(e, "message"));
}

static void check_json(const struct tcase *t, struct json_object *o)
{
	struct json_object *e = NULL;

	if (!o)
		return;
	if (!strcmp(t->name, "report-partial")) {
		check_report_json(o, &g_npo2, zones_npo2, 2);
		CHECK(json_object_object_get_ex(o, "error", &e));
		check_error_json(e, 0x2, "/dev/ng0n1");
		CHECK(!strcmp(get_str(e, "nvme_status_name"), "Invalid Field in Command"));
	} else if (!strncmp(t->name, "error-", 6)) {
		CHECK(json_object_object_length(o) == 1 && json_object_object_get_ex(o, "error", &e));
		if (!strcmp(t->name, "error-refused")) {
			check_error_json(e, 0, "/dev/ng0n1");
			CHECK(get_u64(e, "exit_code") == 4);
		} else if (!strcmp(t->name, "error-nvme")) {
			check_error_json(e, 0x41bf, "/dev/ng0n1");
			CHECK(!strcmp(get_str(e, "nvme_status_name"), "Invalid Zone State Transition"));
			CHECK(get_u64(e, "exit_code") == 1);
		} else {
			check_error_json(e, -EBUSY, "/dev/nvme0n1");
			CHECK(!strcmp(get_str(e, "errno_name"), "EBUSY"));
			CHECK(!strcmp(get_str(e, "message"), strerror(EBUSY)));
		}
	} else if (!strcmp(t->name, "zone-error")) {
		CHECK(json_object_object_get_ex(o, "error", &e));
		check_error_json(e, -EIO, "/dev/ng0n1");
	}
	if (!strncmp(t->name, "report-npo2", 11)) {
		check_report_json(o, &g_npo2, zones_npo2, sizeof(zones_npo2) / sizeof(zones_npo2[0]));
		CHECK(get_u64(o, "nsid") == 1);
	} else if (!strcmp(t->name, "report-big")) {
		check_report_json(o, &g_big, zones_big, 2);
		CHECK(!json_object_object_get_ex(o, "nsid", NULL));
	} else if (!strcmp(t->name, "report-empty")) {
		check_report_json(o, &g_npo2, NULL, 0);
	} else if (!strcmp(t->name, "list")) {
		struct json_object *a;

		CHECK(json_object_object_get_ex(o, "namespaces", &a));
		CHECK(json_object_array_length(a) == 3);
		CHECK(get_u64(o, "nr_namespaces") == 3);
		CHECK(!strcmp(get_str(json_object_array_get_idx(a, 1), "model"),
			      ns_visible.model));
	} else if (!strcmp(t->name, "discard-dry-run")) {
		struct json_object *plan;

		CHECK(json_object_object_get_ex(o, "plan", &plan) &&
		      json_object_array_length(plan) == 2);
		CHECK(get_u64(json_object_array_get_idx(plan, 1), "length") == 2ull << 32);
		CHECK(get_u64(o, "bytes") == 3ull << 32);
	} else if (!strcmp(t->name, "discard-done")) {
		struct json_object *r;

		CHECK(json_object_object_get_ex(o, "result", &r));
		CHECK(get_u64(r, "bytes") == 4ull * 24576 * 4096 && get_u64(r, "completed") == 4);
	} else if (!strncmp(t->name, "check-", 6)) {
		struct json_object *r;

		CHECK(json_object_object_get_ex(o, "reasons", &r) &&
		      json_object_is_type(r, json_type_array));
		CHECK(*get_str(o, "verdict"));
	}
}

/* The progress line: percentage, done/total, rate and ETA from the engine's numbers. */
static void test_progress_line(void)
{
	static const struct {
		struct znp_aio_progress p;
		bool bytes;
		const char *want;
	} pcases[] = {
		{ { 84, 200, 0, 0, 2.0 }, false, "reset: 42% (84/200 zones), 42 zones/s, ETA 3 s" },
		{ { 1000, 200000, 0, 0, 10.0 }, false,
		  "finish: 0% (1000/200000 zones), 100 zones/s, ETA 33m10s" },
		{ { 10, 100000, 0, 0, 10.0 }, false,
		  "finish: 0% (10/100000 zones), 1 zones/s, ETA 27h46m" },
		{ { 0, 10, 0, 0, 0.0 }, false, "finish: 0% (0/10 zones), 0 zones/s, ETA ?" },
		/* discard: the percentage of the bytes (ranges differ in length) */
		{ { 1, 4, 3 << 20, 4 << 20, 0.5 }, true,
		  "discard: 75% (3 MiB of 4 MiB, 1/4 commands), 2 IOPS, ETA 2 s" },
	};

	for (size_t i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
		char line[256];
		const char *what = pcases[i].bytes ? "discard" : i ? "finish" : "reset";

		znp_cli_progress_fmt(line, sizeof(line), what, pcases[i].bytes, &pcases[i].p);
		CHECK(!strcmp(line, pcases[i].want), "progress %zu: \"%s\", want \"%s\"", i, line,
		      pcases[i].want);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
		return 2;
	}
	golden_dir = argv[1];
	test_progress_line();
	CHECK(!znp_geom_init(&g_npo2) && !znp_geom_init(&g_big) && !znp_geom_init(&g_po2));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tcase *t = &cases[i];
		char name[128], *out;
		size_t len;

		out = render(t, ZNP_FMT_NORMAL, &len);
		snprintf(name, sizeof(name), "%s.txt", t->name);
		compare(name, out, len);
		free(out);

		out = render(t, ZNP_FMT_JSON, &len);
		snprintf(name, sizeof(name), "%s.json", t->name);
		compare(name, out, len);
		{
			struct json_object *o = parse(name, out);

			check_json(t, o);
			json_object_put(o);
		}
		free(out);
	}
	return t_done("test-cli-print");
}

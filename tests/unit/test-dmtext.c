// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dm-po2zone text formats (src/dm/dmtext.c): table and status lines, stable
 * identities, names and UUIDs, the mapping file. Expected values are worked
 * out by hand from the geometry, not taken from the code under test.
 */
#include <errno.h>
#include <stdlib.h>

#include "dmconf.h"
#include "dmtext.h"
#include "test.h"

static void test_table(void)
{
	struct znp_geom g = { .lba_size = 4096, .nlbas = 10 * 24576, .zone_size = 24576,
			      .zone_cap = 24576 };
	struct znp_dm_table t = { .start = 0, .target = "po2zone", .dev = "/dev/nvme0n1" };
	char buf[128];
	uint64_t len = 0;

	CHECK_INT(znp_geom_init(&g), 0);
	/* 96 MiB zones -> 128 MiB = 262144 sectors, 10 zones */
	CHECK_INT(znp_dm_table_len(&g, &len), 0);
	CHECK_U64(len, 10ull * 262144);
	t.len = len;
	CHECK_INT(znp_dm_table_format(buf, sizeof(buf), &t), 0);
	CHECK_STR(buf, "0 2621440 po2zone /dev/nvme0n1");
	CHECK_INT(znp_dm_table_format(buf, 10, &t), -ENAMETOOLONG);
	strcpy(t.dev, "a b");
	CHECK_INT(znp_dm_table_format(buf, sizeof(buf), &t), -EINVAL);

	/* 512-byte LBAs: 48 MiB zones = 98304 LBAs -> 131072 sectors */
	struct znp_geom e = { .lba_size = 512, .nlbas = 10 * 98304, .zone_size = 98304,
			      .zone_cap = 98304 };
	CHECK_INT(znp_geom_init(&e), 0);
	CHECK_INT(znp_dm_table_len(&e, &len), 0);
	CHECK_U64(len, 10ull * 131072);

	/* overflow: 2^62 zones of 3 LBAs of 4 KiB */
	struct znp_geom big = { .lba_size = 4096, .nlbas = 3ull << 62, .zone_size = 3,
				.zone_cap = 3 };
	CHECK_INT(znp_geom_init(&big), 0);
	CHECK(znp_dm_table_len(&big, &len) == -EOVERFLOW, "overflow not detected");
	/* zones of one LBA: 2^61 - 1 LBAs of 4 KiB are 2^64 - 8 sectors, 2^61 do not fit */
	struct znp_geom one = { .lba_size = 4096, .nlbas = (1ull << 61) - 1, .zone_size = 1,
				.zone_cap = 1 };
	CHECK_INT(znp_geom_init(&one), 0);
	CHECK_INT(znp_dm_table_len(&one, &len), 0);
	CHECK_U64(len, UINT64_MAX - 7);
	one.nlbas = 1ull << 61;
	CHECK_INT(znp_geom_init(&one), 0);
	CHECK_INT(znp_dm_table_len(&one, &len), -EOVERFLOW);
	/* LBAs below 512 bytes have no sector count */
	struct znp_geom small = { .lba_size = 256, .nlbas = 10 * 24576, .zone_size = 24576,
				  .zone_cap = 24576 };
	CHECK_INT(znp_geom_init(&small), 0);
	CHECK_INT(znp_dm_table_len(&small, &len), -EINVAL);

	struct znp_dm_table p;

	CHECK_INT(znp_dm_table_parse("0 2621440 po2zone 259:1\n", &p), 0);
	CHECK_U64(p.start, 0);
	CHECK_U64(p.len, 2621440);
	CHECK_STR(p.target, "po2zone");
	CHECK_STR(p.dev, "259:1");
	CHECK_INT(znp_dm_table_parse("  0\t8  po2zoned  /dev/nullb0  ", &p), 0);
	CHECK_STR(p.target, "po2zoned");
	CHECK_STR(p.dev, "/dev/nullb0");
	/* other targets may have more parameters; ours has exactly one */
	CHECK_INT(znp_dm_table_parse("0 8 linear 8:0 2048", &p), 0);
	CHECK_STR(p.dev, "8:0");
	CHECK_INT(znp_dm_table_parse("0 8 po2zone 8:0 2048", &p), -EINVAL);
	CHECK_INT(znp_dm_table_parse("0 8 zero", &p), 0);
	CHECK_STR(p.dev, "");
	CHECK_INT(znp_dm_table_parse("", &p), -EINVAL);
	CHECK_INT(znp_dm_table_parse("0 8", &p), -EINVAL);
	CHECK_INT(znp_dm_table_parse("-1 8 zero", &p), -EINVAL);
	CHECK_INT(znp_dm_table_parse("0 0 zero", &p), -ERANGE);
	CHECK_INT(znp_dm_table_parse("0 18446744073709551616 zero", &p), -ERANGE);
	CHECK_INT(znp_dm_table_parse("18446744073709551615 1 zero", &p), -ERANGE);
	CHECK_INT(znp_dm_table_parse("0 18446744073709551615 zero", &p), 0);
	CHECK_INT(znp_dm_table_parse("0 8 averyveryverylongtargetname x", &p), -ENAMETOOLONG);
	CHECK_INT(znp_dm_table_parse("0x0 8 zero", &p), -EINVAL);
	CHECK_INT(znp_dm_table_parse("0 8 po2zone 8:0\n\n", &p), -EINVAL);
	CHECK(znp_dm_is_po2_target("po2zone") && znp_dm_is_po2_target("po2zoned") &&
	      !znp_dm_is_po2_target("po2") && !znp_dm_is_po2_target(NULL), "target names");
}

static void test_status(void)
{
	struct znp_po2_status s;

	CHECK_INT(znp_dm_status_parse("196608 262144 10", &s), 0);
	CHECK_U64(s.zone_sectors, 196608);
	CHECK_U64(s.po2_zone_sectors, 262144);
	CHECK_U64(s.nr_zones, 10);
	CHECK_INT(znp_dm_status_parse("6144 8192 32\n", &s), 0);
	CHECK_U64(s.nr_zones, 32);
	CHECK_INT(znp_dm_status_parse("196608 262144", &s), -EINVAL);
	CHECK_INT(znp_dm_status_parse("196608 262144 10 1", &s), -EINVAL);
	CHECK_INT(znp_dm_status_parse("196608 262143 10", &s), -EINVAL);	/* not po2 */
	CHECK_INT(znp_dm_status_parse("196608 524288 10", &s), -EINVAL);	/* not the roundup */
	CHECK_INT(znp_dm_status_parse("262144 131072 10", &s), -EINVAL);	/* smaller */
	CHECK_INT(znp_dm_status_parse("0 1 1", &s), -EINVAL);
	CHECK_INT(znp_dm_status_parse("3 4 0", &s), -EINVAL);
	CHECK_INT(znp_dm_status_parse("99999999999999999999 4 1", &s), -ERANGE);
	CHECK_INT(znp_dm_status_parse("a b c", &s), -EINVAL);
}

static void test_ident(void)
{
	struct znp_ns_info ns = { .nsid = 1 };
	char buf[ZNP_IDENT_MAX];

	strcpy(ns.serial, "znsnpo2-c0");
	CHECK_INT(znp_ident_from_ns(&ns, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "sn:znsnpo2-c0:nsid:1");
	CHECK(znp_ident_valid(buf), "%s", buf);
	/* spaces and colons in a serial are escaped */
	strcpy(ns.serial, "S 1:x");
	ns.nsid = 4294967295u;
	CHECK_INT(znp_ident_from_ns(&ns, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "sn:S=201=3Ax:nsid:4294967295");
	CHECK(znp_ident_valid(buf), "%s", buf);
	/* EUI-64 wins over the serial, NGUID over both */
	ns.eui64[7] = 0xab;
	CHECK_INT(znp_ident_from_ns(&ns, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "eui64:00000000000000ab");
	CHECK(znp_ident_valid(buf), "%s", buf);
	ns.nguid[0] = 0x12;
	ns.nguid[15] = 0xff;
	CHECK_INT(znp_ident_from_ns(&ns, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "nguid:120000000000000000000000000000ff");
	CHECK(znp_ident_valid(buf), "%s", buf);
	CHECK_INT(znp_ident_from_ns(&ns, buf, 10), -ENAMETOOLONG);
	/* nothing stable at all */
	struct znp_ns_info none = { .nsid = 1 };
	CHECK_INT(znp_ident_from_ns(&none, buf, sizeof(buf)), -ENODATA);

	static const char *const bad[] = {
		"", "sn:", "sn::nsid:1", "sn:x:nsid:0", "sn:x:nsid:01", "sn:x:nsid:",
		"sn:x:nsid:4294967296", "sn:x y:nsid:1", "sn:x=2:nsid:1", "sn:x=zz:nsid:1",
		"sn:x=2a:nsid:1", "sn:x", "eui64:00", "eui64:00000000000000AB",
		"nguid:12", "nguid:120000000000000000000000000000ff0", "uuid:1", "SN:x:nsid:1",
		"sn:x:nsid:1 ", "sn:x:nsid:-1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!znp_ident_valid(bad[i]), "'%s' accepted", bad[i]);
	CHECK(!znp_ident_valid(NULL), "NULL accepted");
}

static void test_names(void)
{
	struct znp_ns_info ns = { .nsid = 3 };
	char buf[ZNP_DM_NAME_MAX], uuid[ZNP_DM_UUID_MAX];
	char longname[200];

	strcpy(ns.serial, "SN 42/x");
	CHECK_INT(znp_dm_default_name(&ns, "nvme0n3", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "po2-SN_42_x-n3");
	CHECK_INT(znp_dm_default_name(NULL, "nullb0", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "po2-nullb0");
	CHECK_INT(znp_dm_default_name(NULL, "nullb0", buf, 6), -ENAMETOOLONG);
	CHECK(znp_dm_name_invalid("po2-a") == NULL, "valid name refused");
	CHECK(znp_dm_name_invalid("") != NULL, "empty");
	CHECK(znp_dm_name_invalid("a/b") != NULL, "slash");
	CHECK(znp_dm_name_invalid("a b") != NULL, "space");
	CHECK(znp_dm_name_invalid(".x") != NULL, "dot");
	CHECK(znp_dm_name_invalid("-x") != NULL, "dash");
	CHECK(znp_dm_name_invalid("znp-creating-x") != NULL, "reserved prefix");
	memset(longname, 'a', sizeof(longname));
	longname[ZNP_DM_USER_NAME_MAX] = '\0';
	CHECK(znp_dm_name_invalid(longname) == NULL, "100 characters refused");
	longname[ZNP_DM_USER_NAME_MAX] = 'a';
	longname[ZNP_DM_USER_NAME_MAX + 1] = '\0';
	CHECK(znp_dm_name_invalid(longname) != NULL, "101 characters accepted");

	CHECK_INT(znp_dm_uuid("sn:a:nsid:1", uuid, sizeof(uuid)), 0);
	CHECK_STR(uuid, "ZNPO2-sn:a:nsid:1");
	CHECK(znp_dm_uuid_is_ours(uuid), "ours");
	CHECK_STR(znp_dm_uuid_ident(uuid), "sn:a:nsid:1");
	CHECK(!znp_dm_uuid_is_ours("LVM-abc") && !znp_dm_uuid_is_ours("ZNPO2-") &&
	      !znp_dm_uuid_is_ours("") && !znp_dm_uuid_is_ours(NULL), "not ours");
	CHECK(znp_dm_uuid_ident("CRYPT-x") == NULL, "ident of a foreign uuid");
	CHECK_INT(znp_dm_uuid("a b", uuid, sizeof(uuid)), -EINVAL);
	CHECK_INT(znp_dm_uuid("x", uuid, 7), -ENAMETOOLONG);
	CHECK(znp_dm_name_is_creating("znp-creating-po2-a") && !znp_dm_name_is_creating("po2-a"),
	      "creating marker");
}

struct collected {
	unsigned int entries, bad;
	struct znp_dmconf_entry last;
	unsigned int bad_lines[8];
	const char *why[8];
};

static int collect(unsigned int lineno, const struct znp_dmconf_entry *e, const char *why,
		   void *arg)
{
	struct collected *c = arg;

	if (e) {
		c->entries++;
		c->last = *e;
	} else if (c->bad < 8) {
		c->bad_lines[c->bad] = lineno;
		c->why[c->bad++] = why;
	}
	return 0;
}

static void test_conf(void)
{
	struct znp_dmconf_entry e;
	const char *why = NULL;
	char line[256];

#define PL(s) znp_dmconf_parse_line(s, strlen(s), &e, &why)
	CHECK_INT(PL(""), 0);
	CHECK_INT(PL("   \t"), 0);
	CHECK_INT(PL("  # comment"), 0);
	CHECK_INT(PL("po2-a sn:znsnpo2-c0:nsid:1"), 1);
	CHECK_STR(e.name, "po2-a");
	CHECK_STR(e.ident, "sn:znsnpo2-c0:nsid:1");
	CHECK_U64(e.lba_size, 0);
	CHECK_INT(PL("po2-a\tnguid:120000000000000000000000000000ff lba_size=512 "
		     "zone_size=98304 nr_zones=10\r"), 1);
	CHECK_U64(e.lba_size, 512);
	CHECK_U64(e.zone_size, 98304);
	CHECK_U64(e.nr_zones, 10);
	CHECK_INT(PL("po2-a"), -EINVAL);
	CHECK_INT(PL("po2-a sn:x"), -EINVAL);
	CHECK_INT(PL("a/b sn:x:nsid:1"), -EINVAL);
	CHECK_INT(PL("znp-creating-a sn:x:nsid:1"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 lba_size=4096 lba_size=4096"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 lba_size=1000"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 lba_size=256"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 zone_size=0"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 zone_size=-1"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 zone_size="), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 nr_zones=99999999999999999999"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 color=red"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 # trailing comment"), -EINVAL);
	CHECK(why && strstr(why, "comment"), "reason: %s", why ? why : "(null)");
	CHECK_INT(znp_dmconf_parse_line("a sn:x:nsid:1\0zz", 16, &e, &why), -EINVAL);
	/* the line ends at len: what follows is not read */
	CHECK_INT(znp_dmconf_parse_line("a sn:x:nsid:1 garbage", 13, &e, &why), 1);
	/* via=ublk: a ublk mapping (map --ublk --persist); via=dm is the default */
	CHECK_INT(PL("a sn:x:nsid:1 lba_size=4096 via=ublk"), 1);
	CHECK(e.ublk, "via=ublk not parsed");
	CHECK_INT(PL("a sn:x:nsid:1 via=dm"), 1);
	CHECK(!e.ublk, "via=dm parsed as ublk");
	CHECK_INT(PL("a sn:x:nsid:1"), 1);
	CHECK(!e.ublk, "no via parsed as ublk");
	CHECK_INT(PL("a sn:x:nsid:1 via=nbd"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 via=ublkx"), -EINVAL);
	CHECK_INT(PL("a sn:x:nsid:1 via=ublk via=ublk"), -EINVAL);
#undef PL

	/* format and parse back */
	struct znp_dmconf_entry w = { .lba_size = 4096, .zone_size = 24576, .nr_zones = 10 };
	strcpy(w.name, "po2-znsnpo2-c0-n1");
	strcpy(w.ident, "sn:znsnpo2-c0:nsid:1");
	CHECK_INT(znp_dmconf_format(line, sizeof(line), &w), 0);
	CHECK_STR(line, "po2-znsnpo2-c0-n1 sn:znsnpo2-c0:nsid:1 lba_size=4096 zone_size=24576 nr_zones=10\n");
	CHECK_INT(znp_dmconf_parse_line(line, strlen(line) - 1, &e, &why), 1);
	CHECK(!memcmp(&e, &w, sizeof(e)), "round trip differs");
	w.ublk = true;
	CHECK_INT(znp_dmconf_format(line, sizeof(line), &w), 0);
	CHECK_STR(line, "po2-znsnpo2-c0-n1 sn:znsnpo2-c0:nsid:1 lba_size=4096 zone_size=24576 nr_zones=10 via=ublk\n");
	CHECK_INT(znp_dmconf_parse_line(line, strlen(line) - 1, &e, &why), 1);
	CHECK(!memcmp(&e, &w, sizeof(e)), "ublk round trip differs");
	w.ublk = false;
	CHECK_INT(znp_dmconf_format(line, 20, &w), -ENAMETOOLONG);
	strcpy(w.ident, "bogus");
	CHECK_INT(znp_dmconf_format(line, sizeof(line), &w), -EINVAL);

	/* whole file: duplicates and bad lines are reported with their numbers */
	static const char file[] =
		"# header\n"
		"a sn:x:nsid:1\n"
		"\n"
		"b eui64:00000000000000ab lba_size=4096\n"
		"a sn:y:nsid:1\n"			/* name again */
		"c sn:x:nsid:1\n"			/* identity again */
		"d bad\n"
		"e sn:z:nsid:2";			/* no final newline */
	struct collected c = { 0 };

	CHECK_INT(znp_dmconf_parse(file, sizeof(file) - 1, collect, &c), 0);
	CHECK_INT(c.entries, 3);
	CHECK_INT(c.bad, 3);
	CHECK_INT(c.bad_lines[0], 5);
	CHECK_INT(c.bad_lines[1], 6);
	CHECK_INT(c.bad_lines[2], 7);
	CHECK(c.why[0] && strstr(c.why[0], "name"), "dup name reason");
	CHECK(c.why[1] && strstr(c.why[1], "identity"), "dup identity reason");
	CHECK_STR(c.last.name, "e");
	c = (struct collected){ 0 };
	CHECK_INT(znp_dmconf_parse("", 0, collect, &c), 0);
	CHECK_INT(c.entries + c.bad, 0);
}

static int stop_at_first(unsigned int lineno, const struct znp_dmconf_entry *e,
			 const char *why, void *arg)
{
	(*(int *)arg)++;
	return 7;
}

static void test_conf_stop(void)
{
	int calls = 0;

	CHECK_INT(znp_dmconf_parse("a sn:x:nsid:1\nb sn:y:nsid:1\n", 28, stop_at_first, &calls), 7);
	CHECK_INT(calls, 1);
}

/* Arbitrary bytes never crash the parsers (a deterministic mini-fuzz). */
static void test_garbage(void)
{
	static const char alphabet[] = "0123456789 \t\n:=#-_abcxyzpo2zone/\r\0snguideui64";
	unsigned int seed = 12345;
	char buf[96];

	for (int iter = 0; iter < 20000; iter++) {
		struct znp_dm_table t;
		struct znp_po2_status s;
		struct collected c = { 0 };
		size_t n = (seed = seed * 1103515245 + 12345) % sizeof(buf);

		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			buf[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		znp_dmconf_parse(buf, n, collect, &c);
		buf[n] = '\0';
		if (!znp_dm_table_parse(buf, &t))
			CHECK(t.len && t.start <= UINT64_MAX - t.len, "accepted bad table '%s'", buf);
		if (!znp_dm_status_parse(buf, &s))
			CHECK(znp_is_po2(s.po2_zone_sectors), "accepted bad status '%s'", buf);
		znp_ident_valid(buf);
		znp_dm_name_invalid(buf);
	}
}

int main(void)
{
	test_table();
	test_status();
	test_ident();
	test_names();
	test_conf();
	test_conf_stop();
	test_garbage();
	return t_done("dmtext");
}

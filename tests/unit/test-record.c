// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The state-file toolkit's record reading (core): the number parser every
 * file and attribute reader uses, the key=value field splitter, and the
 * one-field-per-line record walker (the ublk records; the mapping file
 * splits its fields the same way), and the FNV-1a hash that names an
 * export's namespace.
 */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "test.h"

static void test_dec(void)
{
	uint64_t v = 7;

	CHECK_INT(znp_dec_u64("0", 1, &v), 0);
	CHECK_U64(v, 0);
	CHECK_INT(znp_dec_u64("18446744073709551615", 20, &v), 0);
	CHECK_U64(v, UINT64_MAX);
	v = 7;
	CHECK_INT(znp_dec_u64("18446744073709551616", 20, &v), -ERANGE);
	CHECK_INT(znp_dec_u64("000000000000000000001", 21, &v), -ERANGE);
	CHECK_U64(v, 7);	/* untouched on failure */
	CHECK_INT(znp_dec_u64("", 0, &v), -EINVAL);
	CHECK_INT(znp_dec_u64("-1", 2, &v), -EINVAL);
	CHECK_INT(znp_dec_u64("+1", 2, &v), -EINVAL);
	CHECK_INT(znp_dec_u64(" 1", 2, &v), -EINVAL);
	CHECK_INT(znp_dec_u64("0x10", 4, &v), -EINVAL);
	CHECK_INT(znp_dec_u64("12 ", 3, &v), -EINVAL);
	/* only the @n bytes count: the text need not end there */
	CHECK_INT(znp_dec_u64("123abc", 3, &v), 0);
	CHECK_U64(v, 123);
	CHECK_INT(znp_dec_u64("010", 3, &v), 0);
	CHECK_U64(v, 10);	/* decimal, never octal */
}

static void test_kv(void)
{
	const char f[] = "zone_size=96=x trailing";
	char s[8];
	struct znp_kv kv;
	uint64_t v;

	CHECK(znp_kv_split(f, 12, &kv), "split at the first '='");
	CHECK_INT(kv.klen, 9);
	CHECK(znp_kv_is(&kv, "zone_size"), "key");
	CHECK(!znp_kv_is(&kv, "zone"), "a prefix is another key");
	CHECK(!znp_kv_is(&kv, "zone_size_x"), "a longer key is another key");
	CHECK_INT(kv.vlen, 2);
	CHECK_INT(znp_kv_u64(&kv, &v), 0);
	CHECK_U64(v, 96);
	CHECK(znp_kv_split(f, 14, &kv) && kv.vlen == 4, "the value keeps later '='");
	CHECK_INT(znp_kv_u64(&kv, &v), -EINVAL);
	CHECK(!znp_kv_split("zone_size", 9, &kv), "no '='");
	CHECK(znp_kv_split("=5", 2, &kv) && kv.klen == 0 && kv.vlen == 1, "empty key");
	CHECK(znp_kv_split("k=", 2, &kv) && kv.vlen == 0, "empty value");
	CHECK_INT(znp_kv_u64(&kv, &v), -EINVAL);
	CHECK_INT(znp_kv_str(&kv, s, sizeof(s)), 0);
	CHECK_STR(s, "");
	CHECK(znp_kv_split("name=1234567", 12, &kv), "split");
	CHECK_INT(znp_kv_str(&kv, s, sizeof(s)), 0);
	CHECK_STR(s, "1234567");
	CHECK(znp_kv_split("name=12345678", 13, &kv), "split");
	CHECK_INT(znp_kv_str(&kv, s, sizeof(s)), -ENAMETOOLONG);
}

static void test_record(void)
{
	const char rec[] = "# comment\n\nident=nguid:01\nbad line\n";
	char big[600];
	struct znp_kv kv;
	const char *why = NULL;
	size_t off = 0;

	CHECK_INT(znp_record_next(rec, sizeof(rec) - 1, &off, &kv, &why), 1);
	CHECK(znp_kv_is(&kv, "ident") && kv.vlen == 8 && !memcmp(kv.val, "nguid:01", 8),
	      "comments and blank lines skipped");
	CHECK_INT(znp_record_next(rec, sizeof(rec) - 1, &off, &kv, &why), -EBADMSG);
	CHECK_STR(why, "line without '='");
	/* the end: also a last line without its newline */
	off = 0;
	CHECK_INT(znp_record_next("a=1\nb=2", 7, &off, &kv, &why), 1);
	CHECK_INT(znp_record_next("a=1\nb=2", 7, &off, &kv, &why), 1);
	CHECK(znp_kv_is(&kv, "b") && kv.vlen == 1, "last line");
	CHECK_INT(znp_record_next("a=1\nb=2", 7, &off, &kv, &why), 0);
	off = 0;
	CHECK_INT(znp_record_next("", 0, &off, &kv, &why), 0);
	off = 0;
	CHECK_INT(znp_record_next("a=1\0\n", 5, &off, &kv, &why), -EBADMSG);
	CHECK_STR(why, "NUL byte");
	/* 511 bytes is the longest line; 512 is too long */
	memset(big, 'x', sizeof(big));
	big[0] = 'k';
	big[1] = '=';
	off = 0;
	CHECK_INT(znp_record_next(big, ZNP_RECORD_LINE_MAX - 1, &off, &kv, &why), 1);
	CHECK_INT(kv.vlen, ZNP_RECORD_LINE_MAX - 3);
	off = 0;
	CHECK_INT(znp_record_next(big, ZNP_RECORD_LINE_MAX, &off, &kv, &why), -EBADMSG);
	CHECK_STR(why, "line too long");
	/* a NUL within the first 512 bytes is named first, one after them is not */
	big[ZNP_RECORD_LINE_MAX - 1] = '\0';
	off = 0;
	CHECK_INT(znp_record_next(big, sizeof(big), &off, &kv, &why), -EBADMSG);
	CHECK_STR(why, "NUL byte");
	big[ZNP_RECORD_LINE_MAX - 1] = 'x';
	big[ZNP_RECORD_LINE_MAX] = '\0';
	off = 0;
	CHECK_INT(znp_record_next(big, sizeof(big), &off, &kv, &why), -EBADMSG);
	CHECK_STR(why, "line too long");
}

/* The published FNV-1a 128 test vectors (offset basis for ""; "a"; "foobar"). */
static void test_fnv(void)
{
	static const struct { const char *in, *hex; } v[] = {
		{ "", "6c62272e07bb014262b821756295c58d" },
		{ "a", "d228cb696f1a8caf78912b704e4a8964" },
		{ "foobar", "343e1662793c64bf6f0d3597ba446f18" },
	};
	for (size_t i = 0; i < ZNP_ARRAY_SIZE(v); i++) {
		uint8_t out[16];
		char hex[33];

		znp_fnv1a128(v[i].in, strlen(v[i].in), out);
		for (int j = 0; j < 16; j++)
			snprintf(hex + 2 * j, 3, "%02x", out[j]);
		CHECK_STR(hex, v[i].hex);
	}
}

int main(void)
{
	test_dec();
	test_kv();
	test_record();
	test_fnv();
	return t_done("record");
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mapping file (src/map/dmconf.c): creation with its directory, replacing an
 * entry by name or identity, dropping, and keeping every other line as is;
 * a parse that runs out of memory fails instead of reading as "no entry".
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dmconf.h"
#include "test.h"

/*
 * read(2) with a fault switch: the library's read() resolves to this one
 * (it is linked into the test program), so a read error can be injected.
 */
static int read_fails;

ssize_t read(int fd, void *buf, size_t count)
{
	if (read_fails) {
		errno = EIO;
		return -1;
	}
	return syscall(SYS_read, fd, buf, count);
}

/*
 * realloc(3) likewise: memory running out. The next realloc() in the
 * lookup order does the work: the C library's, or the one of the
 * sanitizer or valgrind that owns the heap, so free() matches it.
 */
static int realloc_fails;

void *realloc(void *p, size_t n)
{
	static void *(*next)(void *, size_t);

	if (realloc_fails) {
		errno = ENOMEM;
		return NULL;
	}
	if (!next)
		next = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	return next(p, n);
}

/* write(2) likewise: a full disk while the file is rewritten. */
static int write_fails;

ssize_t write(int fd, const void *buf, size_t count)
{
	if (write_fails) {
		errno = ENOSPC;
		return -1;
	}
	return syscall(SYS_write, fd, buf, count);
}

/*
 * A rewrite that fails is an error, not "not recorded": drop() returns
 * -ENOSPC (unmap then says it could not forget the mapping) and the entry
 * stays, byte for byte.
 */
static void test_write_error(const char *path, const struct znp_dmconf_entry *c)
{
	char *before = NULL, *after = NULL;
	size_t len;

	CHECK_INT(znp_dmconf_put(path, c), 0);
	CHECK_INT(znp_dmconf_read(path, &before, &len), 0);
	write_fails = 1;
	CHECK_INT(znp_dmconf_drop(path, c->ident, NULL), -ENOSPC);
	CHECK_INT(znp_dmconf_drop(path, NULL, c->name), -ENOSPC);
	CHECK_INT(znp_dmconf_put(path, c), -ENOSPC);
	write_fails = 0;
	CHECK_INT(znp_dmconf_read(path, &after, &len), 0);
	CHECK(before && after && !strcmp(before, after) && strstr(after, c->ident),
	      "file changed after a write error:\n%s", after ? after : "(null)");
	free(before);
	free(after);
}

/* A read error must not make the next update drop the recorded mappings. */
static void test_read_error(const char *path, const struct znp_dmconf_entry *c)
{
	char *before = NULL, *after = NULL;
	size_t len;

	CHECK_INT(znp_dmconf_read(path, &before, &len), 0);
	read_fails = 1;
	CHECK_INT(znp_dmconf_read(path, &after, &len), -EIO);
	CHECK_INT(znp_dmconf_put(path, c), -EIO);
	CHECK_INT(znp_dmconf_drop(path, "sn:a:nsid:1", NULL), -EIO);
	read_fails = 0;
	CHECK_INT(znp_dmconf_read(path, &after, &len), 0);
	CHECK(before && after && !strcmp(before, after), "file changed after a read error:\n%s",
	      after ? after : "(null)");
	free(before);
	free(after);
}

/* An update keeps the file's mode. */
static void test_mode(const char *path, const struct znp_dmconf_entry *c)
{
	struct stat st;

	CHECK_INT(chmod(path, 0600), 0);
	CHECK_INT(znp_dmconf_put(path, c), 0);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0600);
	CHECK_INT(chmod(path, 0640), 0);
	CHECK_INT(znp_dmconf_drop(path, "sn:c:nsid:9", NULL), 1);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0640);
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len;

	return znp_dmconf_read(path, &buf, &len) ? NULL : buf;
}

static int count_entries(unsigned int lineno, const struct znp_dmconf_entry *e,
			 const char *why, void *arg)
{
	if (e)
		(*(int *)arg)++;
	return 0;
}

/* znp_dmconf_parse() without memory: -ENOMEM, never 0 with the entries unseen. */
static void test_parse_enomem(void)
{
	const char file[] = "# header\npo2-a sn:a:nsid:1 zone_size=24576\n"
			    "po2-b sn:b:nsid:1 zone_size=24576\n";
	int seen = 0;

	CHECK_INT(znp_dmconf_parse(file, sizeof(file) - 1, count_entries, &seen), 0);
	CHECK_INT(seen, 2);
	seen = 0;
	realloc_fails = 1;
	CHECK_INT(znp_dmconf_parse(file, sizeof(file) - 1, count_entries, &seen), -ENOMEM);
	realloc_fails = 0;
	CHECK_INT(seen, 0);	/* no entry is handed on that could not be checked for duplicates */
	/* a file without entries needs no memory: still 0 */
	realloc_fails = 1;
	CHECK_INT(znp_dmconf_parse("# only a comment\n", 17, count_entries, &seen), 0);
	realloc_fails = 0;
	CHECK_INT(seen, 0);
}

static struct znp_dmconf_entry entry(const char *name, const char *ident, uint64_t zs)
{
	struct znp_dmconf_entry e = { .lba_size = 4096, .zone_size = zs, .nr_zones = 10 };

	strcpy(e.name, name);
	strcpy(e.ident, ident);
	return e;
}

int main(void)
{
	char dir[] = "/tmp/znp-dmconf-XXXXXX", path[128], *s;
	struct znp_dmconf_entry a = entry("po2-a", "sn:a:nsid:1", 24576);
	struct znp_dmconf_entry b = entry("po2-b", "eui64:00000000000000ab", 12288);
	FILE *f;

	test_parse_enomem();
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/etc/mappings.conf", dir);
	s = NULL;
	size_t len;
	CHECK_INT(znp_dmconf_read(path, &s, &len), -ENOENT);
	CHECK_INT(znp_dmconf_drop(path, "sn:a:nsid:1", NULL), 0);	/* no file, no dir */

	CHECK_INT(znp_dmconf_put(path, &a), 0);
	s = slurp(path);
	CHECK(s && s[0] == '#', "header comment");
	CHECK(s && strstr(s, "\npo2-a sn:a:nsid:1 lba_size=4096 zone_size=24576 nr_zones=10\n"),
	      "entry a: %s", s);
	free(s);
	CHECK_INT(znp_dmconf_put(path, &b), 0);
	struct znp_dmconf_entry c = entry("po2-c", "sn:c:nsid:9", 4096);
	test_read_error(path, &c);
	test_write_error(path, &c);
	test_mode(path, &c);

	/* a foreign line and a comment survive every rewrite */
	f = fopen(path, "a");
	fputs("# kept comment\nnot a valid line\n", f);
	fclose(f);

	/* same identity, new name and geometry: replaced, not added */
	struct znp_dmconf_entry a2 = entry("po2-renamed", "sn:a:nsid:1", 8192);
	CHECK_INT(znp_dmconf_put(path, &a2), 0);
	s = slurp(path);
	CHECK(s && !strstr(s, "po2-a "), "old entry of a still there: %s", s);
	CHECK(s && strstr(s, "po2-renamed sn:a:nsid:1 lba_size=4096 zone_size=8192"), "a2: %s", s);
	CHECK(s && strstr(s, "\n# kept comment\nnot a valid line\n"), "other lines kept: %s", s);
	CHECK(s && strstr(s, "po2-b eui64:00000000000000ab"), "b kept: %s", s);
	free(s);

	/* same name, other identity: replaced too (names are unique) */
	struct znp_dmconf_entry b2 = entry("po2-b", "sn:c:nsid:7", 4096);
	CHECK_INT(znp_dmconf_put(path, &b2), 0);
	s = slurp(path);
	CHECK(s && !strstr(s, "eui64:00000000000000ab") && strstr(s, "po2-b sn:c:nsid:7"),
	      "b2: %s", s);
	free(s);

	CHECK_INT(znp_dmconf_drop(path, "sn:nope:nsid:1", NULL), 0);
	CHECK_INT(znp_dmconf_drop(path, "sn:a:nsid:1", NULL), 1);
	CHECK_INT(znp_dmconf_drop(path, "sn:a:nsid:1", NULL), 0);
	CHECK_INT(znp_dmconf_drop(path, NULL, "po2-b"), 1);
	s = slurp(path);
	CHECK(s && !strstr(s, "po2-renamed") && !strstr(s, "po2-b ") &&
	      strstr(s, "not a valid line"), "after drops: %s", s);
	free(s);

	/* bad entries are refused before anything is written */
	struct znp_dmconf_entry bad = entry("a/b", "sn:x:nsid:1", 1);
	CHECK_INT(znp_dmconf_put(path, &bad), -EINVAL);

	/* no temporary file is left behind */
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "test $(ls -A %s/etc | grep -vc -e '^mappings.conf$' "
		 "-e '^mappings.conf.lock$') = 0", dir);
	CHECK_INT(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
	return t_done("dmconf");
}

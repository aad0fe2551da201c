// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Corpus replay: runs a fuzz target's LLVMFuzzerTestOneInput() once on
 * every file of the directories (or files) given, without libFuzzer. Built
 * with the normal compiler, so the seed corpora and every past finding
 * (regress/) run in `meson test` and under the sanitizer build.
 *   replay-<target> CORPUS_DIR [REGRESS_DIR|FILE...]
 * Exit: 0 when every input ran (a failed invariant aborts), 1 when an
 * argument cannot be read (a missing REGRESS_DIR is skipped) or no input was
 * found.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		abort();
	n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	if (n != (size_t)st.st_size) {
		fprintf(stderr, "%s: short read\n", path);
		free(buf);
		return -1;
	}
	/* exact-size copy: ASan catches reads past the input */
	uint8_t *exact = malloc(n ? n : 1);

	if (!exact)
		abort();
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	unsigned long nr = 0;
	int i, err = 0;

	for (i = 1; i < argc; i++) {
		struct dirent *de;
		struct stat st;
		char **names = NULL;
		size_t nn = 0, cap = 0;
		DIR *d;

		if (stat(argv[i], &st)) {
			if (errno == ENOENT && i > 1)	/* regress/TARGET: none yet */
				continue;
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			err = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			err |= run_file(argv[i]) ? 1 : 0;
			nr++;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			err = 1;
			continue;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (nn == cap) {
				cap = cap ? 2 * cap : 64;
				names = realloc(names, cap * sizeof(*names));
				if (!names)
					abort();
			}
			if (asprintf(&names[nn++], "%s/%s", argv[i], de->d_name) < 0)
				abort();
		}
		closedir(d);
		qsort(names, nn, sizeof(*names), cmp_names);
		for (size_t k = 0; k < nn; k++) {
			err |= run_file(names[k]) ? 1 : 0;
			nr++;
			free(names[k]);
		}
		free(names);
	}
	printf("%lu inputs replayed\n", nr);
	return err || !nr;
}

/*
 * replay.c - a fuzz target's corpus replayed as cmocka tests, built with
 * the ordinary compiler so that `make check` and its sanitizer runs need
 * no clang: one test per file of the corpus directories (the arguments,
 * or REPLAY_CORPUS), each fed to LLVMFuzzerTestOneInput and then held to
 * the promise of its name (fuzz_expect).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "fuzz.h"

struct corpus_file {
	char *path;
	const char *name;	/* the base name, within path */
};

static void
replay_one(void **state)
{
	const struct corpus_file *cf = *state;
	FILE *fp = fopen(cf->path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, got;
	const char *broken;

	assert_non_null(fp);
	do {
		if (cap - size < 4096) {
			cap = cap ? cap * 2 : 65536;
			data = realloc(data, cap);
			assert_non_null(data);
		}
		got = fread(data + size, 1, cap - size, fp);
		size += got;
	} while (got > 0);
	assert_int_equal(ferror(fp), 0);
	fclose(fp);
	/* a copy of exactly size bytes, so that ASan sees any overread */
	uint8_t *exact = malloc(size ? size : 1);
	assert_non_null(exact);
	memcpy(exact, data, size);
	free(data);
	LLVMFuzzerTestOneInput(exact, size);
	broken = fuzz_expect(cf->name, exact, size);
	free(exact);
	if (broken != NULL)
		fail_msg("%s: %s", cf->path, broken);
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(((const struct CMUnitTest *)a)->name,
	    ((const struct CMUnitTest *)b)->name);
}

/* Append a test per regular file of directory dir to *tests. */
static void
add_dir(const char *dir, struct CMUnitTest **tests, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL) {
		fprintf(stderr, "replay: cannot open %s\n", dir);
		exit(1);
	}
	while ((e = readdir(d)) != NULL) {
		struct corpus_file *cf;
		struct stat st;
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		char *path = malloc(len);

		if (path == NULL)
			abort();
		snprintf(path, len, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			*tests = realloc(*tests, *cap * sizeof **tests);
		}
		cf = malloc(sizeof *cf);
		if (*tests == NULL || cf == NULL)
			abort();
		cf->path = path;
		cf->name = path + strlen(dir) + 1;
		(*tests)[(*n)++] = (struct CMUnitTest){ .name = cf->path,
		    .test_func = replay_one, .initial_state = cf };
	}
	closedir(d);
}

int
main(int argc, char **argv)
{
	struct CMUnitTest *tests = NULL;
	size_t n = 0, cap = 0;
	int failed;

	if (argc > 1)
		for (int i = 1; i < argc; i++)
			add_dir(argv[i], &tests, &n, &cap);
	else
		add_dir(REPLAY_CORPUS, &tests, &n, &cap);
	if (n == 0) {
		fprintf(stderr, "replay: no corpus files\n");
		return 1;
	}
	qsort(tests, n, sizeof *tests, by_path);
	LLVMFuzzerInitialize(&argc, &argv);
	failed = _cmocka_run_group_tests("corpus", tests, n, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		struct corpus_file *cf = (void *)tests[i].initial_state;

		free(cf->path);
		free(cf);
	}
	free(tests);
	return failed;
}

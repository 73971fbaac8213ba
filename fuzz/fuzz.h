/*
 * fuzz.h - what each fuzz target (fuzz/fuzz-NAME.c) offers: libFuzzer's
 * entry points, and for the corpus replay of `make check` (fuzz/replay.c)
 * the promise a corpus file's name makes.
 */
#ifndef PROFIL_FUZZ_H
#define PROFIL_FUZZ_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <fcntl.h>
#include <unistd.h>

#include <profil.h>

/*
 * Feed one input to the code under test.  Returns 0; a broken invariant
 * (a crash, a sanitizer report, or fuzz_fail) ends the process.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Once, before any input: libFuzzer calls it, and so does the replay. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * The replay's extra check of a corpus file by its name: "ok-..." files
 * are valid inputs the code must accept, "bad-..." ones malformed inputs
 * it must refuse; any other name promises only that nothing breaks.
 * Returns NULL when the promise is kept, else what went wrong (static).
 */
const char *fuzz_expect(const char *name, const uint8_t *data, size_t size);

/*
 * A malloc'd copy of a .prf file's bytes with the checksum of its end
 * record made right, or NULL if it does not end with an end record or the
 * checksum was right already.  Without it almost no mutation of a valid
 * file would be read past the checksum.
 */
static inline uint8_t *
fuzz_fix_checksum(const uint8_t *data, size_t size)
{
	/* the end record: tag 0xffff, flags 0, length 4, crc32 */
	static const uint8_t end[8] = { 0xff, 0xff, 0, 0, 4, 0, 0, 0 };
	uint32_t crc;
	uint8_t *fixed;

	if (size < 12 || memcmp(data + size - 12, end, sizeof end) != 0)
		return NULL;
	crc = (uint32_t)crc32_z(0, data, size - 12);
	if ((fixed = malloc(size)) == NULL)
		abort();
	memcpy(fixed, data, size);
	for (int i = 0; i < 4; i++)
		fixed[size - 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
	if (memcmp(fixed, data, size) == 0) {
		free(fixed);
		return NULL;
	}
	return fixed;
}

/* Print "fuzz: " and the message on stderr, then abort() for libFuzzer. */
__attribute__((noreturn, format(printf, 1, 2))) static inline void
fuzz_fail(const char *fmt, ...);

/*
 * A profile a recorder's builder made, finished as prffile_header would
 * (interval_ns, engine, no command line), encoded and read back: both
 * must succeed.  p is freed.  With FUZZ_SAVE_PROFILES set to a directory,
 * the encoded bytes are kept there too, as N.prf for the Nth profile of
 * the run: scripts/same-output.sh compares what two builds of the
 * recorder make of the same corpus.
 */
static inline void
fuzz_save_profile(const void *data, size_t size)
{
	static unsigned long saved;
	const char *dir = getenv("FUZZ_SAVE_PROFILES");
	char path[4096];
	FILE *fp;

	if (dir == NULL || dir[0] == '\0')
		return;
	snprintf(path, sizeof path, "%.4000s/%lu.prf", dir, saved++);
	if ((fp = fopen(path, "wb")) == NULL ||
	    fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		fuzz_fail("cannot write %s", path);
}

static inline void
fuzz_profile_reads_back(struct profil_profile *p, uint64_t interval_ns,
    const char *engine)
{
	struct profil_profile *back;
	char cause[256];
	size_t size;
	void *data;

	p->interval_ns = interval_ns;
	p->engine = strdup(engine);
	p->argv = calloc(1, sizeof *p->argv);
	if (p->engine == NULL || p->argv == NULL)
		abort();
	if (profil_profile_encode(p, &data, &size) < 0)
		fuzz_fail("the profile cannot be encoded: %s", strerror(errno));
	back = profil_profile_parse(data, size, cause, sizeof cause);
	if (back == NULL)
		fuzz_fail("the reader refuses the profile: %s", cause);
	fuzz_save_profile(data, size);
	profil_profile_free(back);
	free(data);
	profil_profile_free(p);
}

/* Print "fuzz: " and the message on stderr, then abort() for libFuzzer. */
__attribute__((noreturn, format(printf, 1, 2))) static inline void
fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/*
 * A file of the target's own, for a follower to read (the recorder opens
 * the runtime's files with O_NOFOLLOW: a /proc/self/fd link of a memfd is
 * refused): name in a directory made for it under $TMPDIR or /tmp, its
 * path into path, both gone when the process exits.  Returns its fd,
 * open for reading and writing.
 */
static char fuzz_scratch_dir[4096];
static const char *fuzz_scratch_path;

static inline void
fuzz_scratch_remove(void)
{
	unlink(fuzz_scratch_path);
	rmdir(fuzz_scratch_dir);
}

static inline int
fuzz_scratch_file(const char *name, char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(fuzz_scratch_dir, sizeof fuzz_scratch_dir, "%.4000s/fuzz-XXXXXX",
	    dir != NULL && dir[0] != '\0' ? dir : "/tmp");
	if (mkdtemp(fuzz_scratch_dir) == NULL)
		fuzz_fail("mkdtemp %s failed", fuzz_scratch_dir);
	if ((size_t)snprintf(path, size, "%s/%s", fuzz_scratch_dir, name) >= size)
		fuzz_fail("%s: too long a path", fuzz_scratch_dir);
	fuzz_scratch_path = path;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		fuzz_fail("cannot make %s", path);
	atexit(fuzz_scratch_remove);
	return fd;
}

#endif

/*
 * fuzz-elf.c - what we make of an ELF file libdwfl and libelf have
 * parsed, fed any bytes as the file: the symbol table (cli/symbols/symbols.c,
 * symtab-*.c), the recorder's segment mapping
 * (cli/record/core/builder-objects.c) and the folding into functions
 * (cli/model/funcs.c).  Lookups must answer inside what they claim,
 * and a profile the builder makes must be one the reader accepts.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <profil.h>

#include "fuzz.h"
#include "model/funcs.h"
#include "record/core/builder.h"
#include "symbols/symbols.h"

#define NPROBES 48

static char dir[64], path[96];

static void
remove_files(void)
{
	unlink(path);
	rmdir(dir);
}

/*
 * The input goes to a file of its own in a directory of its own (libdwfl
 * looks for .gnu_debuglink files beside it).  Standard input is /dev/null
 * so that nothing a file names can wait for input.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc, (void)argv;
	snprintf(dir, sizeof dir, "/tmp/profil-fuzz-elf.XXXXXX");
	if (mkdtemp(dir) == NULL)
		fuzz_fail("cannot make a directory in /tmp");
	snprintf(path, sizeof path, "%s/object", dir);
	atexit(remove_files);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		fuzz_fail("cannot open /dev/null");
	close(fd);
	return 0;
}

static void
write_input(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t done = 0;

	if (fd < 0)
		fuzz_fail("cannot create %s", path);
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			fuzz_fail("cannot write %s", path);
		done += (size_t)n;
	}
	close(fd);
}

/* The 64-bit word at byte at of the input (zero-padded past its end). */
static uint64_t
word_at(const uint8_t *data, size_t size, size_t at)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 8 && at + i < size; i++)
		v |= (uint64_t)data[at + i] << (8 * i);
	return v;
}

/*
 * Addresses to probe: the edges of the address space, and words of the
 * file spread over it (ELF headers and symbol tables are full of
 * addresses: the entry point, st_value of every symbol...).
 */
static size_t
probes(const uint8_t *data, size_t size, uint64_t *addr)
{
	size_t n = 0;

	addr[n++] = 0;
	addr[n++] = 1;
	addr[n++] = UINT64_MAX;
	addr[n++] = word_at(data, size, 24);		/* e_entry */
	for (size_t i = 0; n < NPROBES; i++)
		addr[n++] = word_at(data, size,
		    (size * i / (NPROBES - 4)) & ~(size_t)7);
	return n;
}

static void
check_lookup(struct symtab *t, uint64_t addr)
{
	uint64_t start = 0, end = 0, start2, end2;
	const char *name = symtab_lookup(t, addr, &start, &end);
	const char *file;
	int line = 0;

	if (name == NULL)
		return;
	if (addr < start || addr >= end)
		fuzz_fail("%#llx found in %s at [%#llx, %#llx)",
		    (unsigned long long)addr, name, (unsigned long long)start,
		    (unsigned long long)end);
	/* the function's own first and last address are in it too */
	if (symtab_lookup(t, start, &start2, &end2) == NULL || start2 != start ||
	    symtab_lookup(t, end - 1, &start2, &end2) == NULL || start2 != start)
		fuzz_fail("%s: [%#llx, %#llx) does not hold its own ends", name,
		    (unsigned long long)start, (unsigned long long)end);
	(void)strlen(name);
	file = symtab_source(t, addr, &line);
	if (file != NULL && (line <= 0 || strlen(file) == 0))
		fuzz_fail("%s: source line %d of '%s'", name, line, file);
}

/*
 * The recorder's view: samples at file offsets of the object (spread over
 * the file, and taken from it), folded into a profile that must encode,
 * be read back, and fold into functions whose samples add up.
 */
static void
check_builder(const uint64_t *addr, size_t naddr, size_t size)
{
	struct builder *b = builder_new(size % 2 ? 1 : 16);
	struct profil_profile *p, *q;
	struct funcs f;
	uint64_t sum = 0;
	char cause[256] = "";
	void *encoded;
	size_t len, i;
	int obj = builder_object(b, path, NULL, 0);

	for (i = 0; i < naddr; i++) {
		builder_sample(b, obj, size * i / naddr, 1, 100, 100);
		builder_sample(b, obj, addr[i] % (size + 1), 2, 100, 101);
	}
	builder_kernel(b, 0xffffffff81000000ull, 1, 100, 100);
	builder_comm(b, 100, 100, "fuzz");
	p = builder_finish(b);
	builder_free(b);
	p->engine = strdup("perf");
	p->interval_ns = 1000000;
	if (profil_profile_encode(p, &encoded, &len) < 0)
		fuzz_fail("the builder's profile does not encode");
	q = profil_profile_parse(encoded, len, cause, sizeof cause);
	if (q == NULL)
		fuzz_fail("the builder's profile is refused: %s", cause);
	funcs_build(&f, q, NULL);
	for (i = 0; i < f.nrows; i++)
		sum += f.rows[i].samples;
	if (sum != q->samples)
		fuzz_fail("function rows hold %llu samples of %llu",
		    (unsigned long long)sum, (unsigned long long)q->samples);
	funcs_free(&f);
	free(encoded);
	profil_profile_free(p);
	profil_profile_free(q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profil_object o = { .path = path };
	uint64_t addr[NPROBES];
	const char *problem;
	struct symtab *t;
	size_t n, i;

	write_input(data, size);
	n = probes(data, size, addr);
	t = symtab_open(&o, &problem);
	for (i = 0; i < n; i++) {
		check_lookup(t, addr[i]);
		check_lookup(t, addr[i] - 1);
		check_lookup(t, addr[i] + 1);
	}
	symtab_close(t);
	check_builder(addr, n, size);
	return 0;
}

const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	static char why[160];
	struct profil_object o = { .path = path };
	const char *problem;
	struct symtab *t;

	write_input(data, size);
	t = symtab_open(&o, &problem);
	symtab_close(t);
	if (strncmp(name, "ok-", 3) == 0 && problem != NULL) {
		snprintf(why, sizeof why, "a valid ELF file is refused: %s",
		    problem);
		return why;
	}
	return NULL;
}

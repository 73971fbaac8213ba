/*
 * fuzz-ksyms.c - the kernel symbol tables (cli/symbols/ksyms.c) fed
 * anything: as a cache file (its header, then the table and names; an
 * input beginning "PRFKSYM1" is taken with its boot id made the one
 * asked for, so that mutations reach the table), and as /proc/kallsyms
 * text.  A table taken names each address it holds with a name that
 * ends inside it, from a start at or below the address; a symbol's end,
 * but for the last, lies past the address.
 */
#include "fuzz.h"
#include "symbols/ksyms.h"

static const unsigned char boot_id[16] = "profil-fuzz-boot";

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

/* Addresses around those of data's first words, looked up in t. */
static void
lookups(struct ksyms *t, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 512; i += 8) {
		uint64_t addr, start, end;
		const char *name;

		memcpy(&addr, data + i, 8);
		for (int d = -1; d <= 1; d++) {
			uint64_t a = addr + (uint64_t)(int64_t)d;

			name = ksyms_lookup(t, a, &start, &end);
			if (name == NULL)
				continue;
			(void)strlen(name);	/* ended: ASan says if not */
			if (start > a)
				fuzz_fail("%#llx named from %#llx, above it",
				    (unsigned long long)a,
				    (unsigned long long)start);
			if (end <= start)
				fuzz_fail("%#llx in [%#llx, %#llx): empty",
				    (unsigned long long)a,
				    (unsigned long long)start,
				    (unsigned long long)end);
		}
	}
}

/* data as a cache file: 1 if taken. */
static int
as_cache(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);	/* aligned, exact */
	struct ksyms *t;

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	if (size >= 40 && memcmp(copy, "PRFKSYM1", 8) == 0)
		memcpy(copy + 24, boot_id, 16);
	t = ksyms_from_cache(copy, size, boot_id);
	if (t != NULL) {
		lookups(t, data, size);
		ksyms_close(t);
	}
	free(copy);
	return t != NULL;
}

/* data as kallsyms text: how many symbols a lookup found (0: none). */
static int
as_kallsyms(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	const char *problem;
	struct ksyms *t;
	int found = 0;

	if (f == NULL)
		return 0;	/* fmemopen refuses a size of 0 */
	t = ksyms_from_kallsyms(f, &problem);
	fclose(f);
	lookups(t, data, size);
	/* each line's own address names a symbol, when the table is whole */
	if (problem == NULL) {
		uint64_t start, end;
		unsigned long long a;

		if (sscanf((const char *)data, "%llx", &a) == 1 &&
		    ksyms_lookup(t, a, &start, &end) != NULL)
			found = 1;
	}
	ksyms_close(t);
	return found;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	as_cache(data, size);
	if (text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';	/* for the sscanf above */
	as_kallsyms((const uint8_t *)text, size);
	free(text);
	return 0;
}

/*
 * ok-cache-* must be taken as a cache, bad-cache-* refused; ok-kallsyms-*
 * must name its first line's address, bad-kallsyms-* name nothing.
 */
const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	int ok = strncmp(name, "ok-", 3) == 0, bad = strncmp(name, "bad-", 4) == 0;
	int taken;

	if (strstr(name, "-cache-") != NULL) {
		taken = as_cache(data, size);
	} else if (strstr(name, "-kallsyms-") != NULL) {
		char *text = malloc(size + 1);

		if (text == NULL)
			abort();
		memcpy(text, data, size);
		text[size] = '\0';
		taken = as_kallsyms((const uint8_t *)text, size);
		free(text);
	} else {
		return NULL;
	}
	if (ok && !taken)
		return "a valid table refused";
	if (bad && taken)
		return "a malformed table taken";
	return NULL;
}

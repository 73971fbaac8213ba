/*
 * fuzz-maps.c - the /proc/PID/maps line parser (cli/record/core/procmaps.c) fed
 * anything, a line at a time as procmaps_each reads them (lines too long
 * for its buffer are skipped there, so here too): what it accepts is an
 * executable range with start below end, named by a string that lies in
 * the line and holds no newline.
 */
#include "fuzz.h"
#include "record/core/procmaps.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

/* Every line of data through the parser; how many mappings it took. */
static int
parse_all(const uint8_t *data, size_t size)
{
	static char line[PROCMAPS_LINE_MAX];
	int n = 0;

	for (size_t i = 0; i < size; ) {
		size_t len = 0;
		struct procmap m;

		while (i + len < size && data[i + len] != '\n')
			len++;
		if (len < sizeof line - 1) {
			memcpy(line, data + i, len);
			line[len] = '\0';
			if (procmaps_line(line, &m)) {
				if (m.start >= m.end)
					fuzz_fail("range %llx-%llx taken",
					    (unsigned long long)m.start,
					    (unsigned long long)m.end);
				if (m.name[0] != '\0' && (m.name < line ||
				    m.name + strlen(m.name) > line + len))
					fuzz_fail("the name lies outside its line");
				if (strchr(m.name, '\n') != NULL)
					fuzz_fail("a newline in a name");
				(void)procmaps_is_object(m.name);
				n++;
			}
		}
		i += len + 1;
	}
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_all(data, size);
	return 0;
}

const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	int n = parse_all(data, size);

	if (strncmp(name, "ok-", 3) == 0 && n == 0)
		return "a maps file with executable mappings gave none";
	if (strncmp(name, "bad-", 4) == 0 && n != 0)
		return "a malformed line was taken for a mapping";
	return NULL;
}

/*
 * fuzz-procfs.c - the recorder's /proc parsers (cli/record/core/procfs.c) fed
 * anything, as a task's stat file and as its schedstat: what they accept
 * they read whole, and give back as the kernel would print it; the name
 * is the bytes between the first '(' and the last ')', the state the
 * byte after it.
 */
#include "fuzz.h"
#include "record/core/procfs.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

/* data as a stat file: 1 if taken, its properties checked. */
static int
stat_taken(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *open, *close = NULL;
	struct procfs_stat st, again;
	char line[512];
	size_t len;
	int n;

	if (procfs_parse_stat(buf, size, &st) < 0)
		return 0;
	open = memchr(buf, '(', size);
	for (size_t i = size; i > 0; i--)
		if (buf[i - 1] == ')') {
			close = buf + i - 1;
			break;
		}
	if (open == NULL || close == NULL || close < open)
		fuzz_fail("a stat without its name in parentheses taken");
	if (st.state != close[2])
		fuzz_fail("state %c, the byte after the name is %c", st.state,
		    close[2]);
	len = (size_t)(close - open - 1);
	if (len >= sizeof st.comm)
		len = sizeof st.comm - 1;
	if (memcmp(st.comm, open + 1, strnlen(st.comm, len)) != 0 ||
	    st.comm[sizeof st.comm - 1] != '\0')
		fuzz_fail("the name is not what lies in the parentheses");
	if (st.ppid < 0)
		fuzz_fail("a parent below 0");
	/* printed as the kernel prints it, and read again: the same */
	n = snprintf(line, sizeof line, "1 (%s) %c %d 1 1 0 -1 4194304 0 0 0 "
	    "0 %llu %llu %llu %llu 20 0 1 0 %llu 0 0\n", st.comm, st.state,
	    (int)st.ppid, (unsigned long long)st.utime,
	    (unsigned long long)st.stime, (unsigned long long)st.cutime,
	    (unsigned long long)st.cstime, (unsigned long long)st.starttime);
	if (strchr(st.comm, ')') == NULL && st.state != '\0' &&
	    st.state != ')' && n > 0 && (size_t)n < sizeof line &&
	    strlen(line) == (size_t)n) {
		if (procfs_parse_stat(line, (size_t)n, &again) < 0 ||
		    strcmp(st.comm, again.comm) != 0 ||
		    st.state != again.state || st.ppid != again.ppid ||
		    st.utime != again.utime || st.stime != again.stime ||
		    st.cutime != again.cutime || st.cstime != again.cstime ||
		    st.starttime != again.starttime)
			fuzz_fail("printed again, not read the same: %s", line);
	}
	return 1;
}

/* data as a schedstat file: 1 if taken, read back the same. */
static int
schedstat_taken(const uint8_t *data, size_t size)
{
	struct procfs_schedstat s, again;
	char line[96];
	int n;

	if (procfs_parse_schedstat((const char *)data, size, &s) < 0)
		return 0;
	n = snprintf(line, sizeof line, "%llu %llu %llu\n",
	    (unsigned long long)s.run_ns, (unsigned long long)s.wait_ns,
	    (unsigned long long)s.slices);
	if (procfs_parse_schedstat(line, (size_t)n, &again) < 0 ||
	    memcmp(&s, &again, sizeof s) != 0)
		fuzz_fail("schedstat printed again, not read the same: %s", line);
	/* nothing but digits and spaces before the line's end */
	for (size_t i = 0; i < size && data[i] != '\n'; i++)
		if (!(data[i] >= '0' && data[i] <= '9') && data[i] != ' ')
			fuzz_fail("schedstat with byte %#x taken", data[i]);
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	stat_taken(data, size);
	schedstat_taken(data, size);
	return 0;
}

/* ok-stat-*, ok-schedstat-* must be taken as such, bad-* refused. */
const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	int schedstat = strstr(name, "schedstat") != NULL;
	int taken = schedstat ? schedstat_taken(data, size) :
	    stat_taken(data, size);

	if (strncmp(name, "ok-", 3) == 0 && !taken)
		return "a valid file refused";
	if (strncmp(name, "bad-", 4) == 0 && taken)
		return "a malformed file taken";
	return NULL;
}

/*
 * rebuilt.c - the fixture of the tests of names kept away from their
 * files (rebuilt.h): tests/programs/workload.c built twice, with two
 * build-ids; build A recorded at bin/app and its profile read right, then
 * build B put in its place.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"
#include "rebuilt.h"

char source[PATH_MAX + 64], app[PATH_MAX], build_a[PATH_MAX];
char build_b[PATH_MAX], prf[PATH_MAX];
struct shares right;

void
build(const char *out, const char *build_id)
{
	char cmd[4 * PATH_MAX];

	snprintf(cmd, sizeof cmd, "cc -O2 -g -o %s %s -lm -lpthread "
	    "-Wl,--build-id=%s%s", out, source, build_id ? "0x" : "none",
	    build_id ? build_id : "");
	if (system(cmd) != 0)
		fail_msg("cannot build: %s", cmd);
}

void
copy(const char *from, const char *to)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname %s)\" && cp %s %s", to,
	    from, to);
	if (system(cmd) != 0)
		fail_msg("cannot copy %s to %s", from, to);
}

/*
 * What assert_named_right needs: 10 samples in each of six, three and
 * one, for a name's count to be told from another's or from none.
 */
static double
fewest_named(const struct shares *s)
{
	return fmin(samples_of(s, "six", "app"), fmin(samples_of(s, "three",
	    "app"), samples_of(s, "one", "app")));
}

/*
 * The run is as long as fewest_named needs: one() has a tenth of the
 * samples, as if the program ran a tenth of a second for each asked.
 */
int
rebuilt_setup(void **state)
{
	static struct run r;
	char *prog[] = { app, "split", E2E_CPU, NULL };
	char root[PATH_MAX], probe[PATH_MAX + 64];

	if (e2e_setup(state) < 0)
		return -1;
	unsetenv("DEBUGINFOD_URLS");
	snprintf(root, sizeof root, "%s", bindir);
	for (;;) {
		snprintf(probe, sizeof probe, "%s/tests/programs/workload.c", root);
		if (access(probe, R_OK) == 0)
			break;
		if (strrchr(root, '/') == NULL)
			return -1;
		*strrchr(root, '/') = '\0';
	}
	snprintf(source, sizeof source, "%s", probe);
	snprintf(app, sizeof app, "%s/bin/app", tmpdir);
	snprintf(build_a, sizeof build_a, "%s/app-a", tmpdir);
	snprintf(build_b, sizeof build_b, "%s/app-b", tmpdir);
	snprintf(prf, sizeof prf, "%s/app.prf", tmpdir);
	build(build_a, "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1");
	build(build_b, "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2");
	copy(build_a, app);
	record_for(&right, &r, "auto", prf, prog, 0.1, 10, fewest_named);
	copy(build_b, app);
	return 0;
}

void
assert_named_right(const struct shares *s, const char *what)
{
	static const char *const names[] = { "six", "three", "one" };

	for (int i = 0; i < 3; i++) {
		double want = samples_of(&right, names[i], "app");

		if (want < 10 || samples_of(s, names[i], "app") != want)
			fail_msg("%s: %s has %.0f samples, %.0f read right:\n%s",
			    what, names[i], samples_of(s, names[i], "app"), want,
			    s->csv);
	}
	if (samples_of(s, "[app]", NULL) != 0)
		fail_msg("%s: samples left unnamed:\n%s", what, s->csv);
}

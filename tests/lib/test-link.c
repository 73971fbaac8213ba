/*
 * test-link.c - the library as the linker sees it: its modules call only
 * down the layers of docs/design.md (scripts/check-layers.sh, on the
 * sources and on the built objects); both libraries show only the public
 * names (include/profil.h) and the documented interposers; a program
 * with names of its own that are also internal names of ours links
 * statically against libprofil.a and is profiled.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "harness.h"

#ifndef SRCDIR
#error "SRCDIR: the source tree (the Makefile sets it)"
#endif
#ifndef BUILDDIR
#error "BUILDDIR: the build directory of these objects (the Makefile sets it)"
#endif
#ifndef TEST_CC
#error "TEST_CC, TEST_SANFLAGS: how the library was compiled (the Makefile sets them)"
#endif

/* include/profil.h's functions, and the --wrap hook of libprofil.a */
static const char *const public_names[] = {
	"profil", "sprofil", "profil_start", "profil_stop",
	"profil_get_status", "profil_mechanism_name", "profil_profile_read",
	"profil_profile_parse", "profil_profile_encode", "profil_profile_save",
	"profil_profile_free", "__wrap_pthread_create", NULL
};
/* what the shared library puts in front of the C library's (profil.3) */
static const char *const interposers[] = {
	"pthread_create", "dlclose", "sigaction", "signal", "bsd_signal",
	"__sysv_signal", "sigprocmask", "pthread_sigmask", "sigpending",
	"sigtimedwait", "sigwaitinfo", "sigwait", "close", "close_range",
	"closefrom", "dup2", "dup3", NULL
};

static int
listed(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

/*
 * The global names a command's output lists (nm: "[addr] TYPE name"),
 * checked against the public ones (and the interposers if allowed); the
 * others are appended to extra.  Returns how many names it saw.
 */
static int
global_names(const char *command, int interposers_too, char *extra,
    size_t size)
{
	FILE *nm = popen(command, "r");
	char line[512];
	int seen = 0;

	assert_non_null(nm);
	while (fgets(line, sizeof line, nm) != NULL) {
		char *name = strrchr(line, ' ');

		if (name == NULL || strchr(line, ':') != NULL)
			continue;	/* an archive member's heading */
		name++;
		name[strcspn(name, "\n@")] = '\0';
		seen++;
		if (listed(public_names, name) ||
		    (interposers_too && listed(interposers, name)))
			continue;
		if (strlen(extra) + strlen(name) + 2 < size) {
			strcat(extra, " ");
			strcat(extra, name);
		}
	}
	assert_int_equal(pclose(nm), 0);
	return seen;
}

static void
test_static_library_shows_only_public_names(void **state)
{
	char extra[4096] = "";
	int seen;

	(void)state;
	seen = global_names("nm -g --defined-only " BUILDDIR "/libprofil.a", 0,
	    extra, sizeof extra);
	if (extra[0] != '\0')
		fail_msg("libprofil.a makes global:%s", extra);
	assert_true(seen >= 12);
}

static void
test_shared_library_shows_only_public_names(void **state)
{
	char extra[4096] = "";
	int seen;

	(void)state;
	seen = global_names("nm -D --defined-only " BUILDDIR "/libprofil.so",
	    1, extra, sizeof extra);
	if (extra[0] != '\0')
		fail_msg("libprofil.so exports:%s", extra);
	assert_true(seen >= 11);
}

/*
 * A program whose own functions have our internal names: it must link
 * against libprofil.a (no multiple definitions), each call must reach
 * its own function, and profil() must still count.
 */
static const char clash_program[] =
	"#include <profil.h>\n"
	"#include <stdio.h>\n"
	"#include <time.h>\n"
	"int plan_new(void) { return 1; }\n"
	"int session_start(void) { return 2; }\n"
	"int fault_probe(void) { return 3; }\n"
	"int rio_put_u8(void) { return 4; }\n"
	"int handler_install(void) { return 5; }\n"
	"int agent_fork_child(void) { return 6; }\n"
	"int ownfds_mark(void) { return 7; }\n"
	"static unsigned short buf[1 << 16];\n"
	"int main(void) {\n"
	"	struct profil_status st; struct timespec ts;\n"
	"	volatile unsigned long x = 0;\n"
	"	int mine = plan_new() + session_start() + fault_probe() +\n"
	"	    rio_put_u8() + handler_install() + agent_fork_child() +\n"
	"	    ownfds_mark();\n"
	"	if (mine != 28) return 10;\n"
	"	if (profil(buf, sizeof buf, (size_t)main & ~(size_t)0xffff,\n"
	"	    0x8000) != 0) return 11;\n"
	"	do {	/* (a call now and then: TSan delivers signals there) */\n"
	"		for (unsigned long i = 0; i < 1000000; i++) x += i;\n"
	"		clock_gettime(CLOCK_MONOTONIC, &ts);\n"
	"		profil_get_status(&st);\n"
	"	} while (st.samples < 5 && st.cpu_seconds < 20);\n"
	"	profil_stop();\n"
	"	printf(\"%llu samples\\n\", (unsigned long long)st.samples);\n"
	"	return st.samples >= 5 ? 0 : 12;\n"
	"}\n";

static void
test_program_with_our_internal_names_links_statically(void **state)
{
	char src[PATH_MAX], exe[PATH_MAX], cmd[3 * PATH_MAX];
	char *argv[] = { exe, NULL };
	struct run r;
	FILE *f;

	(void)state;
	snprintf(src, sizeof src, "%s", tmp("clash.c"));
	snprintf(exe, sizeof exe, "%s", tmp("clash"));
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(clash_program, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof cmd, "%s %s -I%s/include -o %s %s %s/libprofil.a "
	    "-ldl -lpthread -lz 2>&1", TEST_CC, TEST_SANFLAGS, SRCDIR, exe, src,
	    BUILDDIR);
	if (system(cmd) != 0)
		fail_msg("cannot link against libprofil.a: %s", cmd);
	run(&r, argv);
	if (r.status != 0)
		fail_msg("the program exited %d: %s%s", r.status, r.out, r.err);
	assert_non_null(strstr(r.out, "samples"));
}

static void
test_modules_call_only_down(void **state)
{
	char *argv[] = { "/bin/sh", SRCDIR "/scripts/check-layers.sh",
	    BUILDDIR, NULL };
	struct run r;

	(void)state;
	run(&r, argv);
	if (r.status != 0)
		fail_msg("check-layers.sh: exit %d\n%s%s", r.status, r.out, r.err);
	assert_non_null(strstr(r.out, "layers: ok"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_call_only_down),
		cmocka_unit_test(test_static_library_shows_only_public_names),
		cmocka_unit_test(test_shared_library_shows_only_public_names),
		cmocka_unit_test(test_program_with_our_internal_names_links_statically),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}

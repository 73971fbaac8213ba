/*
 * test-link.c - the library as the linker sees it: its modules call only
 * down the layers of docs/design.md (scripts/check-layers.sh, on the
 * sources and on the built objects), and so do the profil command's
 * rooms (scripts/check-cli-layers.sh), whose check is shown to catch
 * each kind of violation planted in a copy of the tree; both libraries
 * show only the public names (include/profil.h) and the documented
 * interposers; a program with names of its own that are also internal
 * names of ours links statically against libprofil.a and is profiled.
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

/* scripts/NAME on the sources and this build: it passes, saying ok. */
static void
check_passes(const char *name, const char *ok)
{
	char script[PATH_MAX];
	char *argv[] = { "/bin/sh", script, BUILDDIR, NULL };
	struct run r;

	snprintf(script, sizeof script, "%s/scripts/%s", SRCDIR, name);
	run(&r, argv);
	if (r.status != 0)
		fail_msg("%s: exit %d\n%s%s", name, r.status, r.out, r.err);
	assert_non_null(strstr(r.out, ok));
}

static void
test_modules_call_only_down(void **state)
{
	(void)state;
	check_passes("check-layers.sh", "layers: ok");
}

static void
test_cli_rooms_use_only_what_they_stand_on(void **state)
{
	(void)state;
	check_passes("check-cli-layers.sh", "cli layers: ok");
}

/*
 * The command's check, run on a copy of the tree (sources, and with
 * objects the copy of this build's cli objects) where plant, a shell
 * command run in the copy, has planted one violation: it must fail,
 * with a line that holds want.
 */
static void
planted(const char *plant, int objects, const char *want)
{
	char copy[PATH_MAX], cmd[8 * PATH_MAX];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct run r;

	snprintf(copy, sizeof copy, "%s", tmp("tree"));
	if ((size_t)snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/build "
	    "&& cp -R %s/cli %s/lib %s/include %s/scripts %s/ && "
	    "cp -R %s/cli %s/build/ && cd %s && { %s; } && "
	    "sh scripts/check-cli-layers.sh %s", copy, copy, SRCDIR, SRCDIR,
	    SRCDIR, SRCDIR, copy, BUILDDIR, copy, copy, plant,
	    objects ? "build" : "") >= sizeof cmd)
		fail_msg("too long a command to plant '%s'", plant);
	run(&r, argv);
	if (r.status != 1 || strstr(r.out, want) == NULL)
		fail_msg("planted '%s': exit %d, not a line with '%s':\n%s%s",
		    plant, r.status, want, r.out, r.err);
	assert_null(strstr(r.out, "cli layers: ok"));
}

/* an object of a room, compiled from the C text given */
#define PLANT_OBJECT(room, name, text) \
	"printf '" text "\\n' >cli/" room "/" name ".c && " TEST_CC \
	" -c -o build/cli/" room "/" name ".o cli/" room "/" name ".c"

static void
test_cli_layer_check_catches_each_violation(void **state)
{
	(void)state;
	/* a room reaching up, to a room that stands on it */
	planted("echo '#include \"record/wall/wall.h\"' >>cli/record/core/procfs.c",
	    0, "cli/record/core/procfs.c: includes record/wall/wall.h of room "
	    "record/wall, which record/core does not stand on");
	/* across, to a peer */
	planted("echo '#include \"record/perf/perf.h\"' "
	    ">>cli/record/timer/timer-unseen.c", 0,
	    "cli/record/timer/timer-unseen.c: includes record/perf/perf.h of "
	    "room record/perf, which record/timer does not stand on");
	/* across towers: the views to the recorder */
	planted("echo '#include \"record/core/builder.h\"' >>cli/profile/merge.c",
	    0, "cli/profile/merge.c: includes record/core/builder.h of room "
	    "record/core, which profile does not stand on");
	/* the floor to a room */
	planted("echo '#include \"symbols/ksyms.h\"' >>cli/hmap.c", 0,
	    "cli/hmap.c: includes symbols/ksyms.h of room symbols, which floor "
	    "does not stand on");
	/* another room's header without its room, and by ../ */
	planted("echo '#include \"builder.h\"' >>cli/record/jit/jit.c", 0,
	    "cli/record/jit/jit.c: includes builder.h, of no room");
	planted("echo '#include \"../core/builder.h\"' >>cli/record/jit/jit.c",
	    0, "cli/record/jit/jit.c: includes ../core/builder.h: a header is "
	    "named by its room");
	/* a file in no room */
	planted("touch cli/record/stray.c", 0, "cli/record/stray.c: not in a room");
	/* a call up without any include (declared by hand): the objects say */
	planted(PLANT_OBJECT("record/core", "planted",
	    "void wall_free(void *); void planted(void) { wall_free(0); }"), 1,
	    "uses wall_free of room record/wall (cli/record/wall/wall-tables.c), "
	    "which record/core does not stand on");
	/* two files of a room that call each other */
	planted(PLANT_OBJECT("record/jit", "planted_a",
	    "void planted_b(void); void planted_a(void) { planted_b(); }") " && "
	    PLANT_OBJECT("record/jit", "planted_b",
	    "void planted_a(void); void planted_b(void) { planted_a(); }"), 1,
	    "room record/jit: its files call each other in a circle:");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_call_only_down),
		cmocka_unit_test(test_cli_rooms_use_only_what_they_stand_on),
		cmocka_unit_test(test_cli_layer_check_catches_each_violation),
		cmocka_unit_test(test_static_library_shows_only_public_names),
		cmocka_unit_test(test_shared_library_shows_only_public_names),
		cmocka_unit_test(test_program_with_our_internal_names_links_statically),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}

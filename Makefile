# profil - GNU make, non-recursive.  Objects go to $(BUILD).
#   make                  libprofil.so/.a and the example
#   make demo             build, profile the bundled example, show the result
#   make check            every test (SANITIZE=address,undefined or thread)
#   make bench            overhead, record and report tables (bench/README.md)
#   make bench-report     report/export times only (bench/report.py)
#   make bench-budget     record --samples against a fixed rate (bench/budget.py)
#   make fuzz             each fuzz target for FUZZ_SECONDS (clang; fuzz/README.md)
#   make install PREFIX=/usr/local DESTDIR=    (and make uninstall)
#   make deb              Debian packages in build/deb/ (debian/, README)
.SUFFIXES:
.DELETE_ON_ERROR:

ARCH      := $(shell uname -m)
comma     := ,
SANITIZE  ?=
BUILD     ?= build$(if $(SANITIZE),/san-$(subst $(comma),-,$(SANITIZE)))
PREFIX    ?= /usr/local
DESTDIR   ?=
LIBDIR    ?= $(PREFIX)/lib
BINDIR    ?= $(PREFIX)/bin
INCDIR    ?= $(PREFIX)/include
MANDIR    ?= $(PREFIX)/share/man
PCDIR     ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

VERSION   := 0.1.0
SOMAJOR   := 0

CC        ?= cc
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
SANFLAGS  := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
LIBCFLAGS := -std=gnu11 -fPIC -fvisibility=hidden -D_GNU_SOURCE \
             -Iinclude -Ilib -Ilib/arch/$(ARCH) $(WARN) $(SANFLAGS) $(CPPFLAGS) $(CFLAGS)
LIBLDLIBS := -ldl -lpthread -lz

ifeq ($(wildcard lib/arch/$(ARCH)/arch.h),)
$(error profil supports x86_64 for now; lib/arch/$(ARCH)/ does not exist)
endif

# lib/ is in rooms by layer (docs/design.md, "Layers"); the codec room is
# the .prf file API and its byte streams (lib/codec/prf-internal.h)
CODEC_SRC := $(wildcard lib/codec/*.c)
LIB_SRC   := $(wildcard lib/*/*.c)
LIB_ASM   := $(wildcard lib/arch/$(ARCH)/*.S)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(LIB_ASM:%.S=$(BUILD)/%.o)
# The static archive carries the PROFIL_WRAP flavour of the modules that
# stand in front of the C library: the --wrap pthread_create hook, no
# signal veil or close wrappers, and a handler installed with sigaction
# itself (a static link has no RTLD_NEXT: nothing to look past).
WRAPPED    := thread_hook sigveil ownfds handler
WRAPPED_SRC := $(foreach m,$(WRAPPED),$(filter %/$(m).c,$(LIB_SRC)))
WRAPPED_OBJ := $(WRAPPED_SRC:%.c=$(BUILD)/%_wrap.o)
STATIC_OBJ := $(filter-out $(WRAPPED_SRC:%.c=$(BUILD)/%.o),$(LIB_OBJ)) $(WRAPPED_OBJ)
SONAME    := libprofil.so.$(SOMAJOR)
SHLIB     := $(BUILD)/libprofil.so.$(VERSION)
STLIB     := $(BUILD)/libprofil.a
# The static flavour's objects as they are, internal names global, for the
# unit tests that call internal functions.  Never installed.
INTLIB    := $(BUILD)/internal/libprofil.a

all: $(SHLIB) $(STLIB) $(BUILD)/profil $(BUILD)/examples/hotspots $(BUILD)/examples/split \
     $(BUILD)/examples/waits $(BUILD)/bash-completion/profil

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(LIBCFLAGS) -MMD -MP -c -o $@ $<

# The signal veil and the close wrappers stand in front of the C
# library's: a sanitizer's runtime calls them while it starts, before
# instrumented code may run, so they are built without sanitizers.
$(BUILD)/lib/sampler/sigveil.o $(BUILD)/lib/sampler/ownfds.o: LIBCFLAGS := $(filter-out -fsanitize=%,$(LIBCFLAGS))

$(BUILD)/lib/%_wrap.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(LIBCFLAGS) -DPROFIL_WRAP -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(LIBCFLAGS) -c -o $@ $<

$(SHLIB): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,-z,defs $(SANFLAGS) $(LDFLAGS) \
	    -o $@ $^ $(LIBLDLIBS)
	ln -sf libprofil.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libprofil.so

# libprofil.a shows only the public names: each part of the library is
# linked into one relocatable object whose hidden (internal) symbols are
# then made local, so a program's own plan_new or rio_put_u8 cannot clash
# with ours.  Two parts, so a program that only reads profiles does not
# get the sampler and its constructors: the .prf codec, and the rest.
LD        ?= ld
OBJCOPY   ?= objcopy
CODEC_OBJ := $(CODEC_SRC:%.c=$(BUILD)/%.o)
$(BUILD)/static/codec.o: $(CODEC_OBJ)
$(BUILD)/static/sampler.o: $(filter-out $(CODEC_OBJ),$(STATIC_OBJ))
$(BUILD)/static/%.o:
	@mkdir -p $(@D)
	$(LD) -r -o $@ $^
	$(OBJCOPY) --localize-hidden $@

$(STLIB): $(BUILD)/static/sampler.o $(BUILD)/static/codec.o
	rm -f $@
	ar rcs $@ $^

$(INTLIB): $(STATIC_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^


# ---- the profil command: links libprofil statically, with its internals ----
CLI_SRC   := $(wildcard cli/*.c cli/*/*.c cli/*/*/*.c)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)
CLICFLAGS := -std=gnu11 -D_GNU_SOURCE -Iinclude -Ilib -Ilib/arch/$(ARCH) -Icli $(WARN) \
             $(SANFLAGS) $(CPPFLAGS) $(CFLAGS)

$(BUILD)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CLICFLAGS) -MMD -MP -c -o $@ $<

# elfutils, and what libdw.a needs, go into profil itself: loading the
# shared libdw, libelf, liblzma and libbz2 at every start and resolving
# their symbols was 1.1-1.5 ms of each `profil record` here, a tenth of
# what recording /bin/true costs (README, "Dependencies").  LIBDW=shared
# links them as shared libraries, as a distribution would.
LIBDW     ?= static
ifeq ($(LIBDW),static)
DWLIBS    := -Wl,-Bstatic -ldw -lelf -lbz2 -llzma -lz -Wl,-Bdynamic
else
DWLIBS    := -ldw -lelf -lz
endif

# Internal names of the library the command uses, linked in as their
# objects are, since libprofil.a makes them local: the tree of distinct
# stacks the recorder's builder shares with the codec (one copy,
# lib/codec/stacktree.c), and the atomic file writer, rio_file
# (cli/outfile.c).
CLI_LIBOBJ := $(BUILD)/lib/codec/stacktree.o $(BUILD)/lib/codec/rio-file.o

$(BUILD)/profil: $(CLI_OBJ) $(CLI_LIBOBJ) $(STLIB)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(CLI_LIBOBJ) $(STLIB) $(DWLIBS) -ldl -lpthread -lm

# The timer engine injects libprofil.so.0 into the programs it runs, found
# beside the command (this build), in LIBDIR (installed: Debian's is
# /usr/lib/x86_64-linux-gnu, not ../lib), or in ../lib.  LIBDIR is
# compiled in, and compiled again when it changes (make install LIBDIR=).
$(BUILD)/libdir: FORCE
	@mkdir -p $(@D)
	@echo '$(LIBDIR)' | cmp -s - $@ || echo '$(LIBDIR)' >$@
$(BUILD)/cli/record/timer/timer.o: $(BUILD)/libdir
$(BUILD)/cli/record/timer/timer.o: CLICFLAGS += -DPROFIL_LIBDIR='"$(LIBDIR)"'

# bash's completion, written by the command from its options' tables
$(BUILD)/bash-completion/profil: $(BUILD)/profil
	@mkdir -p $(@D)
	$(BUILD)/profil --bash-completion >$@

# ---- programs linked against the shared library ---------------------------
PROGCFLAGS := -std=gnu11 -D_GNU_SOURCE -Iinclude $(WARN) $(SANFLAGS) $(CPPFLAGS) $(CFLAGS)
PROGLDLIBS := -L$(BUILD) -Wl,-rpath,'$$ORIGIN/..' -lprofil -ldl -lpthread -lm

# split and waits are plain programs: nothing of ours linked in
$(BUILD)/examples/split: examples/split.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -o $@ $<
$(BUILD)/examples/waits: examples/waits.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -o $@ $< -lpthread

$(BUILD)/examples/%: examples/%.c $(SHLIB)
	@mkdir -p $(@D)
	$(CC) $(PROGCFLAGS) -rdynamic -o $@ $< $(PROGLDLIBS)

# The main job on a bundled example: record a program, report on it.
demo: deps-demo all
	$(BUILD)/profil record -o $(BUILD)/split.prf $(BUILD)/examples/split 60
	$(BUILD)/profil report $(BUILD)/split.prf
	$(BUILD)/profil report --tree $(BUILD)/split.prf
	$(BUILD)/profil record --wall -o $(BUILD)/waits.prf $(BUILD)/examples/waits
	$(BUILD)/profil report --tree --min-percent 5 $(BUILD)/waits.prf

# ---- tests -----------------------------------------------------------------
# tests/ in rooms by what they test (docs/design.md, "tests/"): unit/ (a
# module alone), lib/ (the library's calls), e2e/ (the command on real
# programs), adversarial/ (programs that fight the profiler); the programs
# they run in programs/, what they share in harness/.  Every test and
# program is built into $(BUILD)/tests/, whatever its room: the tests find
# the command and their programs beside themselves.
TEST_ROOMS := unit lib e2e adversarial
TEST_SRC   := $(foreach r,$(TEST_ROOMS),$(wildcard tests/$(r)/test-*.c))
TEST_BIN   := $(patsubst %.c,$(BUILD)/tests/%,$(notdir $(TEST_SRC)))
TEST_HELP  := $(wildcard tests/programs/helper-*.c)
TEST_HBIN  := $(TEST_HELP:tests/programs/%.c=$(BUILD)/tests/%)
HARNESS    := tests/harness/harness.c tests/harness/e2e.c
# Unit tests reach internal functions through the internal archive (the
# harness reads profiles: the codec's members it pulls in need zlib).
TESTCFLAGS := $(PROGCFLAGS) -Ilib -Ilib/arch/$(ARCH) -Itests/harness

# a test of any room: its source, the harness, the libraries
define TEST_ROOM_RULE
$$(BUILD)/tests/test-%: tests/$(1)/test-%.c $$(HARNESS) tests/harness/harness.h \
    tests/harness/e2e.h $$(SHLIB) $$(STLIB) $$(INTLIB)
	@mkdir -p $$(@D)
	$$(CC) $$(TESTCFLAGS) -o $$@ $$< $$(HARNESS) \
	    $$(if $$(filter bins mappings pcmap plan,$$*),$$(INTLIB) -lz) \
	    -L$$(BUILD) -Wl,-rpath,'$$$$ORIGIN/..' -lprofil -lcmocka -ldl -lpthread -lm $$(EXTRA_LIBS)
endef
$(foreach r,$(TEST_ROOMS),$(eval $(call TEST_ROOM_RULE,$(r))))

# test-link checks the sources and this build's objects, the library's
# and the command's
$(BUILD)/tests/test-link: scripts/check-layers.sh scripts/check-cli-layers.sh \
    $(LIB_OBJ) $(CLI_OBJ)
$(BUILD)/tests/test-link: TESTCFLAGS += -DSRCDIR='"$(CURDIR)"' \
    -DBUILDDIR='"$(CURDIR)/$(BUILD)"' -DTEST_CC='"$(CC)"' \
    -DTEST_SANFLAGS='"$(SANFLAGS)"'

# test-elfcache compiles the cache itself (#include)
$(BUILD)/tests/test-elfcache: cli/record/core/elfcache.c cli/record/core/elfcache.h cli/util.c
$(BUILD)/tests/test-elfcache: TESTCFLAGS += -Icli
$(BUILD)/tests/test-elfcache: EXTRA_LIBS := -lelf

# test-stackmemo compiles the stack memo itself (#include)
$(BUILD)/tests/test-stackmemo: cli/record/unwind/stackmemo.c cli/record/unwind/stackmemo.h \
    cli/record/unwind/cfirules.h cli/hmap.c cli/util.c
$(BUILD)/tests/test-stackmemo: TESTCFLAGS += -Icli

# test-kerneltime compiles the kernel time module itself (#include)
$(BUILD)/tests/test-kerneltime: cli/record/wall/kernel-time.c \
    cli/record/wall/kernel-time.h cli/hmap.c cli/util.c
$(BUILD)/tests/test-kerneltime: TESTCFLAGS += -Icli

# test-timeline compiles the recorder's timeline itself (#include)
$(BUILD)/tests/test-timeline: cli/record/core/timeline.c \
    cli/record/core/timeline.h cli/hmap.c cli/util.c
$(BUILD)/tests/test-timeline: TESTCFLAGS += -Icli

# test-sample compiles the sample sink itself (#include), its callees
# stubbed
$(BUILD)/tests/test-sample: cli/record/sink/sample.c cli/record/sink/sample.h
$(BUILD)/tests/test-sample: TESTCFLAGS += -Icli

# test-addrspace compiles the mappings module itself (#include)
$(BUILD)/tests/test-addrspace: cli/record/core/addrspace.c cli/record/core/addrspace.h \
    cli/util.c
$(BUILD)/tests/test-addrspace: TESTCFLAGS += -Icli

# test-perfmap and test-jitdump compile the perf map and jitdump readers
# (and the unwind tables' images) themselves (#include); test-jitfollow
# the same readers' followers, as untrusted files go
JITFILE_TESTS := $(BUILD)/tests/test-perfmap $(BUILD)/tests/test-jitdump \
    $(BUILD)/tests/test-jitfollow
$(JITFILE_TESTS): cli/record/jit/jitfile.c cli/record/jit/jitfile.h \
    tests/harness/jit-bytes.h cli/util.c
$(JITFILE_TESTS): TESTCFLAGS += -Icli
$(BUILD)/tests/test-perfmap $(BUILD)/tests/test-jitfollow: \
    cli/record/jit/perfmap.c cli/record/jit/perfmap.h
$(BUILD)/tests/test-jitdump $(BUILD)/tests/test-jitfollow: \
    cli/record/jit/jitdump.c cli/record/jit/jitdump-follow.c \
    cli/record/jit/jitdump.h
$(BUILD)/tests/test-jitdump: cli/record/jit/jit-tables.c \
    cli/record/jit/jit-tables.h tests/programs/jit-eh.h
$(BUILD)/tests/test-jitdump: EXTRA_LIBS := -ldw -lelf

# the tests of generated code share their checks (tests/harness/jit-checks.h)
JIT_TESTS := $(BUILD)/tests/test-jit $(BUILD)/tests/test-jitlate
$(JIT_TESTS): tests/harness/jit-checks.c tests/harness/jit-checks.h
$(JIT_TESTS): HARNESS += tests/harness/jit-checks.c

# the tests of the flame graph read its data off the page
# (tests/harness/flame-checks.h)
FLAME_TESTS := $(BUILD)/tests/test-flame $(BUILD)/tests/test-flamebrowser
$(FLAME_TESTS): tests/harness/flame-checks.c tests/harness/flame-checks.h
$(FLAME_TESTS): HARNESS += tests/harness/flame-checks.c

# test-htmltime makes profiles of known timelines (tests/harness/profiles.h,
# with the command's allocation) and reads the page's flame graph data
# (tests/harness/flame-checks.h)
$(BUILD)/tests/test-htmltime: tests/harness/profiles.c \
    tests/harness/profiles.h tests/harness/flame-checks.c \
    tests/harness/flame-checks.h cli/util.c
$(BUILD)/tests/test-htmltime: HARNESS += tests/harness/profiles.c \
    tests/harness/flame-checks.c cli/util.c
$(BUILD)/tests/test-htmltime: TESTCFLAGS += -Icli
# the tests of profil top drive a terminal and read its screen
# (tests/harness/top-checks.h)
$(BUILD)/tests/test-top: tests/harness/top-checks.c tests/harness/top-checks.h
$(BUILD)/tests/test-top: HARNESS += tests/harness/top-checks.c

# the tests of a share's error read the views' CSV as a table
# (tests/harness/csv-table.h)
SHARE_TESTS := $(BUILD)/tests/test-share $(BUILD)/tests/test-sharerecorded
$(SHARE_TESTS): tests/harness/csv-table.c tests/harness/csv-table.h
$(SHARE_TESTS): HARNESS += tests/harness/csv-table.c

# the tests of the .prf codec share a profile of known contents
# (tests/harness/prf-checks.h)
PRF_TESTS := $(BUILD)/tests/test-prf $(BUILD)/tests/test-prfrecords \
    $(BUILD)/tests/test-prftimeline
$(PRF_TESTS): tests/harness/prf-checks.c tests/harness/prf-checks.h
$(PRF_TESTS): HARNESS += tests/harness/prf-checks.c

# test-record and test-launch check workload's known split
# (tests/harness/split-checks.h)
SPLIT_TESTS := $(BUILD)/tests/test-record $(BUILD)/tests/test-launch
$(SPLIT_TESTS): tests/harness/split-checks.c tests/harness/split-checks.h
$(SPLIT_TESTS): HARNESS += tests/harness/split-checks.c

# the tests of export share the pprof decoder's driving and reading
# (tests/harness/export-checks.h)
EXPORT_TESTS := $(BUILD)/tests/test-pprof $(BUILD)/tests/test-export \
    $(BUILD)/tests/test-exportwall $(BUILD)/tests/test-speedscope
$(EXPORT_TESTS): tests/harness/export-checks.c tests/harness/export-checks.h
$(EXPORT_TESTS): HARNESS += tests/harness/export-checks.c

# the tests of names kept away from their files share a program rebuilt
# since it was recorded (tests/harness/rebuilt.h)
REBUILT_TESTS := $(BUILD)/tests/test-names $(BUILD)/tests/test-archive
$(REBUILT_TESTS): tests/harness/rebuilt.c tests/harness/rebuilt.h
$(REBUILT_TESTS): HARNESS += tests/harness/rebuilt.c

# test-completion runs bash's completion the command wrote
$(BUILD)/tests/test-completion: $(BUILD)/bash-completion/profil

# test-sorted checks the sorted-table lookup header (cli/sorted.h)
$(BUILD)/tests/test-sorted: cli/sorted.h
$(BUILD)/tests/test-sorted: TESTCFLAGS += -Icli

# test-table compiles the table printer itself (#include)
$(BUILD)/tests/test-table: cli/report/table.c cli/report/table.h \
    cli/json.c cli/json.h cli/util.c
$(BUILD)/tests/test-table: TESTCFLAGS += -Icli -Icli/report

# test-wallview compiles the wall view and the profile copy itself (#include)
$(BUILD)/tests/test-wallview: cli/profile/wall-view.c cli/profile/wall-view.h \
    cli/profile/copy.c cli/profile/copy.h cli/hmap.c cli/symbols/offcpu.c \
    cli/util.c
$(BUILD)/tests/test-wallview: TESTCFLAGS += -Icli -Icli/profile

# test-window compiles the window module and the profile copy itself
# (#include), on profiles made as merge's tests make them
# (tests/harness/profiles.h)
$(BUILD)/tests/test-window: cli/profile/window.c cli/profile/window-parse.c \
    cli/profile/window.h cli/profile/copy.c cli/profile/copy.h cli/hmap.c \
    cli/util.c tests/harness/profiles.c tests/harness/profiles.h
$(BUILD)/tests/test-window: HARNESS += tests/harness/profiles.c
$(BUILD)/tests/test-window: TESTCFLAGS += -Icli -Icli/profile

# merge's tests compile the merge module itself (#include)
MERGE_TESTS := $(BUILD)/tests/test-mergeprofiles \
    $(BUILD)/tests/test-mergetimeline
$(MERGE_TESTS): cli/profile/merge.c cli/profile/merge.h \
    cli/profile/merge-stacks.c cli/profile/merge-stacks.h \
    cli/profile/merge-timeline.c cli/profile/merge-timeline.h \
    cli/profile/merge-jit.c cli/profile/merge-jit.h \
    cli/profile/merge-lines.c cli/profile/merge-lines.h \
    cli/profile/merge-objects.c cli/profile/merge-kernel.c \
    cli/profile/merge-internal.h cli/util.c
$(MERGE_TESTS): TESTCFLAGS += -Icli
# merge's and diff's tests make profiles (tests/harness/profiles.h) with
# the command's allocation; test-diff works diff's figures out again
# (tests/harness/diff-checks.h)
MADE_TESTS := $(MERGE_TESTS) $(BUILD)/tests/test-diff \
    $(BUILD)/tests/test-speedscope
$(MADE_TESTS): tests/harness/profiles.c tests/harness/profiles.h
$(MADE_TESTS): HARNESS += tests/harness/profiles.c
$(BUILD)/tests/test-diff: tests/harness/diff-checks.c tests/harness/diff-checks.h
$(BUILD)/tests/test-diff: HARNESS += tests/harness/diff-checks.c
# test-merge, test-diff and test-speedscope allocate as the command does
# (cli/util.c); test-speedscope reads report's CSV (tests/harness/csv-table.h)
CLIALLOC_TESTS := $(BUILD)/tests/test-merge $(BUILD)/tests/test-diff \
    $(BUILD)/tests/test-speedscope
$(CLIALLOC_TESTS): cli/util.c
$(CLIALLOC_TESTS): HARNESS += cli/util.c
$(CLIALLOC_TESTS): TESTCFLAGS += -Icli
$(BUILD)/tests/test-speedscope: tests/harness/csv-table.c \
    tests/harness/csv-table.h
$(BUILD)/tests/test-speedscope: HARNESS += tests/harness/csv-table.c

# test-time makes profiles of known timelines (tests/harness/profiles.h)
# with the command's allocation, reads the views' CSV as a table
# (tests/harness/csv-table.h) and pprof by the decoder
# (tests/harness/export-checks.h)
$(BUILD)/tests/test-time: tests/harness/profiles.c tests/harness/profiles.h \
    tests/harness/csv-table.c tests/harness/csv-table.h \
    tests/harness/export-checks.c tests/harness/export-checks.h cli/util.c
$(BUILD)/tests/test-time: HARNESS += tests/harness/profiles.c \
    tests/harness/csv-table.c tests/harness/export-checks.c cli/util.c
$(BUILD)/tests/test-time: TESTCFLAGS += -Icli
# test-timephases reads the views of windows as tables (csv-table.h)
$(BUILD)/tests/test-timephases: tests/harness/csv-table.c \
    tests/harness/csv-table.h
$(BUILD)/tests/test-timephases: HARNESS += tests/harness/csv-table.c
# the tests of report --timeline make profiles of known timelines
# (tests/harness/timelines.h, on profiles.h) with the command's allocation
# and read the view's CSV as a table
TIMELINE_TESTS := $(BUILD)/tests/test-timelineview $(BUILD)/tests/test-phases
$(TIMELINE_TESTS): tests/harness/profiles.c tests/harness/profiles.h \
    tests/harness/timelines.c tests/harness/timelines.h \
    tests/harness/csv-table.c tests/harness/csv-table.h cli/util.c
$(TIMELINE_TESTS): HARNESS += tests/harness/profiles.c \
    tests/harness/timelines.c tests/harness/csv-table.c cli/util.c
$(TIMELINE_TESTS): TESTCFLAGS += -Icli

$(BUILD)/tests/helper-%: tests/programs/helper-%.c $(SHLIB)
	@mkdir -p $(@D)
	$(CC) $(PROGCFLAGS) -o $@ $< $(PROGLDLIBS)

# The profiled programs of the end-to-end tests: plain, nothing of ours.
$(BUILD)/tests/workload: tests/programs/workload.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -o $@ $< -lm -lpthread
$(BUILD)/tests/workload-static: tests/programs/workload.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -static -o $@ $< -lm -lpthread
WORKLOADS := $(BUILD)/tests/workload $(BUILD)/tests/workload-static
# C++ names, a marked hot line and vDSO time for the report tests
$(BUILD)/tests/cxx-workload: tests/programs/cxx-workload.cc
	@mkdir -p $(@D)
	$(CXX) -O2 -g -o $@ $<
WORKLOADS += $(BUILD)/tests/cxx-workload
# Programs that make a profiler's life hard, and the two libraries one of
# them dlopen's in turn (the same code, so they land at the same address)
$(BUILD)/tests/adversary: tests/programs/adversary.c
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -o $@ $< -ldl -lpthread
$(BUILD)/tests/adversary-lib%.so: tests/programs/adversary-lib.c
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -shared -fPIC -DADV_LIB_BURN=$*_burn -o $@ $<
WORKLOADS += $(BUILD)/tests/adversary $(BUILD)/tests/adversary-liba.so \
             $(BUILD)/tests/adversary-libb.so
# A program that writes over the memory the timer engine shares with it:
# plain, but built against the region's layout headers, to aim at it
$(BUILD)/tests/adversary-region: tests/programs/adversary-region.c \
    lib/agent/agent.h lib/sampler/stackring.h
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -Ilib -Ilib/arch/$(ARCH) -o $@ $<
WORKLOADS += $(BUILD)/tests/adversary-region
# Time off the CPU known to the program (record --wall): built with frame
# pointers and without, as the off-CPU stacks are unwound both ways
$(BUILD)/tests/wall-workload: tests/programs/wall-workload.c \
    tests/programs/thread-age.h
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -o $@ $< -lpthread
$(BUILD)/tests/wall-workload-fp: tests/programs/wall-workload.c \
    tests/programs/thread-age.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -fno-omit-frame-pointer $(WARN) -o $@ $< -lpthread
WORKLOADS += $(BUILD)/tests/wall-workload $(BUILD)/tests/wall-workload-fp
# Known phases in time, said by the program's own clock (the timeline)
$(BUILD)/tests/phases: tests/programs/phases.c tests/programs/thread-age.h
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -o $@ $< -lpthread
WORKLOADS += $(BUILD)/tests/phases
# Code generated at run time and named by a perf map or a jitdump file
# (issue 18): built without frame pointers, its generated code has them
$(BUILD)/tests/jit-workload: tests/programs/jit-workload.c \
    tests/programs/jit-eh.h
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -o $@ $<
WORKLOADS += $(BUILD)/tests/jit-workload

# Under sanitizers, the library the timer engine injects into (plain) test
# programs is the plain build: a sanitized one cannot load there.  The
# recorder and every test program are still sanitized.
ifneq ($(SANITIZE),)
INJECTED  := build/libprofil.so.$(VERSION)
$(INJECTED): $(LIB_SRC) $(LIB_ASM)
	$(MAKE) --no-print-directory SANITIZE= BUILD=build $@
endif

# PROFIL_TEST_SANITIZED: the sanitized recorder drains its rings several
# times slower (libdw's allocations under ASan), so the tests copy 8 KiB
# of stack with each sample, not 16, and those of flat shares none, and lost
# samples are held to their being counted.
# The programs the tests run besides themselves (a package build names
# the tests it runs: debian/rules)
test-programs: all $(TEST_HBIN) $(WORKLOADS) $(INJECTED)

check: deps-check test-programs $(TEST_BIN)
	$(if $(INJECTED),PROFIL_LIBRARY=$(CURDIR)/$(INJECTED)) \
	    $(if $(SANITIZE),PROFIL_TEST_SANITIZED=1) \
	    BUILD=$(BUILD) sh tests/run-tests.sh $(TEST_BIN) $(FUZZ_REPLAY)

# ---- fuzzing (fuzz/README.md) ------------------------------------------------
# make fuzz [FUZZ_SECONDS=60]: each libFuzzer target (clang) for FUZZ_SECONDS
# from its seeds in tests/corpus/NAME/; new inputs go to build/fuzz/corpus-new/
# and crashes to build/fuzz/crashes/ (absolute paths: a target may change
# its working directory).  make fuzz-replay: every corpus file
# through the libFuzzer binaries.  make check replays the corpus too, through
# $(BUILD)/tests/replay-NAME (gcc, cmocka: no clang needed).
FUZZ_TARGETS := prf elf report options maps perfmap jitdump procfs ksyms region \
                perfrec
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build/fuzz
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := -std=gnu11 -D_GNU_SOURCE -Iinclude -Ilib -Ilib/arch/$(ARCH) -Icli -Ifuzz $(WARN) \
                -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN)
# the .prf codec, and the command's code that reads profiles, ELF files,
# /proc and the engines' records (perf-records.c and perf-procs.c: the
# perf engine's records applied; not its events, rings or runs)
FUZZ_SRC     := $(CODEC_SRC) $(filter-out cli/profil.c cli/cmd-%.c \
                cli/record/perf/perf.c cli/record/perf/perf-attach.c \
                cli/record/perf/perf-drain.c cli/record/perf/perf-engine.c \
                cli/record/perf/perf-events.c cli/record/timer/timer.c \
                cli/record/core/launch.c,$(CLI_SRC))
FUZZ_OBJ     := $(FUZZ_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_LDLIBS  := -ldw -lelf -lz -lm -ldl
# the options target runs the subcommands themselves: all of the command
# but its main, and the library (pthread_create hook in --wrap form)
FUZZ_OPT_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out cli/profil.c,$(CLI_SRC)) \
                $(filter-out $(WRAPPED_SRC),$(LIB_SRC))) \
                $(WRAPPED_SRC:%.c=$(FUZZ_BUILD)/%_wrap.o) $(LIB_ASM:%.S=$(FUZZ_BUILD)/%.o)
FUZZ_BIN     := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)
FUZZ_REPLAY  := $(FUZZ_TARGETS:%=$(BUILD)/tests/replay-%)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/fuzz-%: $(FUZZ_BUILD)/fuzz/fuzz-%.o $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LDLIBS)

$(FUZZ_BUILD)/lib/%_wrap.o: lib/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Ilib/arch/$(ARCH) -fsanitize=fuzzer-no-link \
	    -DPROFIL_WRAP -c -o $@ $<
$(FUZZ_BUILD)/%.o: %.S
	@mkdir -p $(@D)
	$(FUZZ_CC) -Ilib -Ilib/arch/$(ARCH) -c -o $@ $<
$(FUZZ_BUILD)/fuzz-options: $(FUZZ_BUILD)/fuzz/fuzz-options.o $(FUZZ_OPT_OBJ)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LDLIBS) -ldl -lpthread

fuzz: $(FUZZ_BIN)
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_BUILD)/corpus-new/$$t $(FUZZ_BUILD)/crashes/$$t; \
	    echo "== fuzz-$$t for $(FUZZ_SECONDS) s"; \
	    $(CURDIR)/$(FUZZ_BUILD)/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
	        -rss_limit_mb=2048 -print_final_stats=1 \
	        $$(test -f fuzz/$$t.dict && echo -dict=$(CURDIR)/fuzz/$$t.dict) \
	        -artifact_prefix=$(CURDIR)/$(FUZZ_BUILD)/crashes/$$t/ \
	        $(CURDIR)/$(FUZZ_BUILD)/corpus-new/$$t $(CURDIR)/tests/corpus/$$t \
	        >$(FUZZ_BUILD)/fuzz-$$t.log 2>&1 || \
	        { tail -60 $(FUZZ_BUILD)/fuzz-$$t.log; exit 1; }; \
	    grep -E '^stat::(number_of_executed_units|peak_rss_mb)' \
	        $(FUZZ_BUILD)/fuzz-$$t.log; \
	done

fuzz-replay: $(FUZZ_BIN)
	@for t in $(FUZZ_TARGETS); do \
	    echo "== fuzz-$$t: tests/corpus/$$t"; \
	    $(CURDIR)/$(FUZZ_BUILD)/fuzz-$$t $(CURDIR)/tests/corpus/$$t/* >$(FUZZ_BUILD)/replay-$$t.log \
	        2>&1 || { tail -60 $(FUZZ_BUILD)/replay-$$t.log; exit 1; }; \
	done

# The replay of `make check`: the targets built like the tests.
$(BUILD)/tests/replay-%: fuzz/fuzz-%.c fuzz/replay.c fuzz/fuzz.h \
    $(CODEC_OBJ) $(filter $(BUILD)/cli/%,$(FUZZ_SRC:%.c=$(BUILD)/%.o))
	@mkdir -p $(@D)
	$(CC) $(CLICFLAGS) -Ifuzz -DREPLAY_CORPUS='"$(CURDIR)/tests/corpus/$*"' \
	    -o $@ fuzz/fuzz-$*.c fuzz/replay.c $(filter %.o,$^) \
	    -lcmocka $(FUZZ_LDLIBS)
$(BUILD)/tests/replay-options: fuzz/fuzz-options.c fuzz/replay.c fuzz/fuzz.h \
    $(filter-out $(BUILD)/cli/profil.o,$(CLI_OBJ)) $(CLI_LIBOBJ) $(STLIB)
	@mkdir -p $(@D)
	$(CC) $(CLICFLAGS) -Ifuzz -DREPLAY_CORPUS='"$(CURDIR)/tests/corpus/options"' \
	    -o $@ fuzz/fuzz-options.c fuzz/replay.c $(filter %.o,$^) $(STLIB) \
	    -lcmocka $(FUZZ_LDLIBS) -ldl -lpthread
check: $(FUZZ_REPLAY)
.SECONDARY: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/fuzz-%.o)

# ---- bench -----------------------------------------------------------------
$(BUILD)/bench/%: bench/%.c $(SHLIB)
	@mkdir -p $(@D)
	$(CC) $(PROGCFLAGS) -o $@ $< $(PROGLDLIBS)

# report/export times against perf report and gprof; the big program is
# bench/gen-big.py's 50,000 functions (it builds big and big-pg together)
BENCH_REPORT := $(BUILD)/tests/workload $(BUILD)/bench/workload-pg \
                $(BUILD)/bench/big/big
$(BUILD)/bench/workload-pg: tests/programs/workload.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -pg -o $@ $< -lm -lpthread
$(BUILD)/bench/big/big: bench/gen-big.py
	python3 bench/gen-big.py $(@D)

bench: all $(BUILD)/bench/overhead $(BENCH_REPORT) $(BUILD)/tests/cxx-workload \
       $(BUILD)/tests/helper-noperf $(BUILD)/bench/bare-sampler \
       $(BUILD)/bench/pingpong $(BUILD)/bench/parked
	$(BUILD)/bench/overhead
	python3 bench/record.py $(BUILD)
	python3 bench/report.py $(BUILD)
	python3 bench/stacks.py $(BUILD)
	python3 bench/engines.py $(BUILD)
	python3 bench/pingpong.py $(BUILD)
	python3 bench/wall.py $(BUILD)
bench-stacks: all $(BENCH_REPORT) $(BUILD)/tests/cxx-workload $(BUILD)/bench/bare-sampler
	python3 bench/stacks.py $(BUILD)
bench-report: all $(BENCH_REPORT)
	python3 bench/report.py $(BUILD)
bench-engines: all $(BUILD)/tests/workload $(BUILD)/tests/helper-noperf $(BUILD)/bench/bare-sampler
	python3 bench/engines.py $(BUILD)
# a context switch every few microseconds: what each profiler leaves of
# its speed (bench/pingpong.py); the program is plain, nothing of ours
$(BUILD)/bench/pingpong: bench/pingpong.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -o $@ $< -lpthread
bench-pingpong: all $(BUILD)/bench/pingpong $(BUILD)/tests/helper-noperf
	python3 bench/pingpong.py $(BUILD)
# record --wall against the CPU profile: CPU-bound, 1,000 parked threads,
# ping-pong (bench/wall.py)
$(BUILD)/bench/parked: bench/parked.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -o $@ $< -lpthread
bench-wall: all $(BUILD)/bench/parked $(BUILD)/bench/pingpong
	python3 bench/wall.py $(BUILD)
# a Node.js program through V8's perf map and jitdump: profil's engines
# against perf record -g, cost and split (~3 minutes; needs node)
bench-jit: all
	python3 bench/jit.py $(BUILD)
# the timeline's file and cost on a steady program (bench/timeline.py);
# bench-timeline-long: a 10-minute 8-thread run beside perf record's file
$(BUILD)/bench/manystacks: bench/manystacks.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -o $@ $< -lpthread
bench-timeline: all $(BUILD)/tests/workload
	python3 bench/timeline.py $(BUILD)
bench-timeline-long: all $(BUILD)/bench/manystacks
	python3 bench/timeline.py --long 10 $(BUILD)
# --samples against 1 kHz on 30 ms, 2 s and 60 s programs (~12 minutes)
bench-budget: all $(BUILD)/tests/workload
	python3 bench/budget.py $(BUILD)

# ---- dependencies on a fresh machine -----------------------------------------
deps-demo:
	@sh scripts/deps.sh build
deps-check:
	@sh scripts/deps.sh check

deps-deb:
	@sh scripts/deps.sh deb

# ---- install -----------------------------------------------------------------
# What make install puts where, for make uninstall too; the Debian
# packages hold the same files (tests/install-files.sh compares them).
# profil(3) is installed as profil(3profil), as libbsd's pages are 3bsd:
# glibc's profil(3) (manpages-dev) has the name in section 3.
INSTALLED := $(BINDIR)/profil $(LIBDIR)/libprofil.so.$(VERSION) $(LIBDIR)/$(SONAME) \
    $(LIBDIR)/libprofil.so $(LIBDIR)/libprofil.a $(INCDIR)/profil.h $(PCDIR)/profil.pc \
    $(MANDIR)/man1/profil.1 $(MANDIR)/man3/profil.3profil $(MANDIR)/man5/profil.5 \
    $(BASHCOMPDIR)/profil
# The library directories the dynamic linker searches anyway: profil.pc
# adds no rpath for those (a package's programs would carry it)
MULTIARCH  = $(shell $(CC) -print-multiarch 2>/dev/null)
SYSLIBDIRS = /lib /usr/lib $(if $(MULTIARCH),/lib/$(MULTIARCH) /usr/lib/$(MULTIARCH))
PC_RPATH   = $(if $(filter $(LIBDIR),$(SYSLIBDIRS)),, -Wl$(comma)-rpath$(comma)$${libdir})

install: $(SHLIB) $(STLIB) $(BUILD)/profil $(BUILD)/bash-completion/profil
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PCDIR) \
	    $(DESTDIR)$(INCDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(BUILD)/profil $(DESTDIR)$(BINDIR)/
	install -m 644 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libprofil.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libprofil.so
	install -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 include/profil.h $(DESTDIR)$(INCDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@RPATH@|$(PC_RPATH)|' \
	    profil.pc.in >$(DESTDIR)$(PCDIR)/profil.pc
	chmod 644 $(DESTDIR)$(PCDIR)/profil.pc
	install -m 644 man/profil.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/profil.3 $(DESTDIR)$(MANDIR)/man3/profil.3profil
	install -m 644 man/profil.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 $(BUILD)/bash-completion/profil $(DESTDIR)$(BASHCOMPDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# ---- Debian packages ---------------------------------------------------------
# make deb: profil, libprofil0 and libprofil-dev, built by dpkg-buildpackage
# in a copy of this tree (build/deb/profil-VERSION; the packages land in
# build/deb/), running the tests debian/rules names; then lintian, which
# must find nothing to say, and the packages' files against make install's.
DEB_DIR := build/deb
DEB_SRC := $(DEB_DIR)/profil-$(VERSION)
deb: deps-deb
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	tar -cf - --exclude=./build --exclude=./.git --exclude=node_modules . | \
	    tar -xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b -J
	lintian --fail-on error,warning $(DEB_DIR)/*.changes
	cd $(DEB_SRC) && sh tests/install-files.sh ../profil_*.deb \
	    ../libprofil0_*.deb ../libprofil-dev_*.deb

clean:
	rm -rf build

FORCE:
.PHONY: all demo check bench bench-report bench-stacks bench-engines bench-budget bench-pingpong bench-wall bench-jit install uninstall deb test-programs clean deps-demo deps-check deps-deb fuzz fuzz-replay FORCE
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) \
    $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/fuzz-%.d)

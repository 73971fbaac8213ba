# profil - GNU make, non-recursive.  Objects go to $(BUILD).
#   make                  libprofil.so/.a and the example
#   make demo             build, profile the bundled example, show the result
#   make check            every test (SANITIZE=address,undefined or thread)
#   make bench            overhead table (bench/README.md)
#   make install PREFIX=/usr/local DESTDIR=
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

VERSION   := 0.1.0
SOMAJOR   := 0

CC        ?= cc
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
SANFLAGS  := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
LIBCFLAGS := -std=gnu11 -fPIC -fvisibility=hidden -D_GNU_SOURCE \
             -Iinclude -Ilib -Ilib/arch/$(ARCH) $(WARN) $(SANFLAGS) $(CFLAGS)
LIBLDLIBS := -ldl -lpthread -lz

ifeq ($(wildcard lib/arch/$(ARCH)/arch.h),)
$(error profil supports x86_64 for now; lib/arch/$(ARCH)/ does not exist)
endif

LIB_SRC   := lib/agent.c lib/api.c lib/bins.c lib/fault.c lib/handler.c lib/plan.c lib/prf.c \
             lib/profil.c lib/rio.c lib/session.c lib/sprofil.c lib/thread_clock.c \
             lib/thread_hook.c lib/threads.c
LIB_ASM   := $(wildcard lib/arch/$(ARCH)/*.S)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(LIB_ASM:%.S=$(BUILD)/%.o)
# The static archive carries the --wrap flavour of the pthread_create hook.
STATIC_OBJ := $(filter-out $(BUILD)/lib/thread_hook.o,$(LIB_OBJ)) \
              $(BUILD)/lib/thread_hook_wrap.o
SONAME    := libprofil.so.$(SOMAJOR)
SHLIB     := $(BUILD)/libprofil.so.$(VERSION)
STLIB     := $(BUILD)/libprofil.a

all: $(SHLIB) $(STLIB) $(BUILD)/profil $(BUILD)/examples/hotspots $(BUILD)/examples/split

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(LIBCFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/lib/thread_hook_wrap.o: lib/thread_hook.c
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

$(STLIB): $(STATIC_OBJ)
	rm -f $@
	ar rcs $@ $^


# ---- the profil command: links libprofil statically, with its internals ----
CLI_SRC   := $(wildcard cli/*.c)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)
CLICFLAGS := -std=gnu11 -D_GNU_SOURCE -Iinclude -Ilib -Icli $(WARN) $(SANFLAGS) $(CFLAGS)

$(BUILD)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CLICFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/profil: $(CLI_OBJ) $(STLIB)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(STLIB) -ldw -lelf -lz -ldl -lpthread -lm -lstdc++

# ---- programs linked against the shared library ---------------------------
PROGCFLAGS := -std=gnu11 -D_GNU_SOURCE -Iinclude $(WARN) $(SANFLAGS) $(CFLAGS)
PROGLDLIBS := -L$(BUILD) -Wl,-rpath,'$$ORIGIN/..' -lprofil -ldl -lpthread -lm

# split is a plain program: nothing of ours linked in
$(BUILD)/examples/split: examples/split.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -o $@ $<

$(BUILD)/examples/%: examples/%.c $(SHLIB)
	@mkdir -p $(@D)
	$(CC) $(PROGCFLAGS) -rdynamic -o $@ $< $(PROGLDLIBS)

# The main job on a bundled example: record a program, report on it.
demo: deps-demo all
	$(BUILD)/profil record -o $(BUILD)/split.prf $(BUILD)/examples/split 60
	$(BUILD)/profil report $(BUILD)/split.prf

# ---- tests -----------------------------------------------------------------
TEST_SRC   := $(wildcard tests/test-*.c)
TEST_BIN   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_HELP  := $(wildcard tests/helper-*.c)
TEST_HBIN  := $(TEST_HELP:tests/%.c=$(BUILD)/tests/%)
HARNESS    := tests/harness.c tests/e2e.c
# Unit tests reach internal functions through the static library.
TESTCFLAGS := $(PROGCFLAGS) -Ilib -Ilib/arch/$(ARCH) -Itests

$(BUILD)/tests/test-%: tests/test-%.c $(HARNESS) tests/harness.h tests/e2e.h $(SHLIB) $(STLIB)
	@mkdir -p $(@D)
	$(CC) $(TESTCFLAGS) -o $@ $< $(HARNESS) \
	    $(if $(filter bins plan,$*),$(STLIB)) \
	    -L$(BUILD) -Wl,-rpath,'$$ORIGIN/..' -lprofil -lcmocka -ldl -lpthread -lm

# test-merge compiles the merge module itself (#include)
$(BUILD)/tests/test-merge: cli/merge.c cli/merge.h cli/util.c

$(BUILD)/tests/helper-%: tests/helper-%.c $(SHLIB)
	@mkdir -p $(@D)
	$(CC) $(PROGCFLAGS) -o $@ $< $(PROGLDLIBS)

# The profiled programs of the end-to-end tests: plain, nothing of ours.
$(BUILD)/tests/workload: tests/workload.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -o $@ $< -lm -lpthread
$(BUILD)/tests/workload-static: tests/workload.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -static -o $@ $< -lm -lpthread
WORKLOADS := $(BUILD)/tests/workload $(BUILD)/tests/workload-static
# C++ names, a marked hot line and vDSO time for the report tests
$(BUILD)/tests/cxx-workload: tests/cxx-workload.cc
	@mkdir -p $(@D)
	$(CXX) -O2 -g -o $@ $<
WORKLOADS += $(BUILD)/tests/cxx-workload

# Under sanitizers, the library the timer engine injects into (plain) test
# programs is the plain build: a sanitized one cannot load there.  The
# recorder and every test program are still sanitized.
ifneq ($(SANITIZE),)
INJECTED  := build/libprofil.so.$(VERSION)
$(INJECTED): $(LIB_SRC) $(LIB_ASM)
	$(MAKE) --no-print-directory SANITIZE= BUILD=build $@
endif

check: deps-check all $(TEST_BIN) $(TEST_HBIN) $(WORKLOADS) $(INJECTED)
	$(if $(INJECTED),PROFIL_LIBRARY=$(CURDIR)/$(INJECTED)) \
	    BUILD=$(BUILD) sh tests/run-tests.sh $(TEST_BIN)

# ---- bench -----------------------------------------------------------------
$(BUILD)/bench/%: bench/%.c $(SHLIB)
	@mkdir -p $(@D)
	$(CC) $(PROGCFLAGS) -o $@ $< $(PROGLDLIBS)

bench: all $(BUILD)/bench/overhead $(BUILD)/tests/workload
	$(BUILD)/bench/overhead
	python3 bench/record.py $(BUILD)

# ---- dependencies on a fresh machine -----------------------------------------
deps-demo:
	@sh scripts/deps.sh build
deps-check:
	@sh scripts/deps.sh check

# ---- install -----------------------------------------------------------------
install: $(SHLIB) $(STLIB) $(BUILD)/profil
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BINDIR)
	install -m 755 $(BUILD)/profil $(DESTDIR)$(BINDIR)/
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libprofil.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libprofil.so
	install -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 include/profil.h $(DESTDIR)$(INCDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    profil.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/profil.pc
	install -m 644 man/profil.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/profil.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 644 man/profil.5 $(DESTDIR)$(MANDIR)/man5/

clean:
	rm -rf build

.PHONY: all demo check bench install clean deps-demo deps-check
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

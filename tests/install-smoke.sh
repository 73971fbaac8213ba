#!/bin/sh
# install-smoke.sh PREFIX - the installed files are where they belong, a
# program built with `pkg-config --cflags --libs profil` against them
# profiles itself, and the installed profil records one with the timer
# engine, which injects the installed library.  Prints "1 passed, 0
# failed" or "0 passed, 1 failed".
set -u
prefix=$1
fail() { echo "install-smoke: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

for f in bin/profil lib/libprofil.so lib/libprofil.so.0 lib/libprofil.a include/profil.h \
    lib/pkgconfig/profil.pc share/man/man1/profil.1 share/man/man3/profil.3profil \
    share/man/man5/profil.5 share/bash-completion/completions/profil; do
	[ -e "$prefix/$f" ] || fail "missing $prefix/$f"
done
soname=$(objdump -p "$prefix/lib/libprofil.so" | awk '/SONAME/ {print $2}')
[ "$soname" = libprofil.so.0 ] || fail "soname is '$soname'"
# only public names are exported
extra=$(nm -D --defined-only "$prefix/lib/libprofil.so" | awk '$2 == "T" {print $3}' |
	grep -v -E '^(profil|sprofil|profil_start|profil_stop|profil_get_status|profil_mechanism_name|pthread_create|dlclose|sigaction|signal|bsd_signal|__sysv_signal|sigprocmask|pthread_sigmask|sigpending|sigtimedwait|sigwaitinfo|sigwait|close|close_range|closefrom|dup2|dup3|profil_profile_(read|parse|encode|save|free))$')
[ -z "$extra" ] || fail "unexpected exports: $extra"
# and the static library makes only public names global (plus the
# --wrap=pthread_create hook): a program's own names cannot clash
extra=$(nm -g --defined-only "$prefix/lib/libprofil.a" | awk 'NF == 3 {print $3}' |
	grep -v -E '^(profil|sprofil|profil_start|profil_stop|profil_get_status|profil_mechanism_name|__wrap_pthread_create|profil_profile_(read|parse|encode|save|free))$')
[ -z "$extra" ] || fail "unexpected globals in libprofil.a: $extra"

dir=$(mktemp -d)
cat > "$dir/t.c" <<'C'
#include <profil.h>
#include <stdio.h>
static unsigned short buf[4096];
int main(void) {
	struct profil_status st;
	volatile unsigned long x = 0;
	if (profil(buf, sizeof buf, (size_t)main & ~(size_t)4095, 0x10000) != 0) return 1;
	for (unsigned long i = 0; i < 200000000ul; i++) x += i;
	profil_get_status(&st);
	profil(buf, 0, 0, 0);
	printf("%llu samples\n", (unsigned long long)st.samples);
	return st.samples > 0 ? 0 : 2;
}
C
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc "$dir/t.c" -o "$dir/t" \
	$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs profil) ||
	fail "cannot build against the installed library"
"$dir/t" || fail "the program built against it did not profile itself"
ldd "$dir/t" | grep -q "$prefix/lib/libprofil.so.0" || fail "not linked to the installed library"
# the timer engine finds the installed library (PROFIL_LIBRARY unset)
env -u PROFIL_LIBRARY "$prefix/bin/profil" record -q -e timer -o "$dir/t.prf" "$dir/t" \
	>/dev/null || fail "the installed profil cannot record with the timer engine"
"$prefix/bin/profil" check -q "$dir/t.prf" || fail "its profile is not sound"

# fully static, threaded: pkg-config --static adds --wrap=pthread_create,
# so a thread created after the start is sampled too; the program's own
# functions that have names of the library's insides are its own
cat > "$dir/s.c" <<'C'
#include <profil.h>
#include <pthread.h>
#include <stdio.h>
int plan_new(void) { return 40; }
int session_start(void) { return 2; }
static void *burn(void *a) { volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 300000000ul; i++) x += i; return a; }
int main(void) {
	struct profil_status st; pthread_t t;
	if (plan_new() + session_start() != 42) return 4;
	if (profil_start(NULL) != 0) return 1;
	if (pthread_create(&t, NULL, burn, NULL) != 0) return 2;
	burn(NULL); pthread_join(t, NULL);
	profil_get_status(&st); profil_stop();
	printf("static: %llu samples for %.2f CPU-s at %u Hz\n",
	    (unsigned long long)st.samples, st.cpu_seconds, st.rate_hz);
	return st.samples >= 0.7 * st.cpu_seconds * st.rate_hz ? 0 : 3;
}
C
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc -static "$dir/s.c" -o "$dir/s" \
	$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --cflags --libs profil) \
	2>/dev/null || fail "cannot link statically"
"$dir/s" || fail "static program: threads not all sampled (exit $?)"
rm -rf "$dir"
echo "1 passed, 0 failed"

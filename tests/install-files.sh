#!/bin/sh
# install-files.sh [DEB...] - make install puts the files the Debian
# packages (profil, libprofil0, libprofil-dev: not the -dbgsym ones)
# hold, in the same places, and make uninstall takes them all away.  Run in a tree built as debian/rules builds it (make deb runs it
# in build/deb/profil-VERSION, with the packages): make install
# DESTDIR=a scratch directory, with debian/rules's paths; its files and
# links are compared with those of the packages (their files, as dpkg-deb
# -c lists them; usr/share/doc and usr/share/lintian are Debian's own, and
# dh_compress gzips the man pages),
# then make uninstall must leave no file or link behind.  Without
# packages, only make uninstall is checked.  Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || cc -print-multiarch)
args="PREFIX=/usr LIBDIR=/usr/lib/$ma LIBDW=shared"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
fail() { echo "install-files: $*" >&2; failed=$((failed + 1)); }

# shellcheck disable=SC2086
make --no-print-directory install $args DESTDIR="$dir/root" >"$dir/log" 2>&1 ||
	{ cat "$dir/log"; echo "install-files: make install failed" >&2; exit 1; }
(cd "$dir/root" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort) >"$dir/install"
[ -s "$dir/install" ] || fail "make install installed nothing"

if [ $# -gt 0 ]; then
	for deb in "$@"; do
		dpkg-deb --fsys-tarfile "$deb" | tar -t
	done | sed -e 's|^\./||' -e '/^$/d' -e '/\/$/d' -e '/^usr\/share\/doc\//d' \
	    -e '/^usr\/share\/lintian\//d' \
	    -e 's|^\(usr/share/man/.*\)\.gz$|\1|' | LC_ALL=C sort >"$dir/debs"
	if diff -u "$dir/debs" "$dir/install" >"$dir/diff"; then
		passed=$((passed + 1))
		echo "install-files: the packages and make install: the same" \
		    "$(wc -l <"$dir/install") files"
	else
		fail "the packages (-) and make install (+) differ:"
		cat "$dir/diff" >&2
	fi
fi

# shellcheck disable=SC2086
make --no-print-directory uninstall $args DESTDIR="$dir/root" >"$dir/log" 2>&1 ||
	{ cat "$dir/log"; fail "make uninstall failed"; }
left=$(cd "$dir/root" && find . ! -type d)
if [ -z "$left" ]; then
	passed=$((passed + 1))
	echo "install-files: make uninstall left no file behind"
else
	fail "make uninstall left: $left"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/sh
# check-layers.sh [BUILD] - libprofil's modules call only down
# (docs/design.md, "Layers").  Fails, naming the file, if a lib/ source or
# header includes the header of a module in its own layer or above, or,
# given the build directory, if an object refers to a function or
# variable defined by such a module.  include/profil.h, the public
# contract, gives every layer its types and constants; its functions are
# the front ends', and the symbol check sees a call to them.  Names of
# the C library that a module stands in front of (sigaction, close, ...)
# are the C library's to everyone else.  Prints "layers: ok" or the
# offending lines.
set -u
cd "$(dirname "$0")/.."
build=${1:-}

# Lowest first; modules on one line are peers that do not use each other.
layers='
arch bins budget interpose rio
fault ownfds prf stackring
mappings
plan
handler
sigveil
thread_clock
threads
session
agent
api profil sprofil
thread_hook
'

level() {	# level MODULE: its layer number, or nothing if unknown
	echo "$layers" | awk -v m="$1" 'NF { n++; for (i = 1; i <= NF; i++)
		if ($i == m) print n }'
}
module_of() {	# module_of PATH: lib/arch/x86_64/arch.h -> arch, lib/codec/prf-decode.c -> prf
	b=${1##*/}
	b=${b%.*}
	b=${b%_wrap}
	case $b in counter) b=arch ;; prf-*) b=prf ;; esac
	echo "$b"
}

bad=0
for f in lib/*/*.c lib/*/*.h lib/arch/*/*.h; do
	m=$(module_of "$f")
	ml=$(level "$m")
	if [ -z "$ml" ]; then
		echo "$f: module $m is in no layer (scripts/check-layers.sh)"
		bad=1
		continue
	fi
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		hm=$(module_of "$h")
		[ "$hm" = "$m" ] || [ "$h" = profil.h ] && continue
		hl=$(level "$hm")
		if [ -z "$hl" ]; then
			echo "$f: includes $h of no known module"
			bad=1
		elif [ "$hl" -ge "$ml" ]; then
			echo "$f: includes $h (layer $hl), not below its own ($ml)"
			bad=1
		fi
	done
done

if [ -n "$build" ]; then
	objs=$(ls "$build"/lib/*/*.o "$build"/lib/arch/*/*.o)
	defs=$(mktemp) libc=$(mktemp)
	nm -D --defined-only "$(${CC:-cc} -print-file-name=libc.so.6)" |
	    awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u >"$libc"
	# "symbol module", for every global definition not the C library's
	for o in $objs; do
		nm --defined-only -g "$o" | awk -v m="$(module_of "$o")" \
		    'NF == 3 { print $3, m }'
	done | sort -u | join -v 1 - "$libc" >"$defs"
	for o in $objs; do
		m=$(module_of "$o")
		ml=$(level "$m")
		for s in $(nm -u "$o" | awk '{ print $2 }'); do
			for dm in $(awk -v s="$s" '$1 == s { print $2 }' "$defs"); do
				[ "$dm" = "$m" ] && continue
				dl=$(level "$dm")
				if [ "$dl" -ge "$ml" ]; then
					echo "$o: uses $s of $dm (layer $dl), not below its own ($ml)"
					bad=1
				fi
			done
		done
	done
	rm -f "$defs" "$libc"
fi

[ "$bad" -eq 0 ] && echo "layers: ok"
exit "$bad"

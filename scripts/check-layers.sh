#!/bin/sh
# check-layers.sh [BUILD] - libprofil calls only down (docs/design.md,
# "Layers"), in two orders: its rooms (lib/ROOM/; lib/arch/ARCH/ is the
# room arch) and its modules.  Fails, naming the file, if a lib/ source
# or header lies outside a room, has its module split across rooms,
# names a header of lib/ without its room ("plan/fault.h", not
# "fault.h"; arch.h, whose folder the build picks, excepted), or
# includes one of a room or a module in its own layer or above (its own
# excepted); or, given the build directory, if an object refers to a
# function or variable defined in such a room or module.
# include/profil.h, the public contract, gives every layer its types and
# constants; its functions are the front ends', and the symbol check sees
# a call to them.  Names of the C library that a module stands in front
# of (sigaction, close, ...) are the C library's to everyone else.
# Prints "layers: ok" or the offending lines.
set -u
cd "$(dirname "$0")/.."
build=${1:-}

# Rooms, lowest first; rooms on one line are peers that do not use each
# other.
rooms='
arch
codec plan
sampler
session
agent
api
'

# Modules, lowest first; modules on one line are peers that do not use
# each other.
layers='
arch bins budget interpose rio sigmark stacktree
fault ownfds prf stackring
mappings
plan
handler
sigveil
thread_clock
threads
session
agent
front
api profil sprofil
thread_hook
'

level() {	# level LIST NAME: its layer number in $LIST, or nothing
	echo "$1" | awk -v m="$2" 'NF { n++; for (i = 1; i <= NF; i++)
		if ($i == m) print n }'
}
module_of() {	# module_of PATH: lib/arch/x86_64/arch.h -> arch, lib/codec/prf-decode.c -> prf
	b=${1##*/}
	b=${b%.*}
	b=${b%_wrap}
	case $b in counter|perf-regs|syscall-names) b=arch ;; prf-*) b=prf ;; rio-*) b=rio ;;
	session-*) b=session ;; esac
	echo "$b"
}
room_of() {	# room_of PATH-UNDER-LIB: plan/fault.h -> plan, arch/x86_64/arch.h -> arch
	case $1 in */*) echo "${1%%/*}" ;; esac
}

bad=0
placed=$(mktemp)	# "module room" for each file
for f in lib/*.c lib/*.h lib/*/*.c lib/*/*.h lib/arch/*/*.h; do
	[ -e "$f" ] || continue
	m=$(module_of "$f")
	r=$(room_of "${f#lib/}")
	ml=$(level "$layers" "$m")
	rl=$(level "$rooms" "$r")
	if [ -z "$rl" ]; then
		echo "$f: not in a room (lib/ROOM/, scripts/check-layers.sh)"
		bad=1
		continue
	fi
	if [ -z "$ml" ]; then
		echo "$f: module $m is in no layer (scripts/check-layers.sh)"
		bad=1
		continue
	fi
	echo "$m $r" >>"$placed"
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		[ "$h" = profil.h ] && continue
		hr=$(room_of "$h")
		[ "$h" = arch.h ] && hr=arch
		hrl=$(level "$rooms" "$hr")
		if [ -z "$hrl" ]; then
			echo "$f: includes $h, not named by its room (\"ROOM/$h\")"
			bad=1
			continue
		fi
		if [ "$hr" != "$r" ] && [ "$hrl" -ge "$rl" ]; then
			echo "$f: includes $h of room $hr (layer $hrl), not below its own $r ($rl)"
			bad=1
		fi
		hm=$(module_of "$h")
		[ "$hm" = "$m" ] && continue
		hl=$(level "$layers" "$hm")
		if [ -z "$hl" ]; then
			echo "$f: includes $h of no known module"
			bad=1
		elif [ "$hl" -ge "$ml" ]; then
			echo "$f: includes $h (layer $hl), not below its own ($ml)"
			bad=1
		fi
	done
done
sort -u "$placed" | awk '{ n[$1]++; in_[$1] = in_[$1] " " $2 }
	END { for (m in n) if (n[m] > 1) print "module " m " is split across rooms:" in_[m] }' |
    grep . && bad=1
rm -f "$placed"

if [ -n "$build" ]; then
	objs=$(ls "$build"/lib/*/*.o "$build"/lib/arch/*/*.o)
	defs=$(mktemp) libc=$(mktemp)
	nm -D --defined-only "$(${CC:-cc} -print-file-name=libc.so.6)" |
	    awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u >"$libc"
	# "symbol module room", for every global definition not the C library's
	for o in $objs; do
		nm --defined-only -g "$o" | awk -v m="$(module_of "$o")" \
		    -v r="$(room_of "${o#"$build"/lib/}")" 'NF == 3 { print $3, m, r }'
	done | sort -u | join -v 1 - "$libc" >"$defs"
	for o in $objs; do
		m=$(module_of "$o")
		r=$(room_of "${o#"$build"/lib/}")
		ml=$(level "$layers" "$m")
		rl=$(level "$rooms" "$r")
		for s in $(nm -u "$o" | awk '{ print $2 }'); do
			for d in $(awk -v s="$s" '$1 == s { print $2 ":" $3 }' "$defs"); do
				dm=${d%:*} dr=${d#*:}
				drl=$(level "$rooms" "$dr")
				if [ "$dr" != "$r" ] && [ "$drl" -ge "$rl" ]; then
					echo "$o: uses $s of room $dr (layer $drl), not below its own $r ($rl)"
					bad=1
				fi
				[ "$dm" = "$m" ] && continue
				dl=$(level "$layers" "$dm")
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

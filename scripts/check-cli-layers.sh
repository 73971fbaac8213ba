#!/bin/sh
# check-cli-layers.sh [BUILD] - the profil command's rooms use only the
# rooms they stand on (docs/design.md, "The house"), as check-layers.sh
# holds lib/ to its layers.  A room is a folder of cli/ (cli/record/ROOM/
# for the recorder's); the floor is cli/*.[ch] but the commands, which
# every room may use; the commands (cli/cmd-*.c, cli/profil.c) stand on
# everything.  Fails, naming the file, if a source or header of cli/
# lies outside a room, names a header of another room without its room
# ("record/core/builder.h", not "builder.h"), or includes a header of a
# room it does not stand on: one above it, or a peer, or one of another
# tower (the recorder and the views know nothing of each other); or,
# given the build directory, if an object refers to a function or
# variable defined in such a room, or the objects of one room call each
# other in a circle.  Headers of lib/ and include/ are everyone's (the
# command links libprofil's internals).  Prints "cli layers: ok" or the
# offending lines.
set -u
export LC_ALL=C		# one order for sort and join
cd "$(dirname "$0")/.."
build=${1:-}

# Each room, lowest first, and the rooms it stands on; it may use those
# and what they stand on, in turn.  symbols is below the recorder while
# the recorder reads the vDSO's image and the kernel's identity there
# (symbols/vdso.c, symbols/kernel.c).
stands='
floor:
symbols: floor
record/core: symbols
record/jit: record/core
record/unwind: record/jit
record/wall: record/unwind
record/sink: record/wall
record/perf: record/sink
record/timer: record/sink
model: symbols
profile: symbols
report: profile model
export: profile model
top: report
cmd: record/perf record/timer report export top
'

below() {	# below ROOM: every room ROOM may use, one a line
	echo "$stands" | awk -v r="$1" -F': *' '
		$1 != "" { deps[$1] = $2; known[$1] = 1 }
		function walk(x,   i, k, d) {
			k = split(deps[x], d, " ")
			for (i = 1; i <= k; i++)
				if (!(d[i] in seen)) { seen[d[i]] = 1; print d[i]; walk(d[i]) }
		}
		END { if (r in known) walk(r) }'
}
known() {	# known ROOM: 0 if ROOM is one of $stands
	case $stands in *"
$1:"*) return 0 ;; esac
	return 1
}
room() {	# room PATH: its room in $room (cli/record/wall/wall.c -> record/wall)
	case $1 in
	cli/cmd-*.[ch] | cli/profil.c) room=cmd ;;
	cli/*/*/*) room=${1#cli/}; room=${room%/*} ;;
	cli/*/*) room=${1#cli/}; room=${room%%/*} ;;
	*) room=floor ;;
	esac
}
room_of() {	# room_of PATH: the same, printed
	room "$1"
	echo "$room"
}
allowed=$(mktemp)	# "ROOM OTHER" for every room OTHER that ROOM may use
for r in $(echo "$stands" | sed -n 's/^\([^:]*\):.*/\1/p'); do
	echo "$r $r"
	below "$r" | sed "s|^|$r |"
done >"$allowed"
allowed_s="|$(tr '\n' '|' <"$allowed")"
may_use() {	# may_use ROOM OTHER: 0 if ROOM stands on OTHER, near or far
	case $allowed_s in *"|$1 $2|"*) return 0 ;; esac
	return 1
}
in_lib() {	# in_lib HEADER: 0 if it is libprofil's
	[ -e "lib/$1" ] || [ -e "include/$1" ] && return 0
	for d in lib/arch/*/; do
		[ -e "$d$1" ] && return 0
	done
	return 1
}

bad=0
for f in $(find cli -name '*.[ch]' | sort); do
	room "$f"
	r=$room
	if ! known "$r"; then
		echo "$f: not in a room (cli/ROOM/ or cli/record/ROOM/:" \
		    "scripts/check-cli-layers.sh)"
		bad=1
		continue
	fi
	dir=${f%/*}
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $h in ../*)
			echo "$f: includes $h: a header is named by its room, not by ../"
			bad=1
			continue ;;
		esac
		if [ -e "$dir/$h" ]; then
			room "$dir/$h"
		elif [ -e "cli/$h" ]; then
			room "cli/$h"
		elif in_lib "$h"; then
			continue	# libprofil's: everyone's
		else
			echo "$f: includes $h, of no room (another room's" \
			    "header is named \"ROOM/$h\")"
			bad=1
			continue
		fi
		if ! may_use "$r" "$room"; then
			echo "$f: includes $h of room $room, which $r does not stand on"
			bad=1
		fi
	done
done

if [ -n "$build" ]; then
	# the objects whose source is still there (a moved file leaves its
	# old object behind), as "object room source"
	objs=$(mktemp) defs=$(mktemp) uses=$(mktemp)
	for o in $(find "$build/cli" -name '*.o' | sort); do
		c=${o#"$build"/}
		c=${c%.o}.c
		[ -e "$c" ] && echo "$o $(room_of "$c") $c"
	done >"$objs"
	# "symbol room source" of each global definition; of each use
	while read -r o r c; do
		nm --defined-only -g "$o" | awk -v r="$r" -v c="$c" \
		    'NF == 3 { print $3, r, c }' >>"$defs"
		nm -u "$o" | awk -v r="$r" -v c="$c" '{ print $2, r, c }' >>"$uses"
	done <"$objs"
	sort -o "$defs" "$defs"
	sort -o "$uses" "$uses"
	# "symbol user-room user defining-room definer", other files only
	join "$uses" "$defs" | awk '$3 != $5' >"$uses.x"
	awk 'NR == FNR { ok[$1 " " $2] = 1; next }
	    $2 != $4 && !(($2 " " $4) in ok) {
		print $3 ": uses " $1 " of room " $4 " (" $5 "), which " \
		    $2 " does not stand on"; bad = 1 }
	    END { exit bad }' "$allowed" "$uses.x" || bad=1
	# within a room, the files call each other in no circle
	for r in $(awk '$2 == $4 { print $2 }' "$uses.x" | sort -u); do
		awk -v r="$r" '$2 == r && $4 == r { print $5, $3 }' "$uses.x" |
		    sort -u | tsort 2>&1 >/dev/null |
		    sed -n 's/^tsort: \(cli\/.*\)/\1/p' | sort -u >"$uses.loop"
		if [ -s "$uses.loop" ]; then
			echo "room $r: its files call each other in a circle:" \
			    $(cat "$uses.loop")
			bad=1
		fi
	done
	rm -f "$objs" "$defs" "$uses" "$uses.x" "$uses.loop"
fi

rm -f "$allowed"
[ "$bad" -eq 0 ] && echo "cli layers: ok"
exit "$bad"

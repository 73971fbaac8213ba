#!/bin/sh
# same-views.sh - what `profil` shows of profiles, compared byte for byte
# between two builds of it: the proof that a change said to change no
# behaviour (a move, a rename, a table where an if-chain was) changed
# none.
#
#   scripts/same-views.sh record DIR     record the set of profiles into
#                                        DIR with build/profil and the
#                                        test programs (make WORKLOADS)
#   scripts/same-views.sh BEFORE AFTER DIR  run every case below with the
#                                        binary BEFORE, then AFTER, on the
#                                        profiles in DIR, and compare
#
# A case is one command line: every view of report in every format
# (flat, objects, threads, pid, histogram, annotate, callers, callees,
# tree, html; text at three widths, coloured, CSV, JSON; --cpu, --inline,
# sorts and limits), every export (folded, pprof, gmon; --cpu,
# --inline, -o -), check, merge, archive, diff, the help texts and the
# refusals.  Each runs in an empty directory of its own; its standard
# output, standard error, exit status and every file it wrote are
# compared.  Prints a line per case that differs, then "N cases, N
# differ"; exits 1 if any differs.  Record the profiles once: sampling
# is never the same twice, and the point is the same input to both.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

record() {
	dir=$1
	b=$top/build
	t=$b/tests
	mkdir -p "$dir"
	cd "$dir" || exit 1
	rec() {
		out=$1
		shift
		"$b/profil" record -q -o "$out" "$@" >/dev/null 2>"$out.err" ||
		    echo "record $out failed (status $?): $(cat "$out.err")"
	}
	rec perf-split.prf -e perf "$t/workload" split 1
	rec perf-split2.prf -e perf "$t/workload" split2 1
	rec timer-split.prf -e timer "$t/workload" split 1
	rec perf-threads.prf -e perf "$t/workload" threads 3 0.3
	rec timer-threads.prf -e timer "$t/workload" threads 3 0.3
	rec perf-forkexec.prf -e perf "$t/workload" forkexec 0.3
	rec perf-libm.prf -e perf "$t/workload" libm 0.3
	rec perf-cxx.prf -e perf "$t/cxx-workload" burn 0.5
	rec perf-flat.prf -e perf --no-call-graph -b 16 "$t/workload" split 0.5
	rec timer-budget.prf -e timer --samples 2000 "$t/workload" split 1
	rec perf-bigframe.prf -e perf "$t/workload" bigframe 0.3
	rec perf-holeframe.prf -e perf "$t/workload" holeframe 0.3
	rec perf-jit.prf -e perf "$t/jit-workload" perfmap 1
	rec timer-jit.prf -e timer "$t/jit-workload" jitdump 1
	rec perf-jitwall.prf -e perf --wall "$t/jit-workload" nounwind 1
	rec timer-jitwall.prf -e timer --wall "$t/jit-workload" unwinding 1
	rec perf-wall.prf -e perf --wall "$t/wall-workload" parts 0.3 0.2 0.2 0.2
	rec timer-wall.prf -e timer --wall "$t/wall-workload-fp" parts 0.3 0.2 \
	    0.2 0.2
	rec perf-parked.prf -e perf --wall "$t/wall-workload" parked 8 0.3
	rm -f ./*.err
	ls "$dir"
}

if [ "$#" -eq 2 ] && [ "$1" = record ]; then
	record "$2"
	exit 0
fi
if [ "$#" -ne 3 ]; then
	echo "usage: $0 record DIR | $0 BEFORE AFTER DIR" >&2
	exit 2
fi
before=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
after=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
dir=$(cd "$3" && pwd)
work=$(mktemp -d /tmp/same-views.XXXXXX)
trap 'rm -rf "$work"' EXIT
ncases=0
ndiffer=0

# run NAME ARGS...: the case, with each binary, in a directory of its own
run() {
	name=$1
	shift
	ncases=$((ncases + 1))
	for side in before after; do
		eval bin=\$$side
		mkdir -p "$work/$side/$ncases"
		(cd "$work/$side/$ncases" && COLUMNS=${COLS:-80} "$bin" "$@" \
		    >../$ncases.out 2>../$ncases.err </dev/null
		    echo $? >../$ncases.rc)
	done
	for part in out err rc; do
		if ! cmp -s "$work/before/$ncases.$part" "$work/after/$ncases.$part"; then
			echo "differs ($part): $name: $*"
			ndiffer=$((ndiffer + 1))
			return
		fi
	done
	if ! diff -r "$work/before/$ncases" "$work/after/$ncases" >/dev/null; then
		echo "differs (files): $name: $*"
		ndiffer=$((ndiffer + 1))
	fi
}

# The busiest function of a profile, as the views are asked for it.
busiest() {
	"$before" report --format csv -n 1 "$1" 2>/dev/null |
	    awk -F, 'NR == 2 && $0 !~ /^"/ { print $1 }'
}

for f in "$dir"/*.prf; do
	n=$(basename "$f" .prf)
	top_fn=$(busiest "$f")
	[ -n "$top_fn" ] || top_fn=main
	wall=0
	case $n in *wall*|*parked*) wall=1;; esac
	for fmt in text csv json; do
		run "$n flat" report -f $fmt "$f"
		run "$n objects" report -f $fmt --objects "$f"
		run "$n threads" report -f $fmt --threads "$f"
		run "$n pid" report -f $fmt --pid "$f"
		run "$n processes" report -f $fmt --processes "$f"
		run "$n histogram" report -f $fmt --histogram "$f"
		run "$n histogram fn" report -f $fmt "--histogram=$top_fn" "$f"
		run "$n annotate" report -f $fmt --annotate "$top_fn" "$f"
		run "$n callers" report -f $fmt --callers "$top_fn" "$f"
		run "$n callees" report -f $fmt --callees main "$f"
		run "$n tree" report -f $fmt --tree "$f"
		run "$n tree 0" report -f $fmt --tree --min-percent 0 "$f"
		run "$n inline" report -f $fmt --inline "$f"
		run "$n tree inline" report -f $fmt --tree --inline "$f"
		if [ $wall = 1 ]; then
			run "$n cpu" report -f $fmt --cpu "$f"
			run "$n cpu tree" report -f $fmt --cpu --tree "$f"
			run "$n cpu threads" report -f $fmt --cpu --threads "$f"
			run "$n cpu callers" report -f $fmt --cpu --callers \
			    "$top_fn" "$f"
		fi
	done
	for key in samples inclusive function object; do
		run "$n sort" report --sort $key -n 5 "$f"
	done
	run "$n min" report --min-percent 5 "$f"
	run "$n wide" report --wide "$f"
	run "$n colour" report --color always "$f"
	run "$n colour tree" report --color always --tree "$f"
	run "$n colour annotate" report --color=always --annotate "$top_fn" "$f"
	run "$n colour histogram" report --colour always --histogram "$f"
	COLS=60 run "$n 60" report "$f"
	COLS=60 run "$n 60 tree" report --tree "$f"
	COLS=200 run "$n 200" report --threads "$f"
	run "$n bare histogram" report --histogram "$top_fn" "$f"
	run "$n html" report --html page.html "$f"
	run "$n html inline" report --html page.html --inline "$f"
	[ $wall = 1 ] && run "$n html cpu" report --html page.html --cpu "$f"
	run "$n folded" export --format folded "$f"
	run "$n folded -" export --format folded -o - "$f"
	run "$n folded inline" export --format folded --inline -o x.folded "$f"
	run "$n pprof" export --format pprof "$f"
	run "$n pprof inline" export --format pprof --inline -o x.pb.gz "$f"
	run "$n gmon" export --format gmon "$f"
	run "$n gmon dir" export --format gmon -o out "$f"
	if [ $wall = 1 ]; then
		run "$n folded cpu" export --format folded --cpu "$f"
		run "$n pprof cpu" export --format pprof --cpu "$f"
		run "$n gmon cpu" export --format gmon --cpu "$f"
	else
		run "$n export cpu" export --format folded --cpu "$f"
		run "$n report cpu" report --cpu "$f"
	fi
	run "$n check" check "$f"
	run "$n archive" archive -o kept.prf "$f"
	run "$n merge" merge -o merged.prf "$f" "$f"
	run "$n diff self" diff "$f" "$f"
done

# diff: one change, walls, a wall and a CPU profile, the formats
p=$dir
for fmt in text csv json; do
	run "diff split" diff -f $fmt "$p/perf-split.prf" "$p/perf-split2.prf"
	run "diff engines" diff -f $fmt "$p/perf-split.prf" "$p/timer-split.prf"
	run "diff walls" diff -f $fmt "$p/perf-wall.prf" "$p/timer-wall.prf"
	run "diff walls cpu" diff -f $fmt --cpu "$p/perf-wall.prf" \
	    "$p/timer-wall.prf"
	run "diff wall cpu" diff -f $fmt "$p/perf-wall.prf" "$p/perf-split.prf"
	run "diff budget" diff -f $fmt "$p/timer-budget.prf" "$p/timer-split.prf"
	run "diff flat" diff -f $fmt "$p/perf-flat.prf" "$p/perf-split.prf"
done
run "diff limit" diff -n 2 --min-change 1 "$p/perf-split.prf" \
    "$p/perf-split2.prf"
run "diff cpu refused" diff --cpu "$p/perf-split.prf" "$p/perf-split2.prf"
run "diff one" diff "$p/perf-split.prf"
run "merge two" merge -o m.prf "$p/perf-split.prf" "$p/perf-split2.prf"
run "merge walls" merge -o m.prf "$p/perf-wall.prf" "$p/perf-wall.prf"

# refusals and help: every message as it was
for cmd in report export diff check merge archive; do
	run "help $cmd" $cmd --help
done
run "help" --help
run "two views" report --objects --threads "$p/perf-split.prf"
run "two views alias" report --pid --processes "$p/perf-split.prf"
run "view prefix" report --p "$p/perf-split.prf"
run "view arg" report --objects=x "$p/perf-split.prf"
run "view no arg" report "$p/perf-split.prf" --annotate
run "no such fn" report --annotate no_such_fn "$p/perf-split.prf"
run "no such callers" report --callers no_such_fn "$p/perf-split.prf"
run "no such hist" report --histogram=no_such "$p/perf-split.prf"
run "no stacks" report --tree "$p/perf-flat.prf"
run "no stacks callers" report --callers six "$p/perf-flat.prf"
run "inline objects" report --inline --objects "$p/perf-split.prf"
run "bad format" report -f xml "$p/perf-split.prf"
run "bad sort" report --sort x "$p/perf-split.prf"
run "bad colour" report --color x "$p/perf-split.prf"
run "bad min" report --min-percent 101 "$p/perf-split.prf"
run "bad limit" report -n x "$p/perf-split.prf"
run "two files" report "$p/perf-split.prf" "$p/perf-split.prf"
run "no file" report /nonexistent.prf
run "no profile here" report
run "not a profile" report /etc/passwd
run "export no format" export "$p/perf-split.prf"
run "export bad format" export --format xml "$p/perf-split.prf"
run "export gmon -" export --format gmon -o - "$p/perf-split.prf"
run "export gmon inline" export --format gmon --inline "$p/perf-split.prf"
run "export empty -o" export --format pprof -o "" "$p/perf-split.prf"
run "export two" export --format pprof "$p/perf-split.prf" "$p/perf-split.prf"
run "export gmon file" export --format gmon -o "$p/perf-split.prf" \
    "$p/perf-split.prf"
run "export unreadable" export --format gmon -o newdir /nonexistent.prf
run "export folded unreadable" export --format folded /nonexistent.prf

echo "$ncases cases, $ndiffer differ"
[ "$ndiffer" -eq 0 ]

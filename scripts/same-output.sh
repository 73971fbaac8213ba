#!/bin/sh
# same-output.sh [-R] REF - no behaviour change: this tree's profil gives
# the same bytes as commit REF's, for
#   - every view and export (report flat, --tree, --callers, --callees,
#     --objects, --threads, --pid, --histogram, --annotate, --html, csv
#     and json; export folded, pprof, gmon; check, merge, archive, diff;
#     errors and --help) of a fixed set of profiles: both engines, call
#     stacks, --wall, generated code (tests/jit-workload), a budget, as
#     root and as nobody; recorded once by REF's profil and kept, since
#     recordings are not deterministic (-R records them anew);
#   - the profiles the recorder's builder makes of fixed inputs, through
#     the perf engine's records and the timer engine's region as the fuzz
#     targets feed them (fuzz/fuzz-perfrec.c, fuzz-region.c, their corpus
#     and scripts/same-output-perfrec.c's real stacks), encoded: the .prf
#     bytes (FUZZ_SAVE_PROFILES; REF must have it, else this part is
#     skipped, said so).
# REF is built from `git archive` in $SAME_OUTPUT_DIR (default
# /tmp/profil-same-output, kept between runs), this tree in build/.
# Prints one line per difference and "same output: N checks" or
# "differs: N of M checks" (exit 1); the outputs stay in
# $SAME_OUTPUT_DIR/out/{ref,new}.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
rerecord=0
[ "${1:-}" = -R ] && { rerecord=1; shift; }
[ $# -eq 1 ] || { echo "usage: scripts/same-output.sh [-R] REF" >&2; exit 2; }
sha=$(git rev-parse --verify "$1^{commit}")
W=${SAME_OUTPUT_DIR:-/tmp/profil-same-output}
ref=$W/ref-$(echo "$sha" | cut -c1-12)
P=$W/profiles
mkdir -p "$W"

build() {	# build DIR: what the comparison runs, in DIR's build/
	make -C "$1" -j2 --no-print-directory all build/tests/workload \
	    build/tests/cxx-workload build/tests/wall-workload \
	    build/tests/jit-workload build/tests/replay-perfrec \
	    build/tests/replay-region build/tests/helper-noperf \
	    >"$W/make.log" 2>&1 ||
	    { tail -30 "$W/make.log"; echo "same-output: cannot build $1" >&2; exit 2; }
}
if [ ! -x "$ref/build/profil" ]; then
	rm -rf "$ref" && mkdir -p "$ref"
	git archive "$sha" | tar -x -C "$ref"
fi
build "$ref"
build "$top"

# ---- the profiles, recorded once by REF's profil -------------------------
if [ "$rerecord" -eq 1 ] || [ ! -f "$P/done" ]; then
	rm -rf "$P" && mkdir -p "$P/scratch" && chmod 1777 "$P" "$P/scratch"
	t=$ref/build/tests
	rec() {		# rec NAME [as nobody: -n] RECORD-ARGS...
		name=$1; shift
		as=
		[ "$1" = -n ] && { as="setpriv --reuid=nobody --regid=nogroup --clear-groups"; shift; }
		(cd "$P/scratch" && PROFIL_TEST_JITDIR=$P/scratch $as \
		    "$ref/build/profil" record -q -o "$P/$name.prf" "$@" \
		    >/dev/null 2>"$P/$name.log") ||
		    { cat "$P/$name.log"; echo "same-output: cannot record $name" >&2; exit 2; }
	}
	rec perf-split -e perf -- "$t/workload" split 0.3
	rec timer-split -e timer -- "$t/workload" split 0.3
	rec perf-flat -e perf --no-call-graph -- "$t/workload" split 0.2
	rec perf-bucket -e perf -b 16 -- "$t/workload" split 0.2
	rec perf-budget -e perf --samples 2000 -- "$t/workload" split 0.3
	rec perf-threads -e perf -- "$t/workload" threads 3 0.1
	rec perf-forkexec -e perf -- "$t/workload" forkexec 0.1
	rec timer-forkexec -e timer -- "$t/workload" forkexec 0.1
	rec perf-cxx -e perf -- "$t/cxx-workload" burn 0.2
	rec perf-wall -e perf --wall -- "$t/wall-workload" parts 0.05 0.05 0.05 0.05
	rec timer-wall -e timer --wall -- "$t/wall-workload" parts 0.05 0.05 0.05 0.05
	rec perf-perfmap -e perf -- "$t/jit-workload" perfmap 0.3
	rec perf-jitdump -e perf -- "$t/jit-workload" jitdump 0.3
	rec timer-jitdump -e timer -- "$t/jit-workload" jitdump 0.3
	rec perf-unwinding -e perf -- "$t/jit-workload" unwinding 0.3
	rec nobody-perf-writes -n -e perf -- "$t/workload" writes 0.2
	rec nobody-timer-split -n -e timer -- "$t/workload" split 0.2
	rec nobody-perf-wall -n -e perf --wall -- "$t/wall-workload" parts 0.05 0.05 0.05 0.05
	head -c 300 "$P/perf-split.prf" >"$P/truncated.prf"
	# real stacks of a program of ours, as perf records (see there)
	mkdir -p "$P/perfrec"
	cc -O2 -g -o "$P/same-output-perfrec" scripts/same-output-perfrec.c
	"$P/same-output-perfrec" "$P/perfrec"
	touch "$P/done"
fi

# ---- the commands -----------------------------------------------------------
checks=0
run() {	# run SIDE NAME ARGS...: profil ARGS in out/SIDE, its output in NAME
	side=$1 name=$2; shift 2
	b=$ref/build
	[ "$side" = new ] && b=$top/build
	rc=0
	# (noperf: as in a container that refuses perf events)
	(cd "$W/out/$side" && COLUMNS=100 NO_COLOR=1 \
	    ${noperf:+"$b/tests/helper-noperf"} "$b/profil" "$@" \
	    >"$name.out" 2>"$name.err") || rc=$?
	echo "$rc" >"$W/out/$side/$name.rc"
}
noperf=
both() {	# both NAME ARGS...
	checks=$((checks + 1))
	run ref "$@"
	run new "$@"
}
top_function() {	# the flat view's first function of profile $1
	"$ref/build/profil" report --format csv -n 1 "$1" 2>/dev/null |
	    sed -n '2s/^\([^,]*\),.*/\1/p'
}

rm -rf "$W/out" && mkdir -p "$W/out/ref" "$W/out/new"
for f in "$P"/*.prf; do
	n=$(basename "$f" .prf)
	[ "$n" = truncated ] && continue
	fn=$(top_function "$f")
	for v in "" "--format csv" "--format json" "--tree" "--tree --format json" \
	    "--sort inclusive" "--inline" "--objects" "--objects --format csv" \
	    "--threads" "--threads --format json" "--pid" "--pid --format csv" \
	    "--histogram" "--cpu" "--cpu --tree" "--min-percent 5 --limit 3" \
	    "--wide --tree"; do
		# shellcheck disable=SC2086
		both "$n.report$(echo "$v" | tr ' ' '_')" report $v "$f"
	done
	if [ -n "$fn" ]; then
		both "$n.histogram-fn" report --histogram="$fn" "$f"
		both "$n.annotate" report --annotate "$fn" "$f"
		both "$n.callers" report --callers "$fn" "$f"
		both "$n.callees" report --callees main "$f"
		both "$n.callers-json" report --callers "$fn" --format json "$f"
	fi
	both "$n.annotate-main" report --annotate main "$f"
	both "$n.histogram-main" report --histogram=main "$f"
	both "$n.html" report --html "$n.html" "$f"
	both "$n.folded" export -f folded -o - "$f"
	both "$n.folded-inline" export -f folded --inline -o - "$f"
	both "$n.folded-cpu" export -f folded --cpu -o - "$f"
	both "$n.pprof" export -f pprof -o "$n.pb.gz" "$f"
	both "$n.pprof-cpu" export -f pprof --cpu -o "$n.cpu.pb.gz" "$f"
	both "$n.gmon" export -f gmon -o "$n.gmon" "$f"
	both "$n.check" check "$f"
	mkdir -p "$P/copies"
	[ -f "$P/copies/$n.prf" ] || cp "$f" "$P/copies/$n.prf"
	both "$n.merge" merge -q -o "$n.merged.prf" "$f" "$P/copies/$n.prf"
	both "$n.archive" archive -o "$n.archived.prf" "$f"
	both "$n.archived-report" report --tree "$n.archived.prf"
done
both diff-engines diff "$P/perf-split.prf" "$P/timer-split.prf"
both diff-json diff --format json "$P/perf-split.prf" "$P/nobody-timer-split.prf"
both diff-wall diff "$P/perf-wall.prf" "$P/timer-wall.prf"
both diff-wall-cpu diff --cpu "$P/perf-wall.prf" "$P/perf-split.prf"

# errors, and what each command says of itself
both bad-report report "$P/truncated.prf"
both bad-check check "$P/truncated.prf"
both bad-missing report /nonexistent.prf
both bad-export-noformat export "$P/perf-split.prf"
both bad-export-format export -f bogus "$P/perf-split.prf"
both bad-merge-one merge "$P/perf-split.prf"
both bad-merge-engines merge -o x.prf "$P/perf-split.prf" "$P/timer-split.prf"
both bad-diff-one diff "$P/perf-split.prf"
i=0
while read -r args; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	both "bad-record-$i" record $args
done <<'EOF'

-F 0 true
-F abc true
-F 20000x true
-i 0 true
-i 2000000 true
-b 0 true
-b 70000 true
-e nope true
--stack-size 10 true
--stack-size 70000 true
--samples 5 true
--samples 1000 -p 1
--no-children --wait-all true
-e timer -p 1
--wall --samples 1000 true
-o /nonexistent/dir/x.prf true
--stack-size
-e
-o nx.prf /nonexistent/program
-p
-p abc
-p 0
-p 999999999
-p 1 true
-o
--bogus true
-q
EOF
# no perf events: auto falls back to the timer engine, and says why
noperf=1
both noperf-auto record -o x.prf /nonexistent/program
both noperf-auto-quiet record -q -o x.prf /nonexistent/program
both noperf-perf record -e perf true
both noperf-attach record -p 1
noperf=
for c in "" help record report export check merge diff archive; do
	both "help-$c" $c --help
done
both version -V

# the builder's profiles of fixed inputs
if grep -q FUZZ_SAVE_PROFILES "$ref/fuzz/fuzz.h" 2>/dev/null; then
	for side in ref new; do
		b=$ref/build
		[ "$side" = new ] && b=$top/build
		for t in perfrec region; do
			d=$W/out/$side/replay-$t
			mkdir -p "$d"
			extra=
			[ "$t" = perfrec ] && extra=$P/perfrec
			FUZZ_SAVE_PROFILES=$d "$b/tests/replay-$t" \
			    "$top/tests/corpus/$t" $extra >"$d.log" 2>&1 ||
			    echo "replay-$t failed ($side): $d.log"
		done
	done
	checks=$((checks + $(ls "$W/out/ref/replay-perfrec" "$W/out/ref/replay-region" | grep -c prf)))
else
	echo "same-output: $sha has no FUZZ_SAVE_PROFILES: the builder's profiles not compared"
fi

# ---- the verdict ---------------------------------------------------------------
differ=$(cd "$W/out" && diff -rq ref new | grep -v '\.log ' |
    sed -e 's|^Files ref/\([^ ]*\) and .* differ$|\1|' -e 's|^Only in |only in |')
if [ -z "$differ" ]; then
	echo "same output: $checks checks"
	exit 0
fi
echo "$differ"
echo "differs: $(echo "$differ" | wc -l) of $checks checks"
exit 1

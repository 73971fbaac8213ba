#!/bin/sh
# run-tests.sh TEST... - run cmocka test programs one after another and
# close with one line CI reads: "N passed, N failed, N skipped", then a
# line for each skipped test with why (the line a test prints before it
# skips: harness_skip's "skipped: WHY", SKIP's "[ REASON   ] WHY" or
# "[ LIMIT    ] WHY"; "no reason given" when none).
# A program that crashes or exits non-zero without a failed test counts
# as one more failure; one that runs past TEST_TIMEOUT seconds (default
# 900; the slowest, test-adversary under TSan, takes a few minutes) is
# killed and counts as one, so a hang fails CI instead of stalling it.
set -u
passed=0 failed=0 skipped=0
limit=${TEST_TIMEOUT:-900}
why=$(mktemp)
for t in "$@"; do
	out=$(mktemp)
	timeout -k 10 "$limit" "$t" >"$out" 2>&1
	rc=$?
	[ "$rc" -eq 124 ] && echo "$t: killed after $limit s" >>"$out"
	cat "$out"
	run=$(grep -c '^\[ RUN      \]' "$out")
	ok=$(grep -c '^\[       OK \]' "$out")
	skip=$(grep '^\[  SKIPPED \] [a-z_]' "$out" | sort -u | wc -l)
	bad=$((run - ok - skip))
	[ "$bad" -lt 0 ] && bad=0
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		echo "$t: exited with status $rc" >&2
		bad=1
	fi
	passed=$((passed + ok)) failed=$((failed + bad)) skipped=$((skipped + skip))
	# each skipped test, with the last reason printed since it started
	awk -v prog="${t##*/}" '
	/^\[ RUN      \] / { test = $4; reason = "" }
	/^skipped: / { reason = substr($0, 10) }
	/^\[ (REASON|LIMIT) +\] / { reason = $0; sub(/^\[ [A-Z]+ +\] /, "", reason) }
	/^\[  SKIPPED \] [a-z_]/ && $4 == test && !(test in said) {
		said[test] = 1
		printf "  skipped %s %s: %s\n", prog, test,
		    reason != "" ? reason : "no reason given"
	}' "$out" >>"$why"
	rm -f "$out"
done
echo "$passed passed, $failed failed, $skipped skipped"
cat "$why"
rm -f "$why"
[ "$failed" -eq 0 ]

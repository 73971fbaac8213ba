#!/bin/sh
# run-tests.sh TEST... - run cmocka test programs one after another and
# close with one line CI reads: "N passed, N failed, N skipped".
# A program that crashes or exits non-zero without a failed test counts
# as one more failure; one that runs past TEST_TIMEOUT seconds (default
# 900; the slowest, test-adversary under TSan, takes a few minutes) is
# killed and counts as one, so a hang fails CI instead of stalling it.
set -u
passed=0 failed=0 skipped=0
limit=${TEST_TIMEOUT:-900}
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
	rm -f "$out"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

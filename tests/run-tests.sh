#!/bin/sh
# run-tests.sh TEST... - run cmocka test programs one after another and
# close with one line CI reads: "N passed, N failed, N skipped".
# A program that crashes or exits non-zero without a failed test counts
# as one more failure.
set -u
passed=0 failed=0 skipped=0
for t in "$@"; do
	out=$(mktemp)
	"$t" >"$out" 2>&1
	rc=$?
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

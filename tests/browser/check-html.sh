#!/bin/sh
# check-html.sh [--time] PAGE.html [SHOT.png] [EXPECT] - run check-html.js
# (with --time, check-html-time.js: the page's timeline), installing its
# one npm dependency (pinned in package.json) beside it on first use.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
check=check-html.js
if [ "${1:-}" = --time ]; then
	check=check-html-time.js
	shift
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
	npm install --prefix "$here" --no-audit --no-fund --silent >/dev/null 2>&1 ||
		{ echo "check-html: npm install failed in $here" >&2; exit 1; }
fi
exec node "$here/$check" "$@"

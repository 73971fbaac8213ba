#!/bin/sh
# check-html.sh [--time] PAGE.html [SHOT.png] [EXPECT] - run check-html.js
# (with --time, check-html-time.js: the page's timeline), installing its
# npm packages (package.json) beside it on first use.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
check=check-html.js
if [ "${1:-}" = --time ]; then
	check=check-html-time.js
	shift
fi
"$here/node-modules.sh"
exec node "$here/$check" "$@"

#!/bin/sh
# check-html.sh PAGE.html [SHOT.png] - run check-html.js, installing its one
# npm dependency (pinned in package.json) beside it on first use.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/playwright-core" ]; then
	npm install --prefix "$here" --no-audit --no-fund --silent >/dev/null 2>&1 ||
		{ echo "check-html: npm install failed in $here" >&2; exit 1; }
fi
exec node "$here/check-html.js" "$@"

#!/bin/sh
# node-modules.sh - the npm packages of package.json (pinned in
# package-lock.json) installed in node_modules beside it, once: after
# that the checks run offline.  One install at a time (flock), as the
# browser tests may start together.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ready() {
	node -e 'for (const d in require(process.argv[1]).dependencies)
		require.resolve(d + "/package.json", { paths: [process.argv[2]] })' \
	    "$here/package.json" "$here" 2>/dev/null
}
ready && exit 0
exec 9>"$here/.npm-install.lock"
flock 9
ready && exit 0
npm ci --prefix "$here" --no-audit --no-fund --silent >/dev/null 2>&1 ||
	{ echo "node-modules: npm ci failed in $here" >&2; exit 1; }

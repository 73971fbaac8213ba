#!/bin/sh
# node-modules.sh - the npm packages of package.json (pinned in
# package-lock.json) installed in node_modules beside it, once: after
# that the checks run offline.  One install at a time (flock), as the
# browser tests may start together.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ready() {	# every package there, at the version pinned
	node -e 'const want = require(process.argv[1]).dependencies;
		for (const d in want)
			if (require(require.resolve(d + "/package.json",
			    { paths: [process.argv[2]] })).version !== want[d])
				process.exit(1);' "$here/package.json" "$here" 2>/dev/null
}
ready && exit 0
exec 9>"$here/.npm-install.lock"
flock 9
ready && exit 0
npm ci --prefix "$here" --no-audit --no-fund --silent >/dev/null 2>&1 ||
	{ echo "node-modules: npm ci failed in $here" >&2; exit 1; }

#!/bin/sh
# check-html.sh PAGE.html [SHOT.png] - run check-html.js, installing its
# npm packages (package.json) beside it on first use.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
"$here/node-modules.sh"
exec node "$here/check-html.js" "$@"

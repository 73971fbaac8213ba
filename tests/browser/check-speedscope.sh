#!/bin/sh
# check-speedscope.sh FILE SHOT [AT...] - run check-speedscope.js,
# installing its npm packages (package.json) beside it on first use.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
"$here/node-modules.sh"
exec node "$here/check-speedscope.js" "$@"

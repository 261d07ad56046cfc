#!/bin/sh
# build.sh: hammer's build step for ticketd-ts (target.yaml). It compiles
# with the TypeScript compiler from node_modules, never one npx would
# download, and says what to do when node_modules is missing.
set -e
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/tsc ]; then
	echo "node_modules is missing: run npm ci in examples/ticketd-ts (or make examples at the repository root) first" >&2
	exit 1
fi
exec node_modules/.bin/tsc

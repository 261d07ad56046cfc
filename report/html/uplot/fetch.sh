#!/bin/sh
# fetch.sh VERSION: re-fetch uPlot VERSION from the npm registry into this
# directory (the minified browser build, its stylesheet and its licence)
# and print the tarball's sha256 for NOTICE.md.
set -eu
version=${1:?usage: fetch.sh VERSION}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent "uplot@$version" >/dev/null
tar xzf "uplot-$version.tgz"
cp package/dist/uPlot.iife.min.js package/dist/uPlot.min.css package/LICENSE "$here/"
sha256sum "uplot-$version.tgz"
npm view "uplot@$version" dist.integrity

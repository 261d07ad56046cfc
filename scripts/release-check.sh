#!/usr/bin/env bash
# release-check.sh: what `make release-check` runs. It proves .goreleaser.yaml
# would ship what docs/install.md promises, without publishing anything:
#   1. `goreleaser check` validates the configuration (deprecated keys fail it);
#   2. a snapshot release builds every target, the archives and checksums.txt
#      into dist/;
#   3. every binary is checked: built with CGO_ENABLED=0, stamped with this
#      commit, statically linked (linux; a darwin binary always links the
#      system's libSystem, which is why CGO_ENABLED=0 is what is checked there),
#      and the one this machine can run prints the commit from `hammer version`.
# goreleaser runs through `go run` at a pinned version: nothing to install, the
# module proxy serves it. Newer goreleaser releases need a newer Go than
# go.mod's; GORELEASER_VERSION overrides the pin.
set -euo pipefail
cd "$(dirname "$0")/.."

GORELEASER_VERSION=${GORELEASER_VERSION:-v2.15.1}
GO=${GO:-go}
goreleaser() { "$GO" run "github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION}" "$@"; }
fail() { echo "release-check: $*" >&2; exit 1; }

# goreleaser reads the commit only when the checkout has a remote: a clone
# without one (a worktree, a copy) would otherwise build a snapshot stamped
# "none". The URL is given for these two commands only, never written.
if [[ -z $(git remote) && -z ${GIT_CONFIG_COUNT:-} ]]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/hammer-load/hammer.git
fi
goreleaser check
goreleaser release --snapshot --clean

head=$(git rev-parse HEAD)
host="$("$GO" env GOOS)_$("$GO" env GOARCH)"
for target in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
  bins=(dist/hammer_"${target}"*/hammer)
  bin=${bins[0]}
  [[ -f $bin ]] || fail "no binary for $target in dist/"
  info=$("$GO" version -m "$bin")
  grep -q $'\tbuild\tCGO_ENABLED=0$' <<<"$info" || fail "$bin was not built with CGO_ENABLED=0"
  # (-trimpath keeps -ldflags out of the build information: look for the string itself.)
  grep -qaF "$head" "$bin" || fail "$bin is not stamped with commit $head"
  linked="CGO_ENABLED=0 (darwin always links libSystem)"
  if [[ $target == linux_* ]]; then
    file "$bin" | grep -q 'statically linked' || fail "$bin is not statically linked: $(file "$bin")"
    linked="statically linked, CGO_ENABLED=0"
  fi
  if [[ $target == "$host" ]]; then
    out=$("$bin" version)
    grep -q "^hammer v.* commit $head date " <<<"$out" || fail "$bin version printed: $out"
    echo "release-check: $bin: $out"
  fi
  echo "release-check: $bin: $linked, commit $head"
done
for target in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
  archives=(dist/hammer_*_"${target}".tar.gz)
  [[ -f ${archives[0]} ]] || fail "no archive for $target in dist/"
  grep -q " ${archives[0]#dist/}$" dist/checksums.txt || fail "dist/checksums.txt lacks ${archives[0]}"
done
(cd dist && sha256sum --quiet -c checksums.txt) || fail "dist/checksums.txt does not match the archives"
echo "release-check: ok: .goreleaser.yaml is valid; 4 binaries without cgo (the linux ones static), 4 archives and their checksums in dist/"

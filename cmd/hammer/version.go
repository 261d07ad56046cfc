package main

import (
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// The build's stamp, set by the linker and nothing else:
//
//	go build -ldflags "-X main.version=v1.2.0 -X main.commit=$(git rev-parse HEAD) -X main.date=…"
//
// (the Makefile's build target and .goreleaser.yaml do this). They are the
// command's only package-level variables because -X can stamp nothing else;
// nothing assigns them at run time. Empty means not stamped: `hammer
// version` then falls back on what the Go toolchain recorded.
var (
	version string
	commit  string
	date    string
)

// unknown is printed for a part of the stamp nobody recorded.
const unknown = "unknown"

// buildStamp is what `hammer version` prints.
type buildStamp struct {
	Version string // a tag, git describe's output, or the module version
	Commit  string // the full commit hash, "-dirty" when the tree was modified
	Date    string // when it was built (stamped) or committed (from VCS); may be ""
	Go      string // the toolchain and target, e.g. "go1.26.8 linux/amd64"
}

// stampOf returns the stamp: the linker's values where set, else the build
// information of the binary (ok false: none), else unknown.
func stampOf(linked buildStamp, info *debug.BuildInfo, ok bool) buildStamp {
	s := linked
	if ok {
		s = withBuildInfo(s, info)
	}
	if s.Version == "" {
		s.Version = unknown
	}
	if s.Commit == "" {
		s.Commit = unknown
	}
	return s
}

// withBuildInfo fills the parts of s the linker left empty from the build
// information: the main module's version (`go install …@v1.2.0`, or since
// Go 1.24 one made from the tag or commit of a git checkout; "(devel)" when
// there was neither) and the vcs.* settings `go build` records in a git
// checkout.
func withBuildInfo(s buildStamp, info *debug.BuildInfo) buildStamp {
	settings := map[string]string{}
	for _, kv := range info.Settings {
		settings[kv.Key] = kv.Value
	}
	if s.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		s.Version = info.Main.Version
	}
	if rev := settings["vcs.revision"]; s.Commit == "" && rev != "" {
		s.Commit = rev
		if settings["vcs.modified"] == "true" {
			s.Commit += "-dirty"
		}
	}
	if s.Date == "" {
		s.Date = settings["vcs.time"]
	}
	return s
}

// String renders the stamp as `hammer version` prints it: one line a
// script can cut on spaces.
func (s buildStamp) String() string {
	line := fmt.Sprintf("hammer %s commit %s", s.Version, s.Commit)
	if s.Date != "" {
		line += " date " + s.Date
	}
	return line + " " + s.Go + "\n"
}

// versionCmd implements `hammer version`: it prints the build's stamp.
func versionCmd(args []string, io stdio) int {
	fs := flag.NewFlagSet("hammer version", flag.ContinueOnError)
	if code, ok := parse(fs, args, io); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(io, "version", "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprint(io.out, thisBuild())
	return exitOK
}

// thisBuild is the stamp of the running binary.
func thisBuild() buildStamp {
	info, ok := debug.ReadBuildInfo()
	s := stampOf(buildStamp{Version: version, Commit: commit, Date: date}, info, ok)
	s.Go = runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	return s
}

// known is a part of the stamp, or "" where it is unknown.
func known(part string) string {
	if part == unknown {
		return ""
	}
	return part
}

// hammerVersion is what a coordinator and its agents must share: the
// version and commit (not the build date, nor the platform: agents may
// run on other architectures).
func hammerVersion() string {
	s := thisBuild()
	return s.Version + " " + s.Commit
}

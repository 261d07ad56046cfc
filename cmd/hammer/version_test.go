package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestVersionMakeBuild builds hammer the way `make build` does and checks
// that `hammer version` prints what git says: git describe's version, the
// full commit hash and a UTC build date of this minute.
func TestVersionMakeBuild(t *testing.T) {
	head := gitOutput(t, "rev-parse", "HEAD")
	describe := gitOutput(t, "describe", "--tags", "--always", "--dirty")
	bin := filepath.Join(t.TempDir(), "hammer")
	cmd := exec.Command("make", "-C", filepath.Join("..", ".."), "build", "BIN="+bin, "GO="+goTool(t))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	got := runBinary(t, bin, "version")
	want := regexp.MustCompile(`^hammer ` + regexp.QuoteMeta(describe) + ` commit ` + head +
		` date (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) ` + regexp.QuoteMeta(runtime.Version()) + ` \S+/\S+\n$`)
	m := want.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("hammer version = %q, want it to match %s", got, want)
	}
	built, err := time.Parse(time.RFC3339, m[1])
	if err != nil || time.Since(built) > 10*time.Minute || time.Until(built) > time.Minute {
		t.Errorf("build date %s (%v), want now in UTC", m[1], err)
	}
}

// TestVersionLinkerFlags stamps arbitrary values with -ldflags -X, as
// .goreleaser.yaml does, and checks they come out verbatim.
func TestVersionLinkerFlags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hammer")
	ldflags := "-X main.version=v9.8.7-rc.1 -X main.commit=0123456789abcdef0123456789abcdef01234567 -X main.date=2031-02-03T04:05:06Z"
	goBuild(t, bin, "-ldflags", ldflags)
	got := runBinary(t, bin, "version")
	want := "hammer v9.8.7-rc.1 commit 0123456789abcdef0123456789abcdef01234567 date 2031-02-03T04:05:06Z " +
		runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if got != want {
		t.Errorf("hammer version = %q, want %q", got, want)
	}
}

// TestVersionFallbackBinary builds hammer without -ldflags but with the
// toolchain's VCS stamping on: the commit comes from the build information
// (vcs.revision, "-dirty" when the tree has changes), and so does the
// version: since Go 1.24 a build in a git checkout records a version made
// from the tag or the commit (v0.0.0-<date>-<hash>, +dirty when modified).
// In a linked git worktree, whose .git is a file, Go records no VCS
// information at all (golang/go#58218): both are then unknown.
func TestVersionFallbackBinary(t *testing.T) {
	top := gitOutput(t, "rev-parse", "--show-toplevel")
	wantVersion, wantCommit := unknown, unknown
	if fi, err := os.Stat(filepath.Join(top, ".git")); err == nil && fi.IsDir() {
		wantVersion = `v\S+`
		wantCommit = gitOutput(t, "rev-parse", "HEAD")
		if gitOutput(t, "status", "--porcelain") != "" {
			wantCommit += "-dirty"
		}
	}
	bin := filepath.Join(t.TempDir(), "hammer")
	goBuild(t, bin, "-buildvcs=true")
	got := runBinary(t, bin, "version")
	want := regexp.MustCompile("^hammer " + wantVersion + " commit " + regexp.QuoteMeta(wantCommit) + " ")
	if !want.MatchString(got) {
		t.Errorf("hammer version = %q, want it to match %s (a worktree nested in another "+
			"checkout gets that checkout's commit from Go, golang/go#58218)", got, want)
	}
}

// TestStampOf covers the fallback on the build information case by case.
func TestStampOf(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name   string
		linked buildStamp
		info   *debug.BuildInfo
		ok     bool
		want   buildStamp
	}{
		{
			name:   "stamped by the linker wins over the build information",
			linked: buildStamp{Version: "v1.0.0", Commit: "aaaa", Date: "2030-01-01T00:00:00Z"},
			info:   &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}, Settings: vcs("vcs.revision", "bbbb", "vcs.time", "2029-01-01T00:00:00Z")},
			ok:     true,
			want:   buildStamp{Version: "v1.0.0", Commit: "aaaa", Date: "2030-01-01T00:00:00Z"},
		},
		{
			name: "go install module@version: the module version, no VCS",
			info: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			ok:   true,
			want: buildStamp{Version: "v1.2.3", Commit: unknown},
		},
		{
			name: "built in a modified checkout",
			info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "cccc", "vcs.modified", "true", "vcs.time", "2028-05-06T07:08:09Z")},
			ok:   true,
			want: buildStamp{Version: unknown, Commit: "cccc-dirty", Date: "2028-05-06T07:08:09Z"},
		},
		{
			name: "built in a clean checkout",
			info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "dddd", "vcs.modified", "false")},
			ok:   true,
			want: buildStamp{Version: unknown, Commit: "dddd"},
		},
		{
			name:   "only the version stamped",
			linked: buildStamp{Version: "v2.0.0"},
			info:   &debug.BuildInfo{Settings: vcs("vcs.revision", "eeee")},
			ok:     true,
			want:   buildStamp{Version: "v2.0.0", Commit: "eeee"},
		},
		{
			name: "no build information at all",
			want: buildStamp{Version: unknown, Commit: unknown},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stampOf(tt.linked, tt.info, tt.ok); got != tt.want {
				t.Errorf("stampOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestVersionCommand runs `hammer version` in-process (this test binary is
// not stamped) and checks help lists it and it refuses arguments.
func TestVersionCommand(t *testing.T) {
	code, stdout, stderr := hammer(t, "version")
	if code != exitOK || !regexp.MustCompile(`^hammer \S+ commit \S+ .*go1\S* \S+/\S+\n$`).MatchString(stdout) {
		t.Errorf("hammer version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := hammer(t, "version", "extra"); code != exitUsage || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Errorf("hammer version extra: exit %d, stderr %q; want %d and the argument named", code, stderr, exitUsage)
	}
	if _, stdout, _ := hammer(t, "help"); !strings.Contains(stdout, "\n  hammer version ") {
		t.Errorf("hammer help does not list version:\n%s", stdout)
	}
}

// gitOutput runs git in the repository and returns its trimmed output;
// outside a git checkout there is nothing to compare with and the test skips.
func gitOutput(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", filepath.Join("..", "..")}, args...)...).Output()
	if err != nil {
		t.Skipf("not a git checkout (git %s: %v)", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// goTool returns the go command of the toolchain running the tests.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no go command: %v", err)
	}
	return p
}

// goBuild builds this package into bin with the given build flags.
func goBuild(t *testing.T, bin string, flags ...string) {
	t.Helper()
	args := append(append([]string{"build"}, flags...), "-o", bin, ".")
	if out, err := exec.Command(goTool(t), args...).CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// runBinary runs a built hammer and returns its stdout.
func runBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	return string(out)
}

//go:build release

// The tests of shipping hammer: builds stamped as `make build`, the
// linker flags and the Action do. They build hammer from scratch (a
// minute and more on a cold cache) and read the commit checked out, so
// they run in `make test-release`, not in `make test`.

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReleaseMakeBuild builds hammer the way `make build` does and checks
// that `hammer version` prints what git says: git describe's version, the
// full commit hash and a UTC build date of this minute.
func TestReleaseMakeBuild(t *testing.T) {
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

// TestReleaseLinkerFlags stamps arbitrary values with -ldflags -X, as
// .goreleaser.yaml does, and checks they come out verbatim, in `hammer
// version` and in a results folder's manifest.
func TestReleaseLinkerFlags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hammer")
	ldflags := "-X main.version=v9.8.7-rc.1 -X main.commit=0123456789abcdef0123456789abcdef01234567 -X main.date=2031-02-03T04:05:06Z"
	goBuild(t, bin, "-ldflags", ldflags)
	got := runBinary(t, bin, "version")
	want := "hammer v9.8.7-rc.1 commit 0123456789abcdef0123456789abcdef01234567 date 2031-02-03T04:05:06Z " +
		runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if got != want {
		t.Errorf("hammer version = %q, want %q", got, want)
	}
	// The results folder says which build made it.
	dir := filepath.Join(t.TempDir(), "out")
	race := exec.Command(bin, append([]string{"run", "--mode", "update-only", "--procs", "1", "--goroutines", "4",
		"--seats", "3", "--quiet", "--out", dir}, stackArgs(t)...)...)
	if out, err := race.CombinedOutput(); err != nil {
		t.Fatalf("a race of the stamped build: %v\n%s", err, out)
	}
	if env := readSummary(t, dir).Env; env.Hammer != "v9.8.7-rc.1" || env.Revision != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("the folder's hammer is %q at %q, want the stamp's v9.8.7-rc.1 at 0123456789abcdef0123456789abcdef01234567",
			env.Hammer, env.Revision)
	}
}

// TestReleaseFallbackBinary builds hammer without -ldflags but with the
// toolchain's VCS stamping on: the commit comes from the build information
// (vcs.revision, "-dirty" when the tree has changes), and so does the
// version: since Go 1.24 a build in a git checkout records a version made
// from the tag or the commit (v0.0.0-<date>-<hash>, +dirty when modified).
// In a linked git worktree, whose .git is a file, Go records no VCS
// information at all (golang/go#58218): both are then unknown.
func TestReleaseFallbackBinary(t *testing.T) {
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

// goBuild builds this package into bin with the given build flags.
func goBuild(t *testing.T, bin string, flags ...string) {
	t.Helper()
	args := append(append([]string{"build"}, flags...), "-o", bin, ".")
	if out, err := exec.Command(goTool(t), args...).CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestReleaseActionBuild runs the action's build step on this repository as
// the action's checkout: the binary it puts on GITHUB_PATH prints the
// action's ref as its version and this commit.
func TestReleaseActionBuild(t *testing.T) {
	a, _ := loadAction(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	temp, ghPath := t.TempDir(), filepath.Join(t.TempDir(), "path")
	r := actionRunner{
		t: t, work: t.TempDir(), path: filepath.Dir(goTool(t)) + ":" + os.Getenv("PATH"),
		ctx:     map[string]string{"github.action_ref": "v9.9.9"},
		summary: filepath.Join(t.TempDir(), "summary.md"),
		env:     []string{"GITHUB_ACTION_PATH=" + root, "RUNNER_TEMP=" + temp, "GITHUB_PATH=" + ghPath},
	}
	r.step(a, "Build hammer", 0)
	dir, err := os.ReadFile(ghPath)
	if err != nil {
		t.Fatal(err)
	}
	got := runBinary(t, filepath.Join(strings.TrimSpace(string(dir)), "hammer"), "version")
	if want := "hammer v9.9.9 commit " + gitOutput(t, "rev-parse", "HEAD") + " date "; !strings.HasPrefix(got, want) {
		t.Errorf("the action's hammer says %q, want it to start with %q", got, want)
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

// runBinary runs a built hammer and returns its stdout.
func runBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	return string(out)
}

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
)

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

// TestHelpCommand: `hammer help run` prints what `hammer run -h` does,
// exit 0; an unknown command or a second argument is a usage error.
func TestHelpCommand(t *testing.T) {
	code, stdout, _ := hammer(t, "help", "run")
	_, want, _ := hammer(t, "run", "-h")
	if code != exitOK || stdout != want || !strings.Contains(stdout, "-mode") {
		t.Errorf("hammer help run: exit %d, stdout %q; want %q", code, stdout, want)
	}
	for _, args := range [][]string{{"help", "nope"}, {"help", "run", "gate"}, {"help", "--markdown", "run"}} {
		if code, _, stderr := hammer(t, args...); code != exitUsage || strings.Count(stderr, "\n") != 1 {
			t.Errorf("hammer %s: exit %d, stderr %q; want %d and one line", strings.Join(args, " "), code, stderr, exitUsage)
		}
	}
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

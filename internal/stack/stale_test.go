package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run true: %v", err)
	}
	return cmd.Process.Pid
}

// stackDir returns a setup that makes a directory at path holding marker
// (none if nil).
func stackDir(marker []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if marker == nil {
			return
		}
		if err := os.WriteFile(filepath.Join(path, ownerFile), marker, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSweepStale(t *testing.T) {
	self, err := currentOwner()
	if err != nil {
		t.Fatal(err)
	}
	dead := deadPid(t)
	stale := dirOwner{pid: dead, start: self.start, pidNS: self.pidNS}.marshal()
	recycled := dirOwner{pid: self.pid, start: self.start + 1, pidNS: self.pidNS}.marshal()
	elsewhere := dirOwner{pid: dead, start: self.start, pidNS: "pid:[1]"}.marshal()
	tests := []struct {
		name     string
		entry    string // name in the swept directory
		setup    func(t *testing.T, path string)
		rootOnly bool
		wantWhy  string // reason logged for the removal; "" = kept, nothing logged
	}{
		{name: "dead owner", entry: "hammer-stack-1", setup: stackDir(stale),
			wantWhy: fmt.Sprintf("owner pid %d is gone", dead)},
		{name: "recycled pid", entry: "hammer-stack-2", setup: stackDir(recycled),
			wantWhy: fmt.Sprintf("owner pid %d is gone; the pid now belongs to another process", self.pid)},
		{name: "live owner", entry: "hammer-stack-3", setup: stackDir(self.marshal())},
		{name: "no marker", entry: "hammer-stack-4", setup: stackDir(nil)},
		{name: "other name", entry: "hammer-stacks", setup: stackDir(stale)},
		{name: "malformed marker", entry: "hammer-stack-5", setup: stackDir([]byte("pid 4242\nstart soon\n"))},
		{name: "owner in another pid namespace", entry: "hammer-stack-6", setup: stackDir(elsewhere)},
		{name: "marker of another user", entry: "hammer-stack-7", setup: foreignMarker(stale), rootOnly: true},
		{name: "marker is a symlink", entry: "hammer-stack-8", setup: symlinkedMarker(stale)},
		{name: "symlink to a stale dir", entry: "hammer-stack-9", setup: symlinkedDir(stale)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && os.Geteuid() != 0 {
				t.Skip("needs root to give the marker to another user")
			}
			parent := t.TempDir()
			path := filepath.Join(parent, tt.entry)
			tt.setup(t, path)
			var log strings.Builder
			sweepStale(parent, &log)

			_, err := os.Lstat(path)
			if gone := errors.Is(err, os.ErrNotExist); gone != (tt.wantWhy != "") {
				t.Errorf("%s removed = %v (lstat: %v), want %v", tt.entry, gone, err, tt.wantWhy != "")
			}
			want := ""
			if tt.wantWhy != "" {
				want = fmt.Sprintf("removed stale stack directory %s (%s)\n", path, tt.wantWhy)
			}
			if got := log.String(); got != want {
				t.Errorf("log = %q, want %q", got, want)
			}
		})
	}
}

// foreignMarker returns a setup like stackDir whose marker belongs to
// nobody (uid 65534): another account wrote it.
func foreignMarker(marker []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		stackDir(marker)(t, path)
		if err := os.Chown(filepath.Join(path, ownerFile), 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
}

// symlinkedMarker returns a setup that makes a directory at path whose
// marker is a symlink to a file holding marker.
func symlinkedMarker(marker []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		stackDir(nil)(t, path)
		target := filepath.Join(t.TempDir(), "marker")
		if err := os.WriteFile(target, marker, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(path, ownerFile)); err != nil {
			t.Fatal(err)
		}
	}
}

// symlinkedDir returns a setup that makes path a symlink to a directory
// holding marker, and checks at cleanup that the directory survived.
func symlinkedDir(marker []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		target := filepath.Join(t.TempDir(), "hammer-stack-target")
		stackDir(marker)(t, target)
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if _, err := os.Stat(filepath.Join(target, ownerFile)); err != nil {
				t.Errorf("the sweep reached through a symlink: %v", err)
			}
		})
	}
}

func TestParseOwner(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    dirOwner
		wantErr bool
	}{
		{name: "written by marshal", in: string(dirOwner{pid: 42, start: 7, pidNS: "pid:[9]"}.marshal()),
			want: dirOwner{pid: 42, start: 7, pidNS: "pid:[9]"}},
		{name: "empty", in: "", wantErr: true},
		{name: "no start", in: "pid 42\npidns pid:[9]\n", wantErr: true},
		{name: "no pid namespace", in: "pid 42\nstart 7\n", wantErr: true},
		{name: "pid zero names a process group", in: "pid 0\nstart 7\npidns pid:[9]\n", wantErr: true},
		{name: "negative pid", in: "pid -42\nstart 7\npidns pid:[9]\n", wantErr: true},
		{name: "pid beyond pid_t", in: "pid 4294967338\nstart 7\npidns pid:[9]\n", wantErr: true},
		{name: "garbage", in: "PGDATA\x00\x01", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOwner([]byte(tt.in))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseOwner(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseStartTime(t *testing.T) {
	// Fields 3 to 21, then 22 = 777 and a few more.
	rest := "S 1 2 3 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 777 3133440 382"
	tests := []struct {
		name    string
		stat    string
		want    uint64
		wantErr bool
	}{
		{name: "plain", stat: "4242 (hammer) " + rest, want: 777},
		{name: "name with spaces and parens", stat: "4242 (a) b (c d) " + rest, want: 777},
		{name: "truncated", stat: "4242 (hammer) S 1 2 3", wantErr: true},
		{name: "no name", stat: "4242 hammer", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStartTime([]byte(tt.stat))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseStartTime(%q) = %d, %v; want %d, error %v", tt.stat, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestStaleDirRemovedOnNextStart reproduces issue 7: a hammer killed with
// SIGKILL leaves its Local stack directory behind; the next Local stack
// removes it, says so, and works. Not parallel: it sets TMPDIR.
func TestStaleDirRemovedOnNextStart(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (10.0s in a -short run): skipped by -short (make test runs it)")
	}
	requireLocalBins(t)
	// A private TMPDIR keeps this test's sweeps away from other stacks and
	// other sweeps (other test binaries) away from this test's directory.
	parent := privateTempDir(t)
	t.Setenv("TMPDIR", parent)
	c := startChild(t)
	if filepath.Dir(c.dir) != parent {
		t.Fatalf("child's stack directory %s, want it in %s", c.dir, parent)
	}
	var log strings.Builder
	sweepStale(parent, &log)
	if _, err := os.Stat(c.dir); err != nil || log.Len() > 0 {
		t.Fatalf("sweep while the child runs: stat %v, log %q; want the directory kept and no log", err, log.String())
	}
	pid := c.cmd.Process.Pid
	if err := c.kill(); err != nil {
		t.Fatal(err)
	}
	if err := waitNoProcsIn(c.dir); err != nil {
		t.Fatal(err)
	}
	if o, err := readOwner(c.dir); err != nil || o.pid != pid {
		t.Fatalf("after SIGKILL: marker of %s = %+v, %v; want it left behind naming pid %d", c.dir, o, err, pid)
	}

	log.Reset()
	s, err := Start(context.Background(), Options{Kind: Local, Log: io.MultiWriter(&log, testLog{t})})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := os.Stat(c.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale directory %s after the next Start: stat %v, want it removed", c.dir, err)
	}
	want := fmt.Sprintf("removed stale stack directory %s (owner pid %d is gone)\n", c.dir, pid)
	if !strings.Contains(log.String(), want) {
		t.Errorf("Start log lacks %q:\n%s", want, log.String())
	}
	checkPG(t, s.PGURL)
	checkRedis(t, s.RedisURL)
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// privateTempDir makes a directory for stacks that the PostgreSQL account
// can enter when hammer runs as root, and removes it at cleanup.
func privateTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hammer-stale-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkRedis checks that the Redis the URL names answers PING.
func checkRedis(t *testing.T, url string) {
	t.Helper()
	opts, err := redisOptions(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := pingRedis(ctx, opts); err != nil {
		t.Errorf("PING %s: %v", url, err)
	}
}

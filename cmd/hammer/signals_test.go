package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// startHammer starts this test binary as the hammer command with args, in
// a process group of its own (as a shell starts a job), and returns it
// with its stdout and stderr.
func startHammer(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	return startHammerTo(t, &stdout, &stderr, args...), &stdout, &stderr
}

// startHammerTo is startHammer writing to stdout and stderr.
func startHammerTo(t *testing.T, stdout, stderr io.Writer, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envTestMain+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	return cmd
}

// watched is a stderr that closes seen once what it was written contains
// want.
type watched struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

// newWatched is a stderr that watches for want.
func newWatched(want string) *watched { return &watched{want: want, seen: make(chan struct{})} }

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	select {
	case <-w.seen:
	default:
		if strings.Contains(w.buf.String(), w.want) {
			close(w.seen)
		}
	}
	return len(p), nil
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// children returns the pids and states ("R", "S", "T" …) of parent's child
// processes.
func children(parent int) map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so cut at the last ')'.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			out[pid] = fields[0]
		}
	}
	return out
}

// waitFor polls cond every 20 ms for up to limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("gave up waiting for %s after %s", what, limit)
}

// exitCode waits for cmd and returns its exit code and how long that took.
func exitCode(t *testing.T, cmd *exec.Cmd) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	err := cmd.Wait()
	took := time.Since(start)
	if err == nil {
		return 0, took
	}
	exit, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatal(err)
	}
	return exit.ExitCode(), took
}

// TestStopSignals: SIGINT and SIGHUP (a closed terminal), as SIGTERM, while a
// worker is held in SIGSTOP by the pause-stop fault, with a 10 s TTL (so
// 30 s of pause): hammer stops every worker, saves the folder marked
// interrupted and exits 3 within 2 s, no worker left.
func TestStopSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd, stdout, stderr := startHammer(t, append([]string{"run", "--mode", "lock-only", "--fault", "pause-stop",
				"--lock-ttl", "10s", "--procs", "2", "--goroutines", "20", "--seats", "20", "--quiet", "--out", out}, stackArgs(t)...)...)
			pid := cmd.Process.Pid
			var workers map[int]string
			waitFor(t, 30*time.Second, "a worker stopped by the fault", func() bool {
				workers = children(pid)
				return anyIn(workers, "T")
			})
			_ = syscall.Kill(-pid, sig) // the whole job, as a terminal does
			code, took := exitCode(t, cmd)
			if code != exitInfra {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitInfra, stdout, stderr)
			}
			if took > 2*time.Second {
				t.Errorf("took %s to exit after %s, want 2 s at most, not a wait for the 30 s pause", took, sig)
			}
			for w := range workers {
				if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(w))); err == nil {
					t.Errorf("worker %d outlived hammer", w)
				}
			}
			f, err := folder.Load(out)
			if err != nil {
				t.Fatalf("the interrupted run left no readable folder: %v", err)
			}
			if len(f.Manifest.Runs) != 1 || !strings.Contains(strings.Join(f.Manifest.Runs[0].Incomplete, "; "), "interrupted") {
				t.Errorf("the folder is not marked interrupted: %+v", f.Manifest.Runs)
			}
		})
	}
}

// TestSecondInterruptExitsAtOnce: a second Ctrl-C does not wait for the
// clean-up the first one started. Redis is frozen just before the first,
// so that the clean-up waits on it for seconds: the second comes oneStop
// later, a request of its own, while the first's clean-up still runs.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	st := stacktest.Private(t)
	_, redisPid := stacktest.FreezableRedis(t, st.RedisURL)
	out := filepath.Join(t.TempDir(), "out")
	stderr := newWatched("stopping the race")
	cmd := startHammerTo(t, io.Discard, stderr, "run", "--mode", "lock-only", "--fault", "pause-stop",
		"--lock-ttl", "10s", "--procs", "2", "--goroutines", "20", "--seats", "20", "--quiet", "--out", out,
		"--stack", "external", "--redis-url", st.RedisURL, "--pg-url", st.PGURL)
	pid := cmd.Process.Pid
	waitFor(t, 30*time.Second, "a worker stopped by the fault", func() bool { return anyIn(children(pid), "T") })
	_ = syscall.Kill(redisPid, syscall.SIGSTOP)
	_ = syscall.Kill(pid, syscall.SIGINT)
	select {
	case <-stderr.seen:
	case <-time.After(10 * time.Second):
		t.Fatalf("hammer did not say it was stopping after an interrupt; stderr %q", stderr)
	}
	time.Sleep(oneStop) // a second request, not the first delivered twice
	_ = syscall.Kill(pid, syscall.SIGINT)
	code, took := exitCode(t, cmd)
	if code != exitInfra || !strings.Contains(stderr.String(), "exiting at once") {
		t.Errorf("exit %d, stderr %q; want %d and 'exiting at once'", code, stderr, exitInfra)
	}
	if took > 2*time.Second {
		t.Errorf("took %s to exit after the second interrupt", took)
	}
}

// TestOneStopDeliveredTwice: timeout(1) sends its signal to hammer and then
// to hammer's process group, so one request arrives twice within
// microseconds (here 2 ms, so that the two are seldom merged into one on
// the way, and far inside oneStop on a busy host): hammer still cleans up
// and saves the folder, rather than take the second for an impatient
// "exit at once".
func TestOneStopDeliveredTwice(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stdout bytes.Buffer
	stderr := newWatched("stopping the race")
	cmd := startHammerTo(t, &stdout, stderr, append([]string{"run", "--mode", "lock-only", "--fault", "pause-stop",
		"--lock-ttl", "10s", "--procs", "2", "--goroutines", "20", "--seats", "20", "--quiet", "--out", out}, stackArgs(t)...)...)
	pid := cmd.Process.Pid
	waitFor(t, 30*time.Second, "a worker stopped by the fault", func() bool { return anyIn(children(pid), "T") })
	_ = syscall.Kill(pid, syscall.SIGTERM)
	time.Sleep(2 * time.Millisecond)
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	code, _ := exitCode(t, cmd)
	if code != exitInfra || strings.Contains(stderr.String(), "exiting at once") {
		t.Errorf("exit %d, stderr %q; want %d after a clean-up", code, stderr, exitInfra)
	}
	f, err := folder.Load(out)
	if err != nil {
		t.Fatalf("no readable folder after one stop delivered twice: %v", err)
	}
	if len(f.Manifest.Runs) != 1 || !strings.Contains(strings.Join(f.Manifest.Runs[0].Incomplete, "; "), "interrupted") {
		t.Errorf("the folder is not marked interrupted: %+v", f.Manifest.Runs)
	}
}

// anyIn reports whether any process in states is in state s.
func anyIn(states map[int]string, s string) bool {
	for _, st := range states {
		if st == s {
			return true
		}
	}
	return false
}

// TestClosedOutput: hammer whose reader went away before its first line
// (hammer run 2>&1 | head -0) still races, cleans up and exits with its
// verdict's code, instead of dying of SIGPIPE (exit 141) with the run's
// schema left behind.
func TestClosedOutput(t *testing.T) {
	st := stacktest.Get(t)
	dir := filepath.Join(t.TempDir(), "out")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "run", "--mode", "update-only", "--procs", "1", "--goroutines", "10", "--seats", "5",
		"--stack", "external", "--redis-url", st.RedisURL, "--pg-url", st.PGURL, "--out", dir)
	cmd.Env = append(os.Environ(), envTestMain+"=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // nobody reads: every write to w fails
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	code, _ := exitCode(t, cmd)
	if code != exitOK {
		t.Errorf("exit %d with nobody reading its output, want %d (the race's verdict)", code, exitOK)
	}
	if left := leftoversOf(t, st, readSummary(t, dir).RunID); left != "" {
		t.Errorf("the run left %s", left)
	}
}

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/latency"
)

// testToken is the shared token of the agent tests.
const testToken = "agents-test-token-0123456789"

// proc is a hammer process of a test, its stderr read line by line as it
// comes.
type proc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	more  chan struct{} // signalled on every new line
	ended chan struct{} // closed once the process was reaped
	code  int
}

// startProc starts this test binary as hammer with args, token in its
// environment.
func startProc(t *testing.T, token string, args ...string) *proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return launch(t, exec.Command(exe, args...), envTestMain+"=1", envToken+"="+token)
}

// launch starts cmd with env added to this process's, in a process group
// of its own (killed when the test ends), reading its stderr.
func launch(t *testing.T, cmd *exec.Cmd, env ...string) *proc {
	t.Helper()
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, more: make(chan struct{}, 1), ended: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
		}
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.ended)
	}()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-p.ended })
	return p
}

// stderr is what the process wrote on stderr so far.
func (p *proc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// await waits for a stderr line matching re and returns its submatches.
func (p *proc) await(t *testing.T, re *regexp.Regexp, limit time.Duration) []string {
	t.Helper()
	deadline := time.After(limit)
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if m := re.FindStringSubmatch(l); m != nil {
				p.mu.Unlock()
				return m
			}
		}
		p.mu.Unlock()
		select {
		case <-p.more:
		case <-p.ended:
			if m := re.FindStringSubmatch(p.stderr()); m != nil {
				return m
			}
			t.Fatalf("exited %d without a line matching %q; stderr:\n%s", p.code, re, p.stderr())
		case <-deadline:
			t.Fatalf("no line matching %q within %s; stderr:\n%s", re, limit, p.stderr())
		}
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.ended:
		return p.code
	case <-time.After(limit):
		t.Fatalf("still running after %s; stderr:\n%s", limit, p.stderr())
		return -1
	}
}

var (
	waitingRe  = regexp.MustCompile(`waiting for \d+ agents? on (\S+)`)
	progressRe = regexp.MustCompile(`: ([1-9]\d*)/\d+ attempts`)
)

// coordinate starts a coordinator with args and three agents joining it,
// and returns them once every agent joined.
func coordinate(t *testing.T, args ...string) (*proc, []*proc) {
	t.Helper()
	coord := startProc(t, testToken, args...)
	addr := coord.await(t, waitingRe, time.Minute)[1]
	var agents []*proc
	for range 3 {
		agents = append(agents, startProc(t, testToken, "agent", "--join", addr))
	}
	coord.await(t, regexp.MustCompile(`3 of 3`), time.Minute)
	return coord, agents
}

// TestAgentsRace: a coordinator and three agents race as one: an agent
// with a wrong token is refused and the others go on, the race sells
// exactly the seats, every agent's clock is reported (in the results: the
// race is --quiet), the merged latency
// histograms are exactly those of every attempt recorded, and the agents
// leave once the coordinator is done.
func TestAgentsRace(t *testing.T) {
	t.Parallel() // processes and sockets of its own; the shared stack by run id
	dir := filepath.Join(t.TempDir(), "out")
	args := append([]string{"run", "--mode", "lock-plus-update", "--agents", "3", "--listen", "127.0.0.1:0",
		"--goroutines", "40", "--seats", "100", "--quiet", "--out", dir}, stackArgs(t)...)
	coord := startProc(t, testToken, args...)
	addr := coord.await(t, waitingRe, time.Minute)[1]
	intruder := startProc(t, "not-the-token-0123456789", "agent", "--join", addr)
	if code := intruder.wait(t, 10*time.Second); code != exitUsage || !strings.Contains(intruder.stderr(), "wrong token") {
		t.Fatalf("agent with a wrong token: exit %d, want %d, saying wrong token; stderr:\n%s", code, exitUsage, intruder.stderr())
	}
	var agents []*proc
	for range 3 {
		agents = append(agents, startProc(t, testToken, "agent", "--join", addr))
	}
	if code := coord.wait(t, 2*time.Minute); code != exitOK {
		t.Fatalf("coordinator exit %d, want 0; stderr:\n%s", code, coord.stderr())
	}
	for i, a := range agents {
		if code := a.wait(t, 5*time.Second); code != exitOK {
			t.Errorf("agent %d exit %d, want 0; stderr:\n%s", i, code, a.stderr())
		}
	}
	if log := coord.stderr(); !strings.Contains(log, "refused an agent from 127.0.0.1:") || strings.Contains(log, testToken) {
		t.Errorf("the coordinator should log the refusal and never the token:\n%s", log)
	}
	// --quiet leaves out each agent's joining and its clock, not where
	// to join nor a refusal.
	if log := coord.stderr(); strings.Contains(log, "joined from") || strings.Contains(log, "clock reads") {
		t.Errorf("with --quiet the coordinator printed the agents' joining:\n%s", log)
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if b, rerr := os.ReadFile(path); err == nil && !d.IsDir() && rerr == nil && bytes.Contains(b, []byte(testToken)) {
			t.Errorf("%s holds the token", path)
		}
		return nil
	})
	r := readSummary(t, dir).Runs[0]
	if r.Verdict != "valid" || r.Sold != 100 || len(r.Agents) != 3 {
		t.Fatalf("verdict %s, sold %d, %d agents; want valid, 100, 3", r.Verdict, r.Sold, len(r.Agents))
	}
	// The three agents give this host's name: their workers share its CPUs.
	if most := (runtime.NumCPU() + 2) / 3; os.Getenv("GOMAXPROCS") == "" && (r.WorkerGoMaxProcs < 1 || r.WorkerGoMaxProcs > most) {
		t.Errorf("the agents' workers raced with GOMAXPROCS %d, want 1 to %d (%d CPUs shared by 3)", r.WorkerGoMaxProcs, most, runtime.NumCPU())
	}
	for _, a := range r.Agents {
		if a.RTTMs <= 0 || a.FirstStartMs == nil || a.StartSkewMs == nil || a.UncertaintyMs > 50 {
			t.Errorf("agent %d: round trip %v ms, offset ±%v ms, first start %v: want all measured", a.Index, a.RTTMs, a.UncertaintyMs, a.FirstStartMs)
		}
	}
	f, err := folder.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := latency.NewSet()
	attempts := f.Run(r.Name).Records.Attempts
	for _, a := range attempts {
		want.Observe(a)
	}
	want.ObserveHandoffs(attempts)
	got, _ := f.Latency.Encode()
	fed, _ := want.Encode()
	if !reflect.DeepEqual(got, fed) {
		t.Errorf("the merged histograms differ from one fed every attempt recorded")
	}
}

// TestAgentLost: an agent killed, or stopped so that it answers nothing,
// in the middle of a race makes the run unknown (exit 3), naming it,
// within 5 seconds.
func TestAgentLost(t *testing.T) {
	t.Parallel() // processes and sockets of its own; the shared stack by run id
	for _, tt := range []struct {
		name string
		sig  syscall.Signal
		says string
	}{
		{"killed", syscall.SIGKILL, "(?:closed|reset) the connection"},
		{"silent", syscall.SIGSTOP, "sent nothing for 3s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "out")
			// The open model keeps the race going for its duration, sold out or not.
			coord, agents := coordinate(t, append([]string{"run", "--mode", "update-only", "--agents", "3", "--listen", "127.0.0.1:0",
				"--rate", "1000", "--duration", "5s", "--seats", "300", "--out", dir}, stackArgs(t)...)...)
			coord.await(t, progressRe, time.Minute)
			struck := time.Now()
			if err := agents[1].cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = agents[1].cmd.Process.Signal(syscall.SIGCONT) }()
			if code := coord.wait(t, time.Minute); code != exitInfra {
				t.Fatalf("coordinator exit %d, want %d; stderr:\n%s", code, exitInfra, coord.stderr())
			}
			r := readSummary(t, dir).Runs[0]
			why := strings.Join(r.Undetermined, "; ")
			m := regexp.MustCompile(`agent \d+ \(.*\) ` + tt.says + ` at \+(\S+);`).FindStringSubmatch(why)
			if r.Verdict != "unknown" || m == nil {
				t.Fatalf("verdict %s (%s): want unknown, naming the agent that %s", r.Verdict, why, tt.says)
			}
			at, err := time.ParseDuration(m[1])
			if err != nil {
				t.Fatal(err)
			}
			goAt := time.Unix(0, goNs(t, dir))
			if took := goAt.Add(at).Sub(struck); took > 5*time.Second {
				t.Errorf("the loss was noticed %s after the agent was struck, want within 5s", took)
			}
		})
	}
}

// TestAgentsProcessFault: pause-stop on agents' workers stops and resumes
// them through their agents, each signal answered, and the run stays
// valid with every strike recorded as done on the agent's worker.
func TestAgentsProcessFault(t *testing.T) {
	t.Parallel() // processes and sockets of its own; the shared stack by run id
	dir := filepath.Join(t.TempDir(), "out")
	coord, _ := coordinate(t, append([]string{"run", "--mode", "update-only", "--fault", "pause-stop", "--agents", "3",
		"--listen", "127.0.0.1:0", "--goroutines", "20", "--seats", "100", "--out", dir}, stackArgs(t)...)...)
	if code := coord.wait(t, 2*time.Minute); code != exitOK {
		t.Fatalf("coordinator exit %d, want 0; stderr:\n%s", code, coord.stderr())
	}
	if r := readSummary(t, dir).Runs[0]; r.Verdict != "valid" {
		t.Fatalf("verdict %s (%s), want valid", r.Verdict, strings.Join(r.Undetermined, "; "))
	}
	f, err := folder.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	faults := f.Faults
	struck := regexp.MustCompile(`^SIGSTOP of worker \d on agent \d \(.*\) \(pid \d+\) .*, SIGCONT 1\.5s later$`)
	if len(faults) == 0 {
		t.Fatal("no fault recorded")
	}
	for _, e := range faults {
		if !struck.MatchString(e.Detail) {
			t.Errorf("fault %q: want a SIGSTOP and SIGCONT of a worker on an agent", e.Detail)
		}
	}
}

// goNs is the go signal of the only run in dir.
func goNs(t *testing.T, dir string) int64 {
	t.Helper()
	f, err := folder.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return f.Manifest.Runs[0].GoAt
}

// TestCoordinatorLost: when the coordinator dies in the middle of a race,
// every agent exits within 5 seconds (exit 3) and takes its worker with it.
func TestCoordinatorLost(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (4.9s in a -short run): skipped by -short (make test runs it)")
	}
	t.Parallel() // processes and sockets of its own; the shared stack by run id
	coord, agents := coordinate(t, "run", "--mode", "update-only", "--agents", "3", "--listen", "127.0.0.1:0",
		"--rate", "1000", "--duration", "5s", "--seats", "300", "--stack", "local", "--out", filepath.Join(t.TempDir(), "out"))
	coord.await(t, progressRe, time.Minute)
	var workers []int
	for _, a := range agents {
		for pid := range children(a.cmd.Process.Pid) {
			workers = append(workers, pid)
		}
	}
	if len(workers) != 3 {
		t.Fatalf("found %d worker processes under the agents, want 3", len(workers))
	}
	if err := coord.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for i, a := range agents {
		if code := a.wait(t, 5*time.Second); code != exitInfra || !strings.Contains(a.stderr(), "lost the coordinator") {
			t.Errorf("agent %d: exit %d, want %d saying it lost the coordinator; stderr:\n%s", i, code, exitInfra, a.stderr())
		}
	}
	for _, pid := range workers {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(b), ") Z ") {
			t.Errorf("worker %d outlived its agent: %s", pid, b)
		}
	}
}

// TestListenPortInUse: an agents' port already taken is refused in one
// line, exit 2, before any server of a local stack is started.
func TestListenPortInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	p := startProc(t, testToken, "run", "--mode", "lock-only", "--agents", "1", "--listen", taken.Addr().String(),
		"--stack", "local", "--out", filepath.Join(t.TempDir(), "out"))
	code := p.wait(t, time.Minute)
	stderr := p.stderr()
	if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--listen: listen tcp "+taken.Addr().String()) {
		t.Errorf("exit %d, stderr %q; want %d and one line naming the port, before any server starts", code, stderr, exitUsage)
	}
}

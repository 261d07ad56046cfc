package replicas

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/procstat"
)

// pyServer is a replica that serves files on $PORT: a real process that
// answers HTTP, as a user's service would.
func pyServer(t *testing.T) Spec {
	t.Helper()
	return Spec{
		Dir:          t.TempDir(),
		Command:      []string{"sh", "-c", `exec python3 -m http.server "$PORT" --bind 127.0.0.1`},
		Env:          func(i, port int) []string { return []string{fmt.Sprintf("PORT=%d", port)} },
		Ready:        "/",
		ReadyTimeout: 10 * time.Second,
		PortEnv:      "PORT",
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestStartSignalRestartStop(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (1.5s in a -short run): skipped by -short (make test runs it)")
	}
	s, err := Start(context.Background(), pyServer(t), 2)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	for _, u := range s.URLs() {
		resp, err := http.Get(u + "/")
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		resp.Body.Close()
	}
	if _, err := s.Signal(0, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Signal(0, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	s.Killed(1)
	pid, err := s.Signal(1, syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(context.Background(), 1); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if got := s.Deaths(); len(got) != 0 {
		t.Errorf("Deaths = %v after a kill on purpose, want none", got)
	}
	if alive(pid) {
		t.Errorf("killed pid %d still alive", pid)
	}
	// A death hammer did not cause is reported.
	victim, _ := s.Signal(0, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for len(s.Deaths()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.Deaths(); len(got) != 1 || !strings.Contains(got[0], fmt.Sprintf("replica 0 (pid %d)", victim)) {
		t.Errorf("Deaths = %v, want replica 0 (pid %d) named", got, victim)
	}
	pids := []int{s.rs[0].pid(), s.rs[1].pid()}
	s.Stop()
	for _, p := range pids {
		if alive(p) {
			t.Errorf("pid %d alive after Stop", p)
		}
	}
}

// TestStartFailures: each way a replica can fail to get ready is told,
// and only those that are the service's own, which no wait or retry mends,
// match ErrService: exiting with a status, or answering on a port of its
// own (told at once, not after the ready timeout).
func TestStartFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (1.0s in a -short run): skipped by -short (make test runs it)")
	}
	// A port of its own for each case that takes one: the cases run side
	// by side.
	var own [4]int
	for i := range own {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		own[i] = port
	}
	ownPort := func(i int) []string {
		return []string{"sh", "-c", fmt.Sprintf(`exec python3 -m http.server %d --bind 127.0.0.1`, own[i])}
	}
	tests := []struct {
		name     string
		command  []string
		ready    string
		timeout  time.Duration
		replicas int
		want     string
		service  bool
	}{
		{"exits at once", []string{"sh", "-c", "echo 'listen: address in use' >&2; exit 3"}, "/", time.Second, 2,
			"exit status 3 before it was ready: listen: address in use", true},
		{"killed by a signal", []string{"sh", "-c", "kill -KILL $$"}, "/", time.Second, 2, "signal: killed before it was ready", false},
		// What a shell or npm reports of a child a signal ended.
		{"exits with a signal's status", []string{"sh", "-c", "exit 137"}, "/", time.Second, 2, "exit status 137 before it was ready", false},
		{"never ready", []string{"sleep", "30"}, "/", time.Second, 2, "not ready within ready_timeout 1s (GET /: no answer)", false},
		{"no such command", []string{"/nonexistent/ticketd"}, "/", time.Second, 2, "start replica 0", false},
		{"ready on a port of its own", ownPort(0), "/", time.Minute, 1,
			fmt.Sprintf("replica 0 (sh) answers GET / on port %d, not on port ", own[0]), true},
		{"ready on a port of its own, told", ownPort(3), "/", time.Minute, 1,
			" that hammer gave it in PORT: the service must listen on the port in PORT", true},
		// The one of two that wins the port is told, whichever it is, not
		// the other's refused bind.
		{"two ready on a port of their own", ownPort(1), "/", time.Minute, 2,
			fmt.Sprintf(") answers GET / on port %d, not on port ", own[1]), true},
		{"ready path not served", pyServer(t).Command, "/nothing-here", time.Minute, 1,
			"replica 0 (sh) answers its ready path, GET /nothing-here, with status 404, not 200", true},
		{"not ready, on a port of its own", ownPort(2), "/nothing-here", time.Second, 1,
			fmt.Sprintf("GET /nothing-here: no answer; it listens on port %d)", own[2]), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := pyServer(t)
			spec.Command, spec.Ready, spec.ReadyTimeout = tt.command, tt.ready, tt.timeout
			start := time.Now()
			s, err := Start(context.Background(), spec, tt.replicas)
			if err == nil {
				s.Stop()
				t.Fatal("Start succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
			if errors.Is(err, ErrService) != tt.service {
				t.Errorf("errors.Is(%q, ErrService) = %t, want %t", err, !tt.service, tt.service)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Errorf("took %s to fail", d)
			}
		})
	}
}

func TestMain(m *testing.M) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		fmt.Fprintln(os.Stderr, "replicas tests need python3 (a stand-in HTTP service)")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestPortTakenMeanwhile: a replica that finds the port picked for it
// taken (another process bound it after hammer picked it) is started again
// on another port.
func TestPortTakenMeanwhile(t *testing.T) {
	spec := pyServer(t)
	spec.Command = []string{"sh", "-c", `if [ ! -e taken ]; then touch taken; echo 'OSError: [Errno 98] Address already in use' >&2; exit 1; fi
exec python3 -m http.server "$PORT" --bind 127.0.0.1`}
	s, err := Start(context.Background(), spec, 1)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer s.Stop()
	resp, err := http.Get(s.URLs()[0] + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestStopEndsWhatLeftTheGroup: a process a replica starts in a session
// of its own (setsid), which a signal to the replica's group misses, is
// ended with the replica.
func TestStopEndsWhatLeftTheGroup(t *testing.T) {
	spec := pyServer(t)
	spec.Command = []string{"sh", "-c", `setsid sleep 300 & exec python3 -m http.server "$PORT" --bind 127.0.0.1`}
	s, err := Start(context.Background(), spec, 1)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	var stray procstat.Proc
	for _, p := range procstat.Descendants(s.rs[0].pid()) {
		if p.PGRP != s.rs[0].pid() {
			stray = p
		}
	}
	if stray.PID == 0 {
		s.Stop()
		t.Fatal("no process of the replica's in a group of its own: the test did not set one up")
	}
	s.Stop()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p, ok := procstat.Of(stray.PID)
		if !ok || p.Start != stray.Start || p.State == "Z" {
			return // gone, or a zombie its new parent has yet to reap
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(stray.PID, syscall.SIGKILL)
			t.Fatalf("pid %d, started by the replica in a session of its own, outlived Stop", stray.PID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

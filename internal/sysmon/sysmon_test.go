package sysmon

import (
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestEnv(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"no GODEBUG", []string{"A=1"}, []string{"A=1", "GODEBUG=" + Setting}},
		{"empty GODEBUG", []string{"GODEBUG="}, []string{"GODEBUG=" + Setting}},
		{"other settings kept", []string{"GODEBUG=gctrace=1", "B=2"}, []string{"GODEBUG=gctrace=1," + Setting, "B=2"}},
		{"the user's schedtrace wins", []string{"GODEBUG=gctrace=1,schedtrace=0"}, []string{"GODEBUG=gctrace=1,schedtrace=0"}},
		{"a key the runtime does not read", []string{"GODEBUG= schedtrace=0"}, []string{"GODEBUG= schedtrace=0," + Setting}},
		{"the last GODEBUG counts", []string{"GODEBUG=schedtrace=0", "GODEBUG=x=1"}, []string{"GODEBUG=schedtrace=0", "GODEBUG=x=1," + Setting}},
		{"a name that only ends in GODEBUG", []string{"MYGODEBUG=schedtrace=5"}, []string{"MYGODEBUG=schedtrace=5", "GODEBUG=" + Setting}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.env)
			if got := Env(in); !slices.Equal(got, tt.want) {
				t.Errorf("Env(%q) = %q, want %q", tt.env, got, tt.want)
			}
			if !slices.Equal(in, tt.env) {
				t.Errorf("Env changed its argument to %q", in)
			}
		})
	}
}

// echoEnv names the socket a child started by switches echoes on.
const echoEnv = "HAMMER_SYSMON_ECHO"

// echoRounds is how many bytes the child echoes, each after an idle wait
// long enough for its monitor to fall asleep without the setting.
const (
	echoRounds = 1000
	echoGap    = 300 * time.Microsecond
)

// TestEcho is the child of TestKeepsMonitorAwake, a worker in small: one
// P, one connection, idle until the next byte comes.
func TestEcho(t *testing.T) {
	path := os.Getenv(echoEnv)
	if path == "" {
		t.Skip("the child of TestKeepsMonitorAwake")
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := make([]byte, 1)
	for range echoRounds {
		if _, err := c.Read(b); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
	}
}

// switches runs TestEcho as a child with env and returns the context
// switches its threads made.
func switches(t *testing.T, env []string) int64 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "echo.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// A child that never dials or stops echoing fails the test, not hangs it.
	deadline := time.Now().Add(time.Minute)
	if err := ln.SetDeadline(deadline); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEcho$", "-test.count=1")
	cmd.Env = slices.Concat(env, []string{echoEnv + "=" + path, "GOMAXPROCS=1"})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(deadline); err != nil {
		t.Fatal(err)
	}
	b := []byte{1}
	for range echoRounds {
		time.Sleep(echoGap)
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("echo child: %v", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return ru.Nvcsw + ru.Nivcsw
}

// With the setting, a process that idles and wakes echoRounds times makes
// far fewer context switches: its monitor no longer sleeps and wakes with
// it. This fails if a Go release stops honouring the setting that way.
func TestKeepsMonitorAwake(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (2.6s in a -short run): skipped by -short (make test runs it)")
	}
	if os.Getenv(echoEnv) != "" {
		t.Skip("in the child")
	}
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			base = append(base, kv)
		}
	}
	without, with := switches(t, base), switches(t, Env(base))
	t.Logf("%d echoes: %d context switches without %s, %d with", echoRounds, without, Setting, with)
	if with*3 > without*2 {
		t.Errorf("%d context switches with %s against %d without: want at most two thirds", with, Setting, without)
	}
}

// Pollable puts a blocking pipe in Go's poller (a read deadline can be set
// only there) and still reads it; a regular file and a pipe already in the
// poller come back as they are.
func TestPollable(t *testing.T) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer w.Close()
	if err := r.SetReadDeadline(time.Now().Add(time.Minute)); !errors.Is(err, os.ErrNoDeadline) {
		t.Fatalf("a blocking pipe took a deadline (%v): the test cannot tell", err)
	}
	pr := Pollable(r)
	defer pr.Close()
	if pr == r {
		t.Fatal("a blocking pipe came back as it was")
	}
	if err := pr.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Errorf("the pipe is not in the poller: %v", err)
	}
	if _, err := w.WriteString("hello"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got, err := io.ReadAll(pr); string(got) != "hello" || err != nil {
		t.Errorf("read %q, %v; want %q", got, err, "hello")
	}

	polled, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer polled.Close()
	defer w2.Close()
	if got := Pollable(polled); got != polled {
		t.Error("a pipe already in the poller was opened again")
	}
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if got := Pollable(file); got != file {
		t.Error("a regular file was changed")
	}
}

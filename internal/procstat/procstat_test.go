package procstat

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestParse: a command name with spaces and parentheses does not shift
// the fields after it; a line cut short is no process.
func TestParse(t *testing.T) {
	p, ok := parse(42, "42 (a (b) c) T 7 9 9 0 -1")
	if !ok || p != (Proc{PID: 42, PPID: 7, PGRP: 9, State: "T"}) {
		t.Errorf("parse = %+v, %v", p, ok)
	}
	full := "42 (sleep) S 7 9 9 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 123456 1000 10"
	if p, ok := parse(42, full); !ok || p.Start != 123456 {
		t.Errorf("parse(%q) = %+v, %v; want start 123456", full, p, ok)
	}
	for _, bad := range []string{"", "42 (x", "42 (x) S 7", "42 (x) S y 9"} {
		if _, ok := parse(42, bad); ok {
			t.Errorf("parse(%q) read a process", bad)
		}
	}
}

// TestOfAndEach: this test's own process reads with its parent and group,
// and Each finds it.
func TestOfAndEach(t *testing.T) {
	self, ok := Of(os.Getpid())
	if !ok || self.PPID != os.Getppid() || self.PGRP != syscall.Getpgrp() || self.State != "R" && self.State != "S" {
		t.Fatalf("Of(self) = %+v, %v", self, ok)
	}
	found := false
	Each(func(p Proc) { found = found || p == self || p.PID == self.PID })
	if !found {
		t.Error("Each did not find this process")
	}
	if self.Start == 0 || !Same(self) {
		t.Errorf("Of(self) start %d, Same %v: want a start time that reads the same again", self.Start, Same(self))
	}
	if other := (Proc{PID: self.PID, Start: self.Start + 1}); Same(other) {
		t.Error("Same took a process of another start time for this one")
	}
}

// TestDescendants finds a child and its own child, also one that moved
// to a session of its own, and not this process itself.
func TestDescendants(t *testing.T) {
	// sh starts a grandchild in a new session (setsid) and waits.
	cmd := exec.Command("sh", "-c", "setsid sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, p := range Descendants(cmd.Process.Pid) {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var pids []int
		moved := false
		for _, p := range Descendants(os.Getpid()) {
			pids = append(pids, p.PID)
			moved = moved || p.PPID != os.Getpid() && p.PGRP != syscall.Getpgrp()
		}
		if slices.Contains(pids, os.Getpid()) {
			t.Fatalf("Descendants(self) holds self: %v", pids)
		}
		if slices.Contains(pids, cmd.Process.Pid) && moved {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Descendants(self) = %v: want sh (%d) and its grandchild in a session of its own", pids, cmd.Process.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package procstat

import (
	"os"
	"syscall"
	"testing"
)

// TestParse: a command name with spaces and parentheses does not shift
// the fields after it; a line cut short is no process.
func TestParse(t *testing.T) {
	p, ok := parse(42, "42 (a (b) c) T 7 9 9 0 -1")
	if !ok || p != (Proc{PID: 42, PPID: 7, PGRP: 9, State: "T"}) {
		t.Errorf("parse = %+v, %v", p, ok)
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
}

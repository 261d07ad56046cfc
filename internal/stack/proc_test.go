package stack

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/procstat"
)

// TestStopThawsAFrozenProcess: a server process someone stopped (SIGSTOP),
// with a stopped child in a process group of its own as PostgreSQL's
// backends have, is resumed before it is asked to exit: it acts on the
// first signal at once instead of taking every grace period and SIGKILL,
// and its child is not left stopped.
func TestStopThawsAFrozenProcess(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The child leads its own group (setsid, as a postgres backend does)
	// and exits when its parent is gone.
	script := `setsid sh -c 'while kill -0 $PPID 2>/dev/null; do sleep 0.05; done' & trap 'exit 0' TERM; sleep 1000 & wait`
	p, err := startProc(procSpec{name: "frozen", path: sh, args: []string{"-c", script}, dir: dir,
		logPath: filepath.Join(dir, "log"), deathSig: syscall.SIGKILL})
	if err != nil {
		t.Fatal(err)
	}
	leader := 0 // the child that leads a process group of its own
	deadline := time.Now().Add(5 * time.Second)
	for leader == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		for _, kid := range procstat.Children(p.pid()) {
			if pgid, err := syscall.Getpgid(kid.PID); err == nil && pgid == kid.PID {
				leader = kid.PID
			}
		}
	}
	if leader == 0 {
		t.Fatal("the process started no child in a group of its own")
	}
	for _, pid := range []int{p.pid(), leader} {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if err := p.stop(5*time.Second, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("stopping a frozen process took %s, want it to act on SIGTERM at once, not after its 5 s grace", took)
	}
	if state := procState(leader); state == "T" {
		t.Errorf("the frozen process's child %d is still stopped", leader)
		_ = syscall.Kill(leader, syscall.SIGKILL)
	}
}

// procState is the state letter of process pid ("" once it is gone).
func procState(pid int) string {
	p, _ := procstat.Of(pid)
	return p.State
}

package childproc

import (
	"bufio"
	"io"
	"os/exec"
	"syscall"
	"testing"

	"github.com/hammer-load/hammer/internal/sysmon"
)

// TestStartWorker: a line written to the child comes back on its stdout,
// the end of its stderr is kept, and it is started with SIGKILL as its
// parent-death signal and the worker's GODEBUG setting.
func TestStartWorker(t *testing.T) {
	t.Setenv("GODEBUG", "")
	p, err := StartWorker(exec.Command("sh", "-c", `read x; echo "got $x $GODEBUG"; echo "first" >&2; echo "last words" >&2`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p.Stdin, "hello\n"); err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	line, err := bufio.NewReader(p.Stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if want := "got hello " + sysmon.Setting + "\n"; line != want {
		t.Errorf("stdout %q, want %q", line, want)
	}
	if got := p.Stderr.Last(); got != "last words" {
		t.Errorf("stderr's last line %q, want %q", got, "last words")
	}
	if got := p.Cmd.SysProcAttr.Pdeathsig; got != syscall.SIGKILL {
		t.Errorf("parent-death signal %v, want SIGKILL", got)
	}
}

// TestStartWorkerFails: a command that cannot start is an error.
func TestStartWorkerFails(t *testing.T) {
	if _, err := StartWorker(exec.Command("/nonexistent/worker")); err == nil {
		t.Error("a missing binary started")
	}
}

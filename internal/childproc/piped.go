package childproc

import (
	"io"
	"os/exec"
	"syscall"

	"github.com/hammer-load/hammer/internal/sysmon"
	"github.com/hammer-load/hammer/internal/tail"
)

// stderrTail is how much of a piped child's stderr is kept for messages.
const stderrTail = 4096

// Piped is a child that talks over pipes, as a hammer worker does: lines in
// on Stdin, lines out on Stdout, and the end of its stderr kept in Stderr.
type Piped struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stdout io.Reader
	Stderr *tail.Buffer
}

// StartWorker starts cmd, a hammer worker process, with its stdin and
// stdout piped, the last bytes of its stderr kept, SIGKILL as its
// parent-death signal where the system has one (Linux: a killed parent
// leaves no such child), and the worker's GODEBUG setting added to its
// environment (sysmon.Env). The caller owns the pipes and must Wait.
func StartWorker(cmd *exec.Cmd) (Piped, error) {
	cmd.SysProcAttr = Attr(false, syscall.SIGKILL)
	cmd.Env = sysmon.Env(cmd.Environ())
	p := Piped{Cmd: cmd, Stderr: tail.New(stderrTail)}
	cmd.Stderr = p.Stderr
	var err error
	if p.Stdin, err = cmd.StdinPipe(); err == nil {
		p.Stdout, err = cmd.StdoutPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	return p, err
}

package stack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/internal/childproc"
	"github.com/hammer-load/hammer/internal/procstat"
)

// errExited reports that a server process ended while hammer waited for it.
var errExited = errors.New("exited")

const (
	// logTailLines is how many lines of a server log an error quotes.
	logTailLines = 5
	// logLineMax is how many bytes of each such line it quotes.
	logLineMax = 160
)

// procSpec describes a server process to start.
type procSpec struct {
	name     string // for messages, e.g. "redis-server"
	path     string
	args     []string
	dir      string         // working directory
	logPath  string         // stdout and stderr are appended here
	owner    *osUser        // run as this user; nil = as hammer's user
	deathSig syscall.Signal // sent to the server if hammer dies
}

// proc is a started server process.
type proc struct {
	spec    procSpec
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process has exited and been reaped
	waitErr error         // the exit status; read only after done is closed
}

// command builds the exec.Cmd for s: own process group (a terminal's ^C
// does not reach it), killed with s.deathSig when hammer's thread dies, and
// run as s.owner when set.
func (s procSpec) command(logFile *os.File) *exec.Cmd {
	cmd := exec.Command(s.path, s.args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childproc.Attr(true, s.deathSig)
	if s.owner != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: s.owner.uid, Gid: s.owner.gid}
	}
	return cmd
}

// startProc starts the process of s; a goroutine reaps it when it exits.
func startProc(s procSpec) (*proc, error) {
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", s.name, err)
	}
	defer logFile.Close() // the child holds its own copy
	p := &proc{spec: s, cmd: s.command(logFile), done: make(chan struct{})}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", s.name, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// runProc runs s to completion, e.g. initdb, killing it on timeout or when
// ctx ends.
func runProc(ctx context.Context, s procSpec, timeout time.Duration) error {
	p, err := startProc(s)
	if err != nil {
		return err
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		_ = p.kill()
		return fmt.Errorf("%s: %w", s.name, ctx.Err())
	case <-time.After(timeout):
		_ = p.kill()
		return fmt.Errorf("%s did not finish within %s%s", s.name, timeout, p.tail())
	}
	if p.waitErr != nil {
		return fmt.Errorf("%s failed (%v)%s", s.name, p.waitErr, p.tail())
	}
	return nil
}

// pid is the process id, also the id of its process group.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exitErr describes the process's early exit, quoting its log.
func (p *proc) exitErr() error {
	<-p.done
	status := "exit status 0"
	if p.waitErr != nil {
		status = p.waitErr.Error()
	}
	return fmt.Errorf("%s exited before it was ready (%s)%s", p.spec.name, status, p.tail())
}

// tail returns "; log <path> ends: <last lines>", or "" if the log is empty.
func (p *proc) tail() string {
	lines := logTail(p.spec.logPath, logTailLines)
	if lines == "" {
		return ""
	}
	return fmt.Sprintf("; log %s ends: %s", p.spec.logPath, lines)
}

// stop asks the process to exit with each of sigs in turn, waiting up to
// grace after each, then kills its process group. It returns an error only
// if the process survives SIGKILL.
func (p *proc) stop(grace time.Duration, sigs ...syscall.Signal) error {
	p.thaw()
	for _, sig := range sigs {
		_ = p.cmd.Process.Signal(sig) // fails only if it already exited
		select {
		case <-p.done:
			return nil
		case <-time.After(grace):
		}
	}
	return p.kill()
}

// killWait bounds how long kill waits for a killed process to be gone. No
// process survives SIGKILL, but one in an uninterruptible sleep (a
// postgres writing to a disk the host keeps busy) only dies when it
// leaves it, and then its exit (freeing PostgreSQL's shared memory) takes
// CPU time: beside busy loops on 2 cores, 5 s was once not enough. The
// error is for a process that truly hangs (a kernel or NFS fault).
const killWait = 30 * time.Second

// kill sends SIGKILL to the process group and waits for the process.
func (p *proc) kill() error {
	_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("%s (pid %d) survived SIGKILL", p.spec.name, p.pid())
	}
}

// logTail returns the last n non-empty lines of the file at path joined
// with " | ", or "" if it cannot be read.
func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(bytes.TrimSpace(data)), "\n")
	var kept []string
	for i := len(lines) - 1; i >= 0 && len(kept) < n; i-- {
		l := strings.TrimSpace(lines[i])
		if len(l) > logLineMax {
			l = l[:logLineMax] + "..."
		}
		if l != "" {
			kept = append([]string{l}, kept...)
		}
	}
	return strings.Join(kept, " | ")
}

// thaw resumes the process, its group and each of its children's groups,
// in case something stopped them (SIGSTOP, as a test of a frozen server
// does): a stopped process does not act on the signals stop sends, so a
// frozen PostgreSQL took each of its grace periods in full before it was
// killed, and its stopped children outlived it. A process that runs is
// not affected.
func (p *proc) thaw() {
	select {
	case <-p.done:
		return // reaped: its pid may be another process's now
	default:
	}
	pid := p.pid()
	_ = syscall.Kill(-pid, syscall.SIGCONT)
	for _, child := range procstat.Children(pid) {
		_ = syscall.Kill(-child.PID, syscall.SIGCONT)
		_ = syscall.Kill(child.PID, syscall.SIGCONT)
	}
}

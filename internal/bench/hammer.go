package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/internal/childproc"
)

// hammerGrace is how long a hammer that was asked to stop (SIGTERM: it
// kills its workers, removes its schema and keys) may take before it is
// killed.
const hammerGrace = 15 * time.Second

// hammerRun is one `hammer run` against the bench's servers.
type hammerRun struct {
	// name names the results folder (under the bench's temp dir) and
	// progress lines.
	name string
	// args follow `hammer run`; the stack, URLs, --out and --quiet are
	// added.
	args []string
	// watch, if set, is called with hammer's pid once it started; the
	// stop it returns is called once hammer has exited.
	watch func(pid int) (stop func())
	// inspect, if set, looks at hammer's results folder before the folder
	// is removed.
	inspect func(dir string)
}

// hammerResult is what a hammer run left.
type hammerResult struct {
	exit int
	// run is nil when hammer wrote no summary.json (a usage error).
	run *RunFigures
	// lastErr is the last line hammer printed on stderr.
	lastErr string
}

// why says in one line why a run does not count.
func (r hammerResult) why() string {
	switch {
	case r.run != nil && len(r.run.Undetermined) > 0:
		return fmt.Sprintf("exit %d, verdict %s: %s", r.exit, r.run.Verdict, strings.Join(r.run.Undetermined, "; "))
	case r.run != nil:
		return fmt.Sprintf("exit %d, verdict %s", r.exit, r.run.Verdict)
	case r.lastErr != "":
		return fmt.Sprintf("exit %d: %s", r.exit, r.lastErr)
	}
	return fmt.Sprintf("exit %d", r.exit)
}

// hammer runs hammer once, reads its summary.json and removes its results
// folder. An error means hammer could not be run or its folder not read;
// an exit code other than 0 is the caller's to judge.
func (b *Bench) hammer(ctx context.Context, h hammerRun) (hammerResult, error) {
	out := filepath.Join(b.tmp, h.name)
	defer os.RemoveAll(out)
	args := append([]string{"run", "--stack", "external", "--redis-url", b.stack.RedisURL,
		"--pg-url", b.stack.PGURL, "--out", out, "--quiet"}, h.args...)
	cmd := exec.CommandContext(ctx, b.cfg.Hammer, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	// Its own process group: a terminal's Ctrl-C reaches the bench only,
	// which then asks hammer once to stop and clean up.
	cmd.SysProcAttr = childproc.Attr(true, syscall.SIGKILL)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = hammerGrace
	if err := cmd.Start(); err != nil {
		return hammerResult{}, fmt.Errorf("start hammer: %w", err)
	}
	stop := func() {}
	if h.watch != nil {
		stop = h.watch(cmd.Process.Pid)
	}
	err := cmd.Wait()
	stop()
	res := hammerResult{exit: cmd.ProcessState.ExitCode(), lastErr: lastLine(stderr.String())}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, fmt.Errorf("hammer: %w", err)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if h.inspect != nil {
		h.inspect(out)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("hammer %s: %w", h.name, err)
	}
	run, err := ParseSummary(data)
	if err != nil {
		return res, fmt.Errorf("hammer %s: %w", h.name, err)
	}
	res.run = &run
	return res, nil
}

// hammerRace runs hammer and insists that it exited 0 with a valid
// verdict and sold exactly want seats.
func (b *Bench) hammerRace(ctx context.Context, h hammerRun, want int) (RunFigures, error) {
	res, err := b.hammer(ctx, h)
	switch {
	case err != nil:
		return RunFigures{}, err
	case res.exit != 0 || res.run == nil:
		return RunFigures{}, fmt.Errorf("hammer %s: %s", h.name, res.why())
	}
	if err := res.run.Check(want); err != nil {
		return RunFigures{}, fmt.Errorf("hammer %s: %w", h.name, err)
	}
	return *res.run, nil
}

// sizeArgs are the flags of procs × goroutines contenders.
func sizeArgs(procs, goroutines int) []string {
	return []string{"--procs", strconv.Itoa(procs), "--goroutines", strconv.Itoa(goroutines)}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

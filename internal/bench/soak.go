package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/internal/childproc"
)

// The soak (--soak D): hammer's open model at soakRate requests a second
// for D against the bench's servers, its memory sampled every soakEvery,
// then the size of its results folder and how long `hammer verify` takes
// on it. It shows whether hammer's memory stays flat over a long run.
const (
	soakRate  = 1000
	soakEvery = time.Minute
)

// soakSample is the resident memory of hammer's processes at one moment.
type soakSample struct {
	at                   time.Duration // since the soak began
	coordinator, workers int64         // bytes
	procs                int           // worker processes seen
}

// Soak is what the soak measured.
type Soak struct {
	Duration time.Duration
	Samples  []soakSample
	Exit     int
	Verdict  string
	// FolderBytes is the size of the results folder, Attempts the records
	// its history holds.
	FolderBytes int64
	Attempts    int
	// Verify is how long `hammer verify` of the folder took, VerifyExit
	// its exit code.
	Verify     time.Duration
	VerifyExit int
}

// soak runs the soak; an error means it could not be measured.
func (b *Bench) soak(ctx context.Context) (Soak, error) {
	s := Soak{Duration: b.cfg.Soak}
	out := filepath.Join(b.tmp, "soak")
	defer os.RemoveAll(out)
	args := []string{"run", "--stack", "external", "--redis-url", b.stack.RedisURL, "--pg-url", b.stack.PGURL,
		"--out", out, "--quiet", "--mode", "lock-plus-update", "--rate", strconv.Itoa(soakRate),
		"--duration", b.cfg.Soak.String(), "--timeout", (b.cfg.Soak + 5*time.Minute).String()}
	cmd := exec.CommandContext(ctx, b.cfg.Hammer, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = childproc.Attr(true, syscall.SIGKILL)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = hammerGrace
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return s, fmt.Errorf("start hammer: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(soakEvery)
	defer tick.Stop()
	var err error
	for waiting := true; waiting; {
		select {
		case <-tick.C:
			s.Samples = append(s.Samples, sampleTree(cmd.Process.Pid, time.Since(began)))
			fmt.Fprintf(b.log, "soak: %s of %s\n", time.Since(began).Round(time.Second), b.cfg.Soak)
		case err = <-done:
			waiting = false
		}
	}
	s.Exit = cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		return s, ctx.Err()
	}
	if data, rerr := os.ReadFile(filepath.Join(out, "summary.json")); rerr == nil {
		if run, perr := ParseSummary(data); perr == nil {
			s.Verdict = run.Verdict
		}
	} else if err != nil {
		return s, fmt.Errorf("hammer: %v: %s", err, lastLine(stderr.String()))
	}
	s.FolderBytes, s.Attempts = folderSize(out)
	start := time.Now()
	verify := exec.CommandContext(ctx, b.cfg.Hammer, "verify", out)
	verify.Stdout, verify.Stderr = io.Discard, io.Discard
	verr := verify.Run()
	s.Verify, s.VerifyExit = time.Since(start), verify.ProcessState.ExitCode()
	if verr != nil && s.VerifyExit < 0 {
		return s, fmt.Errorf("hammer verify: %w", verr)
	}
	return s, nil
}

// sampleTree reads the resident memory (VmRSS) of root, the coordinator,
// and of every process below it now.
func sampleTree(root int, at time.Duration) soakSample {
	s := soakSample{at: at}
	for _, pid := range descendants(root) {
		rss, ok := readStatusKB(pid, "VmRSS:")
		switch {
		case !ok:
		case pid == root:
			s.coordinator = rss
		default:
			s.workers += rss
			s.procs++
		}
	}
	return s
}

// readStatusKB reads the field of /proc/<pid>/status named key, in bytes.
func readStatusKB(pid int, key string) (int64, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024, err == nil
			}
		}
	}
	return 0, false
}

// folderSize is the bytes of every file under dir and the lines (one
// record each) of its history.jsonl.
func folderSize(dir string) (size int64, attempts int) {
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, ierr := d.Info(); ierr == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	if b, err := os.ReadFile(filepath.Join(dir, "history.jsonl")); err == nil {
		attempts = bytes.Count(b, []byte{'\n'})
	}
	return size, attempts
}

// renderSoak prints the soak's section: its memory each sample, with a bar
// for the whole of it, then the folder and its verification.
func renderSoak(w io.Writer, s Soak) {
	fmt.Fprintf(w, "\n## Soak\n\n`hammer run --mode lock-plus-update --rate %d --duration %s`: exit %d, verdict %s. Resident memory of hammer's processes, sampled every %s:\n\n",
		soakRate, s.Duration, s.Exit, orNA(s.Verdict), soakEvery)
	var most int64
	for _, x := range s.Samples {
		most = max(most, x.coordinator+x.workers)
	}
	fmt.Fprintf(w, "| at | coordinator | workers | all | |\n|---|---|---|---|---|\n")
	for _, x := range s.Samples {
		all := x.coordinator + x.workers
		bar := 0
		if most > 0 {
			bar = int(40 * all / most)
		}
		fmt.Fprintf(w, "| %s | %s | %s (%d) | %s | %s |\n", x.at.Round(time.Second), mib(float64(x.coordinator)),
			mib(float64(x.workers)), x.procs, mib(float64(all)), strings.Repeat("█", bar))
	}
	perAttempt := 0.0
	if s.Attempts > 0 {
		perAttempt = float64(s.FolderBytes) / float64(s.Attempts)
	}
	fmt.Fprintf(w, "\nResults folder: %.1f MB for %d attempts (%.0f bytes each); `hammer verify` of it: %s, exit %d.\n",
		float64(s.FolderBytes)/1e6, s.Attempts, perAttempt, s.Verify.Round(100*time.Millisecond), s.VerifyExit)
}

// orNA is s, or "n/a" when empty.
func orNA(s string) string {
	if s == "" {
		return "n/a"
	}
	return s
}

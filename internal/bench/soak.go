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
	"time"
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
	args := []string{"--mode", "lock-plus-update", "--rate", strconv.Itoa(soakRate),
		"--duration", b.cfg.Soak.String(), "--timeout", (b.cfg.Soak + 5*time.Minute).String()}
	var verifyErr error
	inspect := func(dir string) {
		s.FolderBytes, s.Attempts = folderSize(dir)
		start := time.Now()
		verify := exec.CommandContext(ctx, b.cfg.Hammer, "verify", dir)
		verifyErr = verify.Run()
		s.Verify, s.VerifyExit = time.Since(start), verify.ProcessState.ExitCode()
	}
	res, err := b.hammer(ctx, hammerRun{name: "soak", args: args, watch: b.sampleEach(&s.Samples), inspect: inspect})
	switch {
	case err != nil:
		return s, err
	case verifyErr != nil && s.VerifyExit < 0:
		return s, fmt.Errorf("hammer verify: %w", verifyErr)
	case res.run == nil:
		return s, fmt.Errorf("hammer soak: %s", res.why())
	}
	s.Exit, s.Verdict = res.exit, res.run.Verdict
	return s, nil
}

// sampleEach is a hammerRun.watch that samples hammer's process tree
// every soakEvery into samples until it is stopped.
func (b *Bench) sampleEach(samples *[]soakSample) func(pid int) (stop func()) {
	return func(pid int) func() {
		quit, done := make(chan struct{}), make(chan struct{})
		began := time.Now()
		go func() {
			defer close(done)
			tick := time.NewTicker(soakEvery)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					*samples = append(*samples, sampleTree(pid, time.Since(began)))
					fmt.Fprintf(b.log, "soak: %s of %s\n", time.Since(began).Round(time.Second), b.cfg.Soak)
				case <-quit:
					return
				}
			}
		}()
		return func() { close(quit); <-done }
	}
}

// sampleTree reads the resident memory (VmRSS) of root, the coordinator,
// and of every process below it now.
func sampleTree(root int, at time.Duration) soakSample {
	s := soakSample{at: at}
	for _, pid := range descendants(root) {
		rss, ok := readStatus(pid, "VmRSS:")
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
	if f, err := os.Open(filepath.Join(dir, "history.jsonl")); err == nil {
		attempts = countLines(f)
		f.Close()
	}
	return size, attempts
}

// countLines counts the newlines r holds, a buffer at a time: a soak's
// history is hundreds of megabytes.
func countLines(r io.Reader) int {
	buf := make([]byte, 256<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return n
		}
	}
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

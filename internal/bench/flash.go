package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The flash sale: flashProcs × flashGoroutines contenders of
// lock-plus-update on one host, and beside it its anchor, the start of as
// many goroutines behind one channel close in one process (this binary
// started with GoStartArg), each stamping its start: the least start skew
// any Go program of that size has here.
const (
	flashProcs      = 8
	flashGoroutines = 12500
	flashContenders = flashProcs * flashGoroutines
)

// GoStartArg, as the first argument, makes hammer-bench the anchor of the
// flash sale's start (GoStart).
const GoStartArg = "go-start"

// goStartSettle is how long the anchor waits, once every goroutine said it
// is about to wait, for the last of them to block.
const goStartSettle = 100 * time.Millisecond

// goStartReport is what the anchor process writes: how many goroutines it
// started and the spread of their stamps.
type goStartReport struct {
	Goroutines int   `json:"goroutines"`
	SkewNs     int64 `json:"skew_ns"`
}

// GoStart is the body of the anchor process: it starts the number of
// goroutines args[0] says, each blocked on one channel, closes it, and
// writes the latest stamp less the earliest to out as a goStartReport. It
// returns the process's exit code.
func GoStart(args []string, out, errs io.Writer) int {
	n := 0
	if len(args) == 1 {
		n, _ = strconv.Atoi(args[0])
	}
	if n < 1 {
		fmt.Fprintf(errs, "hammer-bench %s: want one goroutine count, got %q\n", GoStartArg, args)
		return 2
	}
	stamps := make([]int64, n)
	open := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-open
			stamps[i] = time.Now().UnixNano()
		}()
	}
	ready.Wait()
	time.Sleep(goStartSettle)
	runtime.GC() // not during the start
	close(open)
	done.Wait()
	skew := slices.Max(stamps) - slices.Min(stamps)
	if err := json.NewEncoder(out).Encode(goStartReport{Goroutines: n, SkewNs: skew}); err != nil {
		fmt.Fprintf(errs, "hammer-bench %s: %v\n", GoStartArg, err)
		return 3
	}
	return 0
}

// stepGoStart runs the anchor process for flashContenders goroutines.
func (b *Bench) stepGoStart(ctx context.Context, r *Round) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var out, errs bytes.Buffer
	cmd := exec.CommandContext(ctx, exe, GoStartArg, strconv.Itoa(flashContenders))
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w (%s)", GoStartArg, err, lastLine(errs.String()))
	}
	var rep goStartReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Goroutines != flashContenders {
		return fmt.Errorf("%s: unreadable report %q", GoStartArg, out.String())
	}
	r.GoStartSkew = Known(float64(rep.SkewNs) / 1e6)
	return nil
}

// stepFlash is the flash sale in hammer: exit code, verdict, start skew,
// peak in flight and the peak RSS of all its processes. Its exit code is
// a figure, not an error of the bench.
func (b *Bench) stepFlash(ctx context.Context, r *Round) error {
	args := append(sizeArgs(flashProcs, flashGoroutines), "--mode", "lock-plus-update", "--timeout", b.cfg.FlashTimeout.String())
	var rss int64
	var procs int
	watch := func(pid int) func() {
		tree := watchTree(pid)
		return func() { rss, procs = tree.Stop() }
	}
	res, err := b.hammer(ctx, hammerRun{name: "flash", args: args, watch: watch})
	if err != nil {
		return err
	}
	r.FlashExit = Known(float64(res.exit))
	if res.run != nil { // it raced: without a summary it stopped at its flags
		r.FlashVerdict, r.FlashRSS, r.FlashProcs = res.run.Verdict, Known(float64(rss)), procs
		r.FlashSkew, r.FlashPeak = Optional(res.run.StartSkewMs), Optional(res.run.PeakInFlight)
	}
	if res.exit != 0 {
		r.note(fmt.Sprintf("%dk contenders: hammer %s", flashContenders/1000, res.why()))
	}
	return nil
}

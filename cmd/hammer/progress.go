package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
)

// progress shows races as they run: mpb bars on a terminal, one plain line
// per second otherwise (mpb draws nothing without a terminal), nothing with
// --quiet.
type progress struct {
	bars  *mpb.Progress // nil unless stdout is a terminal
	lines io.Writer     // nil when quiet or drawing bars
}

func newProgress(io stdio, quiet bool) *progress {
	switch {
	case quiet:
		return &progress{}
	case isTerminal(io.out):
		return &progress{bars: mpb.New(mpb.WithOutput(io.out), mpb.WithWidth(40))}
	default:
		return &progress{lines: io.err}
	}
}

// isTerminal reports whether w, or the writer a redacting writer wraps,
// is a terminal.
func isTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// tracker counts one race's attempts as their records arrive; before the
// go signal it says what the race is doing, when the race says (a
// service's replicas starting).
type tracker struct {
	out              io.Writer
	name             string
	total            int64
	attempts, sold   atomic.Int64
	stage            atomic.Pointer[driver.Stage] // what the race does before its go signal; nil once gone
	start            time.Time
	bar              *mpb.Bar
	stopTicker, quit chan struct{}
	outMu            sync.Mutex // the ticker and the race's stages both print
}

// printf prints one line to t.out, one writer at a time.
func (t *tracker) printf(format string, args ...any) {
	t.outMu.Lock()
	defer t.outMu.Unlock()
	fmt.Fprintf(t.out, format, args...)
}

// track starts showing race o; it returns what to call with each record
// and when the race ended.
func (p *progress) track(o driver.Options) driver.Hooks {
	name := o.Scenario.Name
	t := &tracker{name: name, total: int64(o.Contenders()), start: time.Now()}
	if p.bars != nil {
		t.bar = p.bars.AddBar(t.total,
			mpb.PrependDecorators(decor.Name(name, decor.WC{W: 18, C: decor.DindentRight})),
			mpb.AppendDecorators(
				decor.Any(func(s decor.Statistics) string {
					if st := t.staged(); st != "" {
						return st
					}
					return fmt.Sprintf("%d/%d attempts", s.Current, s.Total)
				}),
				decor.Any(func(decor.Statistics) string { return fmt.Sprintf("  sold %d", t.sold.Load()) }),
				decor.Elapsed(decor.ET_STYLE_GO, decor.WC{W: 8}),
			))
	}
	if p.lines != nil {
		t.out, t.stopTicker, t.quit = p.lines, make(chan struct{}), make(chan struct{})
		go t.tick()
	}
	return driver.Hooks{Attempt: t.attempt, Done: t.done, Stage: t.staging, Go: t.gone}
}

// staging shows what the race does before its go signal: a line of its
// own as it begins and ends when printing lines, in place of the attempts
// on a bar.
func (t *tracker) staging(s driver.Stage) {
	t.stage.Store(&s)
	if t.out != nil {
		t.printf("%s: %s\n", t.name, s)
	}
}

// gone ends the stage: from the go signal on, the attempts are shown.
func (t *tracker) gone(int64) { t.stage.Store(nil) }

// staged is what the race does before its go signal, "" when it said
// nothing or went.
func (t *tracker) staged() string {
	if s := t.stage.Load(); s != nil {
		return s.String()
	}
	return ""
}

// attempt counts one arrived record.
func (t *tracker) attempt(a history.Attempt) {
	t.attempts.Add(1)
	if a.Outcome == history.Sold {
		t.sold.Add(1)
	}
	if t.bar != nil {
		t.bar.Increment()
	}
}

// done ends the race's display, complete or not.
func (t *tracker) done() {
	if t.bar != nil {
		t.bar.Abort(false) // no-op when the bar already completed
	}
	if t.stopTicker != nil {
		close(t.stopTicker)
		<-t.quit
		t.line()
	}
}

func (t *tracker) tick() {
	defer close(t.quit)
	tk := time.NewTicker(time.Second)
	defer tk.Stop()
	for {
		select {
		case <-t.stopTicker:
			return
		case <-tk.C:
			t.line()
		}
	}
}

func (t *tracker) line() {
	if s := t.stage.Load(); s != nil && !s.Done {
		t.printf("%s: %s %s\n", t.name, s, time.Since(t.start).Round(time.Millisecond))
		return
	}
	t.printf("%s: %d/%d attempts, %d sold, %s\n",
		t.name, t.attempts.Load(), t.total, t.sold.Load(), time.Since(t.start).Round(time.Millisecond))
}

// wait lets the bars finish drawing.
func (p *progress) wait() {
	if p.bars != nil {
		p.bars.Wait()
	}
}

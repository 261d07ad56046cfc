package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/scenarios"
)

// syncBuffer is a strings.Builder the ticker and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressStage: without a terminal, a race that says what it does
// before its go signal gets a line as the stage begins and one as it is
// done; a tick while it runs names the stage, not "0/N attempts"; from
// the go signal on, the attempts are counted.
func TestProgressStage(t *testing.T) {
	var buf syncBuffer
	p := newProgress(stdio{out: &buf, err: &buf}, false)
	h := p.track(driver.Options{Scenario: scenarios.Scenario{Name: "naive"}, Procs: 2, Goroutines: 5, Attempts: 1})
	begin := driver.Stage{What: "starting 3 replicas of ticketd"}
	h.Stage(begin)
	// The ticker ticks once a second: one tick, made now, on a tracker of its own.
	tr := &tracker{out: &buf, name: "naive", total: 10, start: time.Now()}
	tr.staging(begin)
	tr.line()
	h.Stage(driver.Stage{What: begin.What, Done: true, Took: 1234 * time.Millisecond})
	h.Go(1)
	h.Attempt(history.Attempt{Outcome: history.Sold})
	h.Done()
	got := buf.String()
	for _, want := range []string{
		"naive: starting 3 replicas of ticketd …\n",
		"naive: starting 3 replicas of ticketd … 0s\n",
		"naive: starting 3 replicas of ticketd … ready in 1.2s\n",
		"naive: 1/10 attempts, 1 sold, ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("progress does not say %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "0/10 attempts") {
		t.Errorf("progress counted attempts before the go signal:\n%s", got)
	}
}

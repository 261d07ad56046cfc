package worker

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/wire"
	"github.com/hammer-load/hammer/latency"
)

// writes records every Write call it gets, and what was written.
type writes struct {
	mu    sync.Mutex
	calls int
	buf   bytes.Buffer
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	return w.buf.Write(p)
}

// sent decodes every message written so far.
func (w *writes) sent(t *testing.T) []wire.Message {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var ms []wire.Message
	sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
	for sc.Scan() {
		var m wire.Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("undecodable line %q: %v", sc.Text(), err)
		}
		ms = append(ms, m)
	}
	return ms
}

func attemptOf(g int) *history.Attempt {
	return &history.Attempt{Goroutine: g, RequestID: wire.RequestID(0, g, 0), Invoke: 1, Complete: 2, Outcome: history.SoldOut}
}

// A short race's records are kept until the attempts are done, then sent
// at once, in one write and in the order the attempts ended; the
// histograms have counted every attempt as it ended.
func TestOutboxShipsWhenDone(t *testing.T) {
	w := &writes{}
	ob := &outbox{rep: newReporter(w, 0), every: time.Hour, lat: latency.NewSet()}
	stop := ob.shipping()
	for g := range 50 {
		ob.attempt(attemptOf(g))
	}
	if w.calls != 0 {
		t.Fatalf("%d writes while attempts ran, want none before they are done", w.calls)
	}
	stop()
	if w.calls != 1 {
		t.Errorf("%d writes for 50 records, want 1", w.calls)
	}
	ms := w.sent(t)
	if len(ms) != 50 {
		t.Fatalf("%d messages sent, want 50", len(ms))
	}
	for g, m := range ms {
		if m.Attempt == nil || m.Attempt.Goroutine != g {
			t.Fatalf("message %d is %+v, want goroutine %d's record", g, m, g)
		}
	}
	ob.ship() // nothing left: nothing more is written
	if w.calls != 1 || len(w.sent(t)) != 50 {
		t.Errorf("shipping an empty outbox wrote: %d writes, %d messages", w.calls, len(w.sent(t)))
	}
}

// Under a fault that kills processes every record is written the moment
// its attempt ends, so that a killed worker loses none.
func TestLiveOutboxSendsAtOnce(t *testing.T) {
	w := &writes{}
	ob := &outbox{rep: newReporter(w, 0), live: true, every: time.Hour, lat: latency.NewSet()}
	stop := ob.shipping()
	for g := range 3 {
		ob.attempt(attemptOf(g))
		if got := len(w.sent(t)); got != g+1 {
			t.Fatalf("after attempt %d: %d records sent, want %d", g, got, g+1)
		}
	}
	stop()
	if got := len(w.sent(t)); got != 3 {
		t.Errorf("%d records sent in all, want 3 (none twice)", got)
	}
}

// lineWrites records the bytes of every Write call.
type lineWrites struct{ calls [][]byte }

func (w *lineWrites) Write(p []byte) (int, error) {
	w.calls = append(w.calls, bytes.Clone(p))
	return len(p), nil
}

// A batch larger than the reporter's buffer goes out in several writes,
// each of whole lines, so that a worker killed between two leaves no half
// line for the coordinator to read as bad output.
func TestReporterWritesWholeLines(t *testing.T) {
	w := &lineWrites{}
	r := newReporter(w, 0)
	ms := make([]wire.Message, 2000) // ~150 bytes each: several buffers' worth
	for g := range ms {
		ms[g] = wire.Message{Attempt: attemptOf(g)}
	}
	r.send(ms...)
	if len(w.calls) < 2 {
		t.Fatalf("%d writes, want a batch this large to take several", len(w.calls))
	}
	lines := 0
	for i, c := range w.calls {
		if len(c) == 0 || c[len(c)-1] != '\n' {
			t.Fatalf("write %d of %d ends inside a line: ...%q", i, len(w.calls), c[max(0, len(c)-40):])
		}
		lines += bytes.Count(c, []byte{'\n'})
	}
	if lines != len(ms) {
		t.Errorf("%d lines written, want %d", lines, len(ms))
	}
}

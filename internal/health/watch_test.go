package health

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestWatch: a server that stops answering is reported down once it has
// failed for DownAfter, and its outage is recorded with its end once it
// answers again; a server that always answers has no outage.
func TestWatch(t *testing.T) {
	var failing atomic.Bool
	flaky := Target{Server: Redis, Ping: func(context.Context) error {
		if failing.Load() {
			return errors.New("connection refused")
		}
		return nil
	}}
	steady := Target{Server: PostgreSQL, Ping: func(context.Context) error { return nil }}
	timing := Timing{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond, DownAfter: 60 * time.Millisecond}
	w := Watch([]Target{flaky, steady}, timing)

	time.Sleep(20 * time.Millisecond)
	failing.Store(true)
	failedAt := time.Now()
	select {
	case o := <-w.Down():
		if o.Server != Redis || o.Err != "connection refused" || o.To != 0 {
			t.Errorf("down = %+v, want redis, its error, no end", o)
		}
		if d := time.Since(failedAt); d < timing.DownAfter {
			t.Errorf("reported down after %s, before DownAfter %s", d, timing.DownAfter)
		}
	case <-time.After(time.Second):
		t.Fatal("a server failing every ping was not reported down")
	}
	failing.Store(false)
	time.Sleep(30 * time.Millisecond)
	outages := w.Stop()
	if len(outages) != 1 {
		t.Fatalf("outages = %+v, want one", outages)
	}
	if o := outages[0]; o.Server != Redis || o.To <= o.From {
		t.Errorf("outage = %+v, want redis with an end after its start", o)
	}
}

// TestWatchStopDuringOutage: an outage still going on when the watch stops
// is recorded without an end.
func TestWatchStopDuringOutage(t *testing.T) {
	dead := Target{Server: PostgreSQL, Ping: func(context.Context) error { return errors.New("EOF") }}
	w := Watch([]Target{dead}, Timing{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond, DownAfter: time.Hour})
	time.Sleep(20 * time.Millisecond)
	outages := w.Stop()
	if len(outages) != 1 || outages[0].To != 0 || outages[0].Server != PostgreSQL {
		t.Fatalf("outages = %+v, want one postgresql outage without an end", outages)
	}
}

package health

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

// TestWatch: a server that stops answering is reported down once it has
// failed for DownAfter, and its outage is recorded with its end once it
// answers again; a server that always answers has no outage.
func TestWatch(t *testing.T) {
	var failing atomic.Bool
	flaky := Target{Server: history.ServerRedis, Ping: func(context.Context) (string, error) {
		if failing.Load() {
			return "", errors.New("connection refused")
		}
		return "run-1", nil
	}}
	steady := Target{Server: history.ServerPostgreSQL, Ping: func(context.Context) (string, error) { return "start-1", nil }}
	timing := Timing{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond, DownAfter: 60 * time.Millisecond}
	w := Watch([]Target{flaky, steady}, timing)

	time.Sleep(20 * time.Millisecond)
	failing.Store(true)
	failedAt := time.Now()
	select {
	case o := <-w.Down():
		if o.Server != history.ServerRedis || o.Err != "connection refused" || o.To != 0 {
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
	if o := outages[0]; o.Server != history.ServerRedis || o.To <= o.From || o.Restarted {
		t.Errorf("outage = %+v, want redis with an end after its start, the same process", o)
	}
}

// TestWatchStopDuringOutage: an outage still going on when the watch stops
// is recorded without an end.
func TestWatchStopDuringOutage(t *testing.T) {
	dead := Target{Server: history.ServerPostgreSQL, Ping: func(context.Context) (string, error) { return "", errors.New("EOF") }}
	w := Watch([]Target{dead}, Timing{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond, DownAfter: time.Hour})
	time.Sleep(20 * time.Millisecond)
	outages := w.Stop()
	if len(outages) != 1 || outages[0].To != 0 || outages[0].Server != history.ServerPostgreSQL {
		t.Fatalf("outages = %+v, want one postgresql outage without an end", outages)
	}
}

// TestWatchStopFrozen: Stop does not wait out the ping of a server
// already reported down that ignores its context (a frozen server read by
// a client that does not heed cancellation), nor ping it once more.
func TestWatchStopFrozen(t *testing.T) {
	frozen := make(chan struct{})
	defer close(frozen)
	var pings atomic.Int32
	stuck := Target{Server: history.ServerRedis, Ping: func(context.Context) (string, error) {
		if pings.Add(1) > 2 {
			<-frozen // answers nothing, whatever its context says
		}
		return "", errors.New("i/o timeout")
	}}
	w := Watch([]Target{stuck}, Timing{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond, DownAfter: time.Nanosecond})
	select {
	case <-w.Down(): // at the second failed ping; the third hangs
	case <-time.After(5 * time.Second):
		t.Fatal("a server failing every ping was not reported down")
	}
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	outages := w.Stop()
	if d := time.Since(start); d > time.Second {
		t.Errorf("Stop took %s with a frozen server's ping in flight", d)
	}
	if len(outages) != 1 || outages[0].To != 0 {
		t.Errorf("outages = %+v, want one without an end", outages)
	}
}

// TestWatchRestart: a server that comes back as another process, whether
// or not a ping failed in between, is recorded as restarted.
func TestWatchRestart(t *testing.T) {
	tests := []struct {
		name string
		down bool // a ping fails between the two processes
	}{
		{"between two pings", false},
		{"after failed pings", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var id atomic.Value
			id.Store("run-1")
			var failing atomic.Bool
			target := Target{Server: history.ServerRedis, Ping: func(context.Context) (string, error) {
				if failing.Load() {
					return "", errors.New("EOF")
				}
				return id.Load().(string), nil
			}}
			w := Watch([]Target{target}, Timing{Interval: 5 * time.Millisecond, Timeout: 50 * time.Millisecond, DownAfter: time.Hour})
			time.Sleep(20 * time.Millisecond)
			failing.Store(tt.down)
			time.Sleep(20 * time.Millisecond)
			id.Store("run-2")
			failing.Store(false)
			time.Sleep(20 * time.Millisecond)
			outages := w.Stop()
			if len(outages) != 1 || !outages[0].Restarted || outages[0].To == 0 {
				t.Fatalf("outages = %+v, want one that ended with a restart", outages)
			}
		})
	}
}

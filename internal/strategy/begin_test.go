package strategy

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/scenarios"
)

// linedContender is a lock-plus-update contender of hammer's own lock with
// a line and the sold-out hint, on a Redis that never answers: the head of
// its line tries until the test's context ends, the others wait behind it.
func linedContender(t *testing.T) (*Contender, *SoldOutHint) {
	rdb := stacktest.SilentRedis(t)
	key := "hammer:test:begin"
	hint := NewSoldOutHint(rdb, key+":sold-out")
	c := New(scenarios.LockPlusUpdate, Deps{
		Locker:  hammerlock.New(rdb, hammerlock.Backoff{Min: time.Hour, Max: time.Hour}).WithHandoff(key),
		LockKey: key, LockTTL: time.Minute, LockWait: time.Hour, SoldOut: hint,
	})
	if !c.Lined() {
		t.Fatal("Lined: false for hammer's own lock with a line")
	}
	return c, hint
}

// TestBeginKnownSoldOut: a contender that begins once the sector is known
// sold out ends before Begin returns, sold out by the hint, its start and
// end stamped.
func TestBeginKnownSoldOut(t *testing.T) {
	c, hint := linedContender(t)
	hint.Heard()
	a := &history.Attempt{RequestID: "r"}
	ends := 0
	c.Begin(context.Background(), a, nil, func(*history.Attempt) { ends++ })
	if ends != 1 {
		t.Fatalf("%d ends before Begin returned, want 1", ends)
	}
	if a.Outcome != history.SoldOut || !a.Hinted || a.Invoke == 0 || a.Complete < a.Invoke {
		t.Errorf("attempt %+v, want sold out by the hint, stamped", a)
	}
}

// TestBeginDismissed: when the sector sells out, every contender behind
// the head is sent home sold out by the hint, each ended once and one at a
// time; the head ends on its own goroutine, at its first try or with the
// race's context.
func TestBeginDismissed(t *testing.T) {
	c, hint := linedContender(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 1000
	attempts := make([]*history.Attempt, n)
	var ended [n]atomic.Int32
	var running, overlaps atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range attempts {
		attempts[i] = &history.Attempt{Goroutine: i}
		c.Begin(ctx, attempts[i], nil, func(a *history.Attempt) {
			if a.Goroutine == 0 { // the head: on a goroutine of its own
				ended[0].Add(1)
				wg.Done()
				return
			}
			if running.Add(1) > 1 {
				overlaps.Add(1)
			}
			ended[a.Goroutine].Add(1)
			running.Add(-1)
			wg.Done()
		})
	}
	hint.Heard()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		done := 0
		for i := 1; i < n; i++ {
			done += int(ended[i].Load())
		}
		if done == n-1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d waiters sent home 5s after the sector sold out", done, n-1)
		}
	}
	for _, a := range attempts[1:] {
		if a.Outcome != history.SoldOut || !a.Hinted {
			t.Fatalf("waiter %d: outcome %s hinted %v, want sold out by the hint", a.Goroutine, a.Outcome, a.Hinted)
		}
	}
	if o := overlaps.Load(); o > 0 {
		t.Errorf("%d waiters ended beside another, want one at a time", o)
	}
	cancel()
	wait(t, &wg)
	for i := range ended {
		if got := ended[i].Load(); got != 1 {
			t.Fatalf("contender %d ended %d times, want once", i, got)
		}
	}
	// The head went home at its first try if the dismissal came first, else
	// when its unanswered try ended with the race.
	if a := attempts[0]; a.Outcome != history.Error && !(a.Outcome == history.SoldOut && a.Hinted) {
		t.Errorf("the head: outcome %s, want sold out by the hint or an error (its race ended)", a.Outcome)
	}
}

// TestHomecomingEndsEachOnceAndInTurn: ends added from many goroutines,
// some while others run, all run exactly once, one at a time, and a
// queue that ran dry starts again for the next.
func TestHomecomingEndsEachOnceAndInTurn(t *testing.T) {
	var h homecoming
	const n = 2000
	var ran [n]atomic.Int32
	var running, overlaps atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n)
	end := func(i int) func() {
		return func() {
			if running.Add(1) > 1 {
				overlaps.Add(1)
			}
			ran[i].Add(1)
			running.Add(-1)
			wg.Done()
		}
	}
	var adders sync.WaitGroup
	for a := range 4 {
		adders.Go(func() {
			for i := a; i < n; i += 4 {
				h.add(end(i))
			}
		})
	}
	adders.Wait()
	wait(t, &wg)
	for i := range ran {
		if got := ran[i].Load(); got != 1 {
			t.Fatalf("end %d ran %d times, want once", i, got)
		}
	}
	if o := overlaps.Load(); o > 0 {
		t.Errorf("%d ends ran beside another, want one at a time", o)
	}
	wg.Add(1)
	h.add(func() { wg.Done() })
	wait(t, &wg)
}

// wait waits for wg, failing the test after 5 s.
func wait(t *testing.T, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("ends still waiting after 5s")
	}
}

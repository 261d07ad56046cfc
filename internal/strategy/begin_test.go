package strategy

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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

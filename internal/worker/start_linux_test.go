package worker

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hammer-load/hammer/internal/realtime/realtimetest"
)

// With realtime, the goroutines of a barrier pass it on threads running
// as SCHED_FIFO, and every thread of the process is back to ordinary
// scheduling once the last has passed, or, should one never pass, once
// the burst's limit is up; without realtime, no thread is real-time.
func TestRealtimeStart(t *testing.T) {
	fifoThreads := func() (tids []int) {
		for tid, p := range realtimetest.Policies(t) {
			if p == unix.SCHED_FIFO {
				tids = append(tids, tid)
			}
		}
		return tids
	}
	realtimetest.Need(t)
	for _, tt := range []struct {
		name      string
		realtime  bool
		limit     time.Duration
		straggler bool // one goroutine never passes: only the limit ends the burst
	}{
		{"ended by the last to pass", true, time.Hour, false},
		{"ended by its limit", true, 10 * time.Millisecond, true},
		{"ordinary", false, time.Hour, false},
	} {
		const n = 50
		b := newBarrier(n, primedStack, tt.realtime)
		b.limit = tt.limit
		var fifo atomic.Int64
		var passed sync.WaitGroup
		for g := range n {
			passed.Go(func() {
				b.wait(g)
				if attr, err := unix.SchedGetAttr(0, 0); err == nil && attr.Policy == unix.SCHED_FIFO {
					fifo.Add(1)
				}
			})
		}
		b.hold()
		if tt.straggler {
			b.left.Add(1)
		}
		b.openAt(time.Now().Add(5 * time.Millisecond).UnixNano())
		passed.Wait()
		if got := fifo.Load(); (got > 0) != tt.realtime {
			t.Errorf("%s: %d of %d goroutines passed on a SCHED_FIFO thread", tt.name, got, n)
		}
		deadline := time.Now().Add(time.Second)
		for len(fifoThreads()) > 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if left := fifoThreads(); len(left) > 0 {
			t.Errorf("%s: threads %v still SCHED_FIFO after the start", tt.name, left)
		}
		b.release()
	}
}

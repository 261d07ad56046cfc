package driver

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// barrier holds a worker's goroutines until the go signal and lets them
// all go at its instant, as nearly at once as the host allows. What the
// attempts need is built before (connections opened, each goroutine's
// first request made up); between the signal and the last goroutine's
// first attempt the garbage collector does not run (unless the start
// allocates more than burstHeap), so that no collection stretches the
// start out.
type barrier struct {
	open chan struct{}
	left atomic.Int64 // goroutines that have not passed yet
	// gcPercent is the GOGC the collector had before hold; resume
	// restores it once.
	gcPercent int
	resume    sync.Once
}

// burstHeap bounds what the start may allocate while the collector is held
// off: past it, the memory limit makes the collector run after all.
const burstHeap = 64 << 20

// newBarrier is a closed barrier for goroutines goroutines.
func newBarrier(goroutines int) *barrier {
	b := &barrier{open: make(chan struct{})}
	b.left.Store(int64(goroutines))
	return b
}

// hold collects garbage once, then turns the collector off until every
// goroutine has passed (or release), with a memory limit burstHeap above
// what the process uses now as a safety net. Call it once all goroutines
// wait, before the worker reports ready.
func (b *barrier) hold() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + burstHeap)
	b.gcPercent = debug.SetGCPercent(-1)
}

// release lets the collector run as before hold; only the first call acts.
func (b *barrier) release() {
	b.resume.Do(func() {
		debug.SetGCPercent(b.gcPercent)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

// openAt waits until the wall clock reads at (Unix ns) and lets the
// goroutines go. It sleeps rather than spins: on a host with fewer cores
// than busy threads, a spinning worker uses up its share of the CPU just
// before the instant, and the scheduler then runs others first.
func (b *barrier) openAt(at int64) {
	sleepUntil(at)
	close(b.open)
}

// wait blocks the calling goroutine until the barrier opens; the last
// goroutine to pass lets the collector run again.
func (b *barrier) wait() {
	<-b.open
	if b.left.Add(-1) == 0 {
		b.release()
	}
}

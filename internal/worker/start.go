package worker

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hammer-load/hammer/internal/realtime"
)

// barrier holds a worker's goroutines until the go signal and lets them
// all go at its instant, as nearly at once as the host allows. What the
// attempts need is built before (connections opened, each goroutine's
// first request made up, its stack grown: see primeStack); between the
// signal and the last goroutine's first attempt the garbage collector does
// not run (unless the start allocates more than burstHeap), so that no
// collection stretches the start out, and, with realtime, the worker's
// threads run as SCHED_FIFO (package realtime), so that no server process
// woken by a first request takes a core from the goroutines still
// starting.
type barrier struct {
	// prime is closed once the collector is off: each goroutine then grows
	// its stack, counts itself in primed and waits for open.
	prime  chan struct{}
	primed sync.WaitGroup
	open   chan struct{}
	left   atomic.Int64 // goroutines that have not passed yet
	// gcPercent is the GOGC the collector had before hold; resume
	// restores it once.
	gcPercent int
	resume    sync.Once
	// burstWanted asks openAt for a real-time burst; burst is it, once
	// started (nil if it could not be), and limit bounds it after the go
	// instant (its timer runs burstLead + limit from its beginning).
	burstWanted bool
	burst       *realtime.Burst
	limit       time.Duration
}

// burstHeap bounds what the start may allocate while the collector is held
// off: past it, the memory limit makes the collector run after all.
const burstHeap = 64 << 20

// burstLead is how long before the go instant a real-time burst begins,
// time enough to make a worker's threads real-time; burstLimit bounds it
// after the instant, should its last goroutine not pass the barrier
// before (burstLead + burstLimit from its beginning, on the monotonic
// clock, whatever the wall clock does).
const (
	burstLimit = 50 * time.Millisecond
	burstLead  = 5 * time.Millisecond
)

// newBarrier is a closed barrier for goroutines goroutines; with rt, its
// start is a real-time burst.
func newBarrier(goroutines int, rt bool) *barrier {
	b := &barrier{prime: make(chan struct{}), open: make(chan struct{}), burstWanted: rt, limit: burstLimit}
	b.left.Store(int64(goroutines))
	b.primed.Add(goroutines)
	return b
}

// hold collects garbage once, then turns the collector off until every
// goroutine has passed (or release), lets the goroutines grow their stacks
// (which a collection would shrink back) and, once all have, sets a memory
// limit burstHeap above what the process then uses as a safety net. Call
// it once all goroutines are warm, before the worker reports ready.
func (b *barrier) hold() {
	runtime.GC()
	b.gcPercent = debug.SetGCPercent(-1)
	close(b.prime)
	b.primed.Wait()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + burstHeap)
}

// release lets the collector run as before hold and ends the real-time
// burst; only the first call acts.
func (b *barrier) release() {
	b.resume.Do(func() {
		if b.burst != nil {
			go b.burst.End() // not on the way of the last first attempt
		}
		debug.SetGCPercent(b.gcPercent)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

// openAt waits until the wall clock reads at (Unix ns) and lets the
// goroutines go. It sleeps rather than spins: on a host with fewer cores
// than busy threads, a spinning worker uses up its share of the CPU just
// before the instant, and the scheduler then runs others first. With a
// burst wanted, the worker's threads turn SCHED_FIFO burstLead before the
// instant (they are idle until it) and back when the last goroutine has
// passed or the burst's lead and limit after it began, whichever is
// first; the thread that sleeps the last stretch is the one that wakes the
// goroutines.
func (b *barrier) openAt(at int64) {
	if b.burstWanted {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		sleepUntil(at - int64(burstLead))
		if burst, err := realtime.Start(); err == nil {
			b.burst = burst
			time.AfterFunc(burstLead+b.limit, burst.End)
		}
	}
	sleepUntil(at)
	close(b.open)
}

// wait blocks the calling goroutine until the barrier opens, growing its
// stack on the way; the last goroutine to pass lets the collector run
// again. Every goroutine of the barrier must call it once.
func (b *barrier) wait() {
	<-b.prime
	primeStack()
	b.primed.Done()
	<-b.open
	if b.left.Add(-1) == 0 {
		b.release()
	}
}

// primedStack is the stack a goroutine grows to before the go signal: what
// an attempt of the modes without a lock needs (a lock's path needs up to
// twice that). Grown at the signal instead, every goroutine's stack would
// be copied while the others wait for the CPU to start: 20 % of a worker's
// CPU between the signal and the last first attempt, in a 4 × 250 race on
// 2 cores.
const primedStack = 16 << 10

// primeStack grows the calling goroutine's stack to primedStack and
// touches it, so that the start neither copies it nor faults its pages in.
//
//go:noinline
func primeStack() byte {
	var pad [primedStack / 2]byte
	for i := range pad {
		pad[i] = byte(i)
	}
	return pad[len(pad)-1]
}

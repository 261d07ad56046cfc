package worker

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hammer-load/hammer/internal/realtime"
	"github.com/hammer-load/hammer/internal/wire"
)

// barrier holds a worker's goroutines until the go signal and lets them
// all go at its instant, as nearly at once as the host allows. The signal
// wakes one goroutine per P, and each goroutine wakes the next of its
// chain as it passes (see gates). What the
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
	// gates[g] is what goroutine g waits on: open for the first chains
	// goroutines, and for goroutine g after them a channel that goroutine
	// g-chains closes as it passes. Woken by the one before it, the next
	// goroutine goes to the P's runnext, still in the cache; one close
	// waking them all put thousands on the runtime's global run queue,
	// each fetched from memory again (a flash sale's start went from 67
	// to 58 ms: docs/design/2026-12-06-flash-sale.md). One chain per P
	// lets the Ps of a worker start their goroutines side by side.
	gates  []chan struct{}
	chains int
	left   atomic.Int64 // goroutines that have not passed yet
	// gcPercent is the GOGC the collector had before hold; resume
	// restores it once.
	gcPercent int
	resume    sync.Once
	// stack is the stack size each goroutine grows to (see primeStack).
	stack int
	// goroutines is how many goroutines wait at the barrier, contenders
	// how many contenders start at its go signal: as many, or for a flash
	// start with no goroutine waiting, its contenders (see room).
	goroutines, contenders int
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
// time enough to make a worker's threads real-time; burstLimit, plus
// burstPerGoroutine for each of the worker's goroutines, bounds it after
// the instant, should its last goroutine not pass the barrier before
// (burstLead plus that limit from its beginning, on the monotonic clock,
// whatever the wall clock does). A worker of 12,500 goroutines needs some
// 100 ms on 2 cores only to wake them: a fixed 50 ms cut its burst off
// while most still waited, and their start then spread over the others'
// first attempts (docs/design/2026-12-06-flash-sale.md).
const (
	burstLimit        = 50 * time.Millisecond
	burstPerGoroutine = 20 * time.Microsecond
	burstLead         = 5 * time.Millisecond
)

// newBarrier is a closed barrier for goroutines goroutines, numbered from
// 0, each of which grows its stack to stack bytes before the go signal
// (see primeStack); with rt, its start is a real-time burst.
func newBarrier(goroutines, stack int, rt bool) *barrier {
	b := &barrier{
		prime: make(chan struct{}), open: make(chan struct{}), stack: stack, goroutines: goroutines,
		burstWanted: rt, gates: make([]chan struct{}, goroutines), chains: runtime.GOMAXPROCS(0),
	}
	b.room(goroutines)
	for g := range b.gates {
		if g < b.chains {
			b.gates[g] = b.open
		} else {
			b.gates[g] = make(chan struct{})
		}
	}
	b.left.Store(int64(goroutines))
	b.primed.Add(goroutines)
	return b
}

// hold faults in the pages the start will allocate from (prefault),
// collects garbage once, then turns the collector off until every
// goroutine has passed (or release), lets the goroutines grow their stacks
// (which a collection would shrink back) and, once all have, sets a memory
// limit burstHeap above what the process then uses as a safety net. Call
// it once all goroutines are warm, before the worker reports ready.
func (b *barrier) hold() {
	prefault(b.contenders * burstBytesPerGoroutine)
	runtime.GC()
	b.gcPercent = debug.SetGCPercent(-1)
	close(b.prime)
	b.primed.Wait()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + burstHeap)
}

// room readies the barrier for n contenders that start at its go signal:
// the pages their start allocates from and the real-time burst's limit.
// newBarrier makes room for its goroutines; a flash start, whose
// contenders do not wait at the barrier, for its contenders.
func (b *barrier) room(n int) {
	b.contenders = n
	b.limit = burstLimit + time.Duration(n)*burstPerGoroutine
}

// burstBytesPerGoroutine is about what a contender allocates between the
// go signal and its first wait: a waiter's place in line and its channel.
// 512 started no faster and left 20 MiB more resident in a flash sale
// (docs/design/2026-12-06-flash-sale.md).
const burstBytesPerGoroutine = 256

// prefault allocates n bytes, touches each page and lets them go, so that
// the collector that follows leaves their pages free and resident for
// what the start allocates: otherwise each of its first allocations of a
// page faults it in from the kernel while other goroutines wait to start.
// A worker's heap has only grown when it starts, so its free pages are
// these, and the start's allocations take them.
func prefault(n int) {
	buf := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		buf[i] = 1
	}
	runtime.KeepAlive(buf)
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

// wait blocks goroutine g until its turn after the barrier opens, growing
// its stack on the way, and wakes the next goroutine of its chain; the
// last goroutine to pass lets the collector run again. Every goroutine of
// the barrier must call it once, with its own number: one that never does
// holds back the rest of its chain.
func (b *barrier) wait(g int) {
	<-b.prime
	primeStack(b.stack / 2)
	b.primed.Done()
	<-b.gates[g]
	if next := g + b.chains; next < len(b.gates) {
		close(b.gates[next])
	}
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
//
// waitStack is the stack of a goroutine that waits in line for hammer's
// own lock (in a race not started by a flash start: a fault's, say): only
// the head of the line tries the lock, and the others wait in frames kept
// small for it (hammerlock.Locker.Retry), so that 12,500 goroutines of a
// worker hold 50 MiB of stacks, not 200. The few at the head grow theirs
// as they try.
const (
	primedStack = 16 << 10
	waitStack   = 4 << 10
)

// stackFor is the stack the goroutines of a worker grow to before the go
// signal: waitStack when each waits in line for hammer's own lock,
// primedStack otherwise.
func stackFor(cfg *wire.Config) int {
	if cfg.Contender == "" && handoff(*cfg) {
		return waitStack
	}
	return primedStack
}

// primeStack grows the calling goroutine's stack so that it uses size
// bytes more than at the call, in frames of 512 bytes, and touches it, so
// that the start neither copies the stack nor faults its pages in. A
// goroutine's stack doubles when it overflows: size half the stack wanted
// grows it to that.
//
//go:noinline
func primeStack(size int) byte {
	var pad [512]byte
	for i := range pad {
		pad[i] = byte(i)
	}
	if size <= len(pad) {
		return pad[len(pad)-1]
	}
	return primeStack(size-len(pad)) + pad[0]
}

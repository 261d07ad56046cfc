package worker

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Once hold returns, every goroutine of the barrier waits on a stack grown
// to primedStack, which the collector hold ran beforehand cannot shrink
// back; the goroutines then pass when the barrier opens.
func TestHoldPrimesStacks(t *testing.T) {
	const n = 200
	runtime.GC() // frees the stack spans earlier tests' goroutines left
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b := newBarrier(n, primedStack, false)
	var passed sync.WaitGroup
	for g := range n {
		passed.Go(func() { b.wait(g) })
	}
	b.hold()
	defer b.release()
	var held runtime.MemStats
	runtime.ReadMemStats(&held)
	// Unprimed, each would hold the runtime's first stack, 8 KiB; the
	// runtime's stack accounting is by span, hence three quarters.
	if grown, want := held.StackInuse-before.StackInuse, uint64(n*primedStack*3/4); grown < want {
		t.Errorf("stacks in use grew by %d KiB for %d waiting goroutines, want at least %d KiB (%d KiB each, less a quarter)",
			grown>>10, n, want>>10, primedStack>>10)
	}
	b.openAt(time.Now().UnixNano())
	passed.Wait()
	if left := b.left.Load(); left != 0 {
		t.Errorf("%d goroutines have not passed the open barrier", left)
	}
}

// The go signal wakes one goroutine per P and each wakes the next of its
// chain: the first goroutine of each chain waits on the go signal and
// every other one on a gate of its own; every goroutine passes, whatever
// the number of chains and however the goroutines divide among them, and
// none before the barrier opens.
func TestBarrierChainsPassEveryGoroutine(t *testing.T) {
	t.Cleanup(runtime.SetDefaultGOMAXPROCS)
	for _, tt := range []struct{ procs, goroutines int }{
		{1, 1}, {1, 300}, {2, 1}, {2, 301}, {3, 2}, {3, 100}, {8, 1000},
	} {
		runtime.GOMAXPROCS(tt.procs)
		passChains(t, tt.procs, tt.goroutines)
	}
}

// passChains builds a barrier for goroutines goroutines on procs Ps,
// checks its chains and lets the goroutines through it.
func passChains(t *testing.T, procs, goroutines int) {
	t.Helper()
	b := newBarrier(goroutines, primedStack, false)
	defer b.release()
	if b.chains != procs {
		t.Fatalf("GOMAXPROCS %d: %d chains, want one per P", procs, b.chains)
	}
	own := map[chan struct{}]bool{}
	for g, gate := range b.gates {
		switch {
		case g < b.chains && gate != b.open:
			t.Fatalf("GOMAXPROCS %d: goroutine %d heads a chain but does not wait on the go signal", procs, g)
		case g >= b.chains && (gate == b.open || own[gate]):
			t.Fatalf("GOMAXPROCS %d: goroutine %d does not wait on a gate of its own", procs, g)
		}
		own[gate] = true
	}
	var early atomic.Int64
	opened := make(chan struct{})
	var passed sync.WaitGroup
	for g := range goroutines {
		passed.Go(func() {
			b.wait(g)
			select {
			case <-opened:
			default:
				early.Add(1)
			}
		})
	}
	b.hold()
	close(opened)
	b.openAt(time.Now().UnixNano())
	done := make(chan struct{})
	go func() { passed.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("GOMAXPROCS %d, %d goroutines: %d have not passed 10 s after the barrier opened",
			procs, goroutines, b.left.Load())
	}
	if n := early.Load(); n > 0 {
		t.Errorf("GOMAXPROCS %d, %d goroutines: %d passed before the barrier opened", procs, goroutines, n)
	}
}

package worker

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Once hold returns, every goroutine of the barrier waits on a stack grown
// to primedStack, which the collector hold ran beforehand cannot shrink
// back; the goroutines then pass when the barrier opens.
func TestHoldPrimesStacks(t *testing.T) {
	const n = 200
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b := newBarrier(n, primedStack, false)
	var passed sync.WaitGroup
	for range n {
		passed.Go(b.wait)
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

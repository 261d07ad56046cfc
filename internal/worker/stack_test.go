//go:build !race

// The race detector's instrumentation makes frames larger than the
// worker's build has them: this guard is about the build users run.

package worker

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLineWaitersFitTheirStack guards the memory of a race of many
// contenders in line for hammer's own lock that a flash start does not
// start (a fault's, say; this test starts them as such a race does): a
// goroutine that waits in line, from the worker's loop through the
// strategy to the lock's wait, fits in waitStack. A frame that grows on
// that path doubles the stack of every waiter, which this test sees as
// stacks twice the size.
//
// The lock's Redis never answers (see silentLocker), so the head of the
// line tries for as long as the test lasts and the others wait behind it:
// nothing here is a verdict.
func TestLineWaitersFitTheirStack(t *testing.T) {
	const n = 400
	cfg, c, ob := silentRace(t, n)
	if got := stackFor(cfg); got != waitStack {
		t.Fatalf("stackFor(lock-plus-update, hammer's lock) = %d, want waitStack %d", got, waitStack)
	}

	var before runtime.MemStats
	runtime.GC() // frees the stacks of earlier tests' goroutines, which hold would free below
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	b := newBarrier(n, stackFor(cfg), false)
	done, err := startContenders(ctx, *cfg, c, ob, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		done.Wait()
	}()
	b.hold()
	defer b.release()
	b.openAt(time.Now().UnixNano())
	waiting := 0
	for deadline := time.Now().Add(10 * time.Second); waiting < n-1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d goroutines wait in line after 10s, want all but the head", waiting, n)
		}
		waiting = inAwait()
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Each waiter's stack, plus the head's grown one and what the runtime
	// started meanwhile: well under the doubled stacks of a frame too big.
	grown, most := after.StackInuse-before.StackInuse, uint64(n*waitStack*5/4+256<<10)
	t.Logf("stacks grew by %d KiB for %d goroutines (%d B each)", grown>>10, n, grown/n)
	if grown > most {
		t.Errorf("stacks grew by %d KiB for %d goroutines waiting in line, want at most %d KiB: a frame on the waiting path outgrew %d KiB",
			grown>>10, n, most>>10, waitStack>>10)
	}
}

// inAwait counts the goroutines waiting for their turn in a lock's line.
func inAwait() int {
	buf := make([]byte, 8<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "hammerlock.(*place).await(")
}

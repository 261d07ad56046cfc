package fault

import (
	"context"
	"time"

	"github.com/hammer-load/hammer/internal/strategy"
)

// slowRelease keeps a struck holder from releasing after its write until
// its lock expired and the next holder took it, and makes that next
// holder's critical section long (half a TTL), so that the late release
// falls inside it.
type slowRelease struct{ Base }

// CountsAt numbers holders as they take the lock (or, without a lock, as
// they reach the sale), since the fault also strikes the holder after the
// scheduled one.
func (slowRelease) CountsAt(p strategy.Point, usesLock bool) bool {
	return p == strategy.MidWrite || (p == strategy.Holding && usesLock)
}

// At holds a struck holder after its write, and slows down the next one.
func (slowRelease) At(ctx context.Context, w *Worker, h Hit) error {
	switch {
	case h.Struck && h.Point == strategy.AfterWrite:
		return holdUntilTaken(ctx, w, h)
	case h.AfterStruck && h.Point == strategy.MidWrite:
		return latency(ctx, w, h, w.LockTTL/2, "long critical section")
	}
	return nil
}

// holdUntilTaken keeps a holder that has written from releasing until its
// lock expired and another contender took it: until a holder numbered
// after it reached its fault point, which it can only do holding the lock.
// (Reading the lock's holder instead is not enough: a holder read just
// after our TTL ran out by our clock can still be us, by Redis's.)
func holdUntilTaken(ctx context.Context, w *Worker, h Hit) error {
	start := time.Now()
	w.begin(h.Attempt, start)
	deadline := start.Add(10 * w.LockTTL)
	for time.Now().Before(deadline) {
		n, err := w.Numbered(ctx)
		if err != nil {
			return err
		}
		if n > h.Number {
			break
		}
		time.Sleep(time.Millisecond)
	}
	w.Event(h.Attempt, start, "held on after its write until its lock expired and the next contender took it, then released")
	return nil
}

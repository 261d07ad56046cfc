package driver_test

import (
	"context"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/scenarios"
)

// TestLockLibraries races each lock library behind hammer's modes at the
// gate's sizes: a holder paused past its TTL lets a second holder in, so
// lock-only oversells; lock-plus-update's conditional UPDATE keeps the
// ledger right whatever the lock does.
func TestLockLibraries(t *testing.T) {
	for _, lock := range []scenarios.Lock{scenarios.Redsync, scenarios.Redislock} {
		for _, tt := range []struct {
			mode scenarios.Mode
			want scenarios.Expectation
		}{
			{scenarios.LockOnly, scenarios.Unsafe},
			{scenarios.LockPlusUpdate, scenarios.Safe},
		} {
			cell := scenarios.Scenario{Mode: tt.mode, Fault: scenarios.Pause, Lock: lock, Expected: tt.want}.Named()
			t.Run(cell.Name, func(t *testing.T) {
				res := raceExpect(t, gateOptions(t, cell), cell.Expected)
				if res.Run.Lock != lock || len(res.Faults) == 0 {
					t.Errorf("run record: lock %q, %d faults; want lock %q and the pauses", res.Run.Lock, len(res.Faults), lock)
				}
				lockSentBeforeAnswer(t, res.Attempts)
			})
		}
	}
}

// TestLockLibraryRefused: a library is refused, before anything starts,
// in a mode without a lock and in fenced, which needs fencing tokens.
func TestLockLibraryRefused(t *testing.T) {
	for _, mode := range []scenarios.Mode{scenarios.UpdateOnly, scenarios.Fenced} {
		o := options(t, mode)
		o.Scenario.Lock = scenarios.Redsync
		if _, err := driver.Race(context.Background(), o); err == nil {
			t.Errorf("mode %s with redsync raced; want it refused", mode)
		}
	}
}

// lockSentBeforeAnswer checks that every holder dates its lock command's
// send (LockSent), no later than its answer (LockAcquired): verify tells
// a host stall from the strategy's fault by it.
func lockSentBeforeAnswer(t *testing.T, attempts []history.Attempt) {
	t.Helper()
	holders := 0
	for _, a := range attempts {
		if a.LockAcquired == 0 {
			continue
		}
		holders++
		if a.LockSent == 0 || a.LockSent > a.LockAcquired {
			t.Fatalf("%s: lock sent at %d, answered at %d; want a send no later than the answer", a.RequestID, a.LockSent, a.LockAcquired)
		}
	}
	if holders == 0 {
		t.Fatal("no attempt took the lock")
	}
}

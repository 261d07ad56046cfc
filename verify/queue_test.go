package verify

import (
	"strings"
	"testing"

	"github.com/hammer-load/hammer/history"
)

// gaveUp adds n contenders that waited for the lock from fromMs to toMs
// (after the go signal, at 0) and gave up.
func (r *race) gaveUp(n int, fromMs, toMs int64) *race {
	for range n {
		r.attempts = append(r.attempts, history.Attempt{Run: "r", Mode: "lock-only", RequestID: reqID(len(r.attempts)),
			Outcome: history.LockTimeout, Invoke: fromMs * 1_000_000, Complete: toMs * 1_000_000})
	}
	return r
}

// holders adds four lock holders, each holding the lock for 10 ms from
// the instants given and selling seats 1 to 4.
func holders(at ...int64) *race {
	r := new(race)
	for i, ms := range at {
		r.locked(reqID(i), 0, ms, ms+10, i+1)
	}
	return r
}

// TestStuckLockOrQueue: contenders that gave up on the lock are a
// stuck-lock only when nobody took the lock during the last TTL of their
// wait; while it moved on, or after a wait shorter than its TTL, they
// waited on the queue (a note says so). Where the run cannot tell (no TTL,
// a heartbeat, no acquisition recorded) every one counts, as before.
func TestStuckLockOrQueue(t *testing.T) {
	moving := func() Input { // the last holder took the lock 100 ms before they gave up, within the TTL of 150 ms
		return holders(100, 400, 700, 900).gaveUp(6, 0, 1000).input(10, 10, 6).with(lockOnly)
	}
	for _, tt := range []struct {
		name      string
		in        Input
		wantStuck bool
	}{
		{"the lock moved on", moving(), false},
		{"wedged: nobody took it in the last TTL", holders(100, 200, 300, 400).gaveUp(6, 0, 1000).input(10, 10, 6).with(lockOnly), true},
		{"a wait shorter than the TTL", holders(100, 200, 300, 400).gaveUp(6, 0, 3).input(10, 10, 6).with(lockOnly), false},
		{"no TTL: cannot tell", moving().with(func(in *Input) { in.LockTTL = 0 }), true},
		{"a heartbeat: cannot tell", moving().with(func(in *Input) { in.Extend = true }), true},
		{"no acquisition recorded: cannot tell", new(race).sold(1, 4).gaveUp(6, 0, 1000).input(10, 10, 6).with(lockOnly), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Check(tt.in)
			stuck := false
			for _, x := range v.Violations {
				stuck = stuck || x.Check == CheckStuckLock
			}
			if stuck != tt.wantStuck {
				t.Fatalf("stuck-lock %v, want %v: %s", stuck, tt.wantStuck, v.Summary())
			}
			noted := strings.Contains(strings.Join(v.Notes, "\n"), "no stuck lock")
			if !tt.wantStuck && (v.Status != Valid || !noted) {
				t.Errorf("verdict %s, notes %q: want valid, with a note that the queue was longer than the wait", v.Summary(), v.Notes)
			}
		})
	}
}

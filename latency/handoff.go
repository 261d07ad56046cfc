package latency

import (
	"cmp"
	"slices"
	"time"

	"github.com/hammer-load/hammer/history"
)

// Handoffs returns the handoff gaps of a race's attempts: for every lock
// holder that took the lock after another released it while it was
// already waiting, the time from that release being sent to this holder
// having the lock — how long the lock sat free while someone wanted it.
// A lock that passed on by expiring (its holder found it lost, or never
// released it) is not a handoff, nor is a lock taken while nobody waited.
func Handoffs(attempts []history.Attempt) []time.Duration {
	var gaps []time.Duration
	handoffs(attempts, func(d time.Duration, _ *history.Attempt) { gaps = append(gaps, d) })
	return gaps
}

// handoffs calls f with every handoff gap and the holder the lock passed to.
func handoffs(attempts []history.Attempt, f func(time.Duration, *history.Attempt)) {
	var holders []*history.Attempt
	for i := range attempts {
		if attempts[i].LockAcquired > 0 {
			holders = append(holders, &attempts[i])
		}
	}
	slices.SortFunc(holders, func(a, b *history.Attempt) int { return cmp.Compare(a.LockAcquired, b.LockAcquired) })
	for i := 1; i < len(holders); i++ {
		if d, ok := HandoffGap(holders[i-1], holders[i]); ok {
			f(d, holders[i])
		}
	}
}

// HandoffGap reports whether the lock passed from holder prev to cur, the
// holder that took it next (by LockAcquired) in the same run, as a
// handoff, and the gap: prev sent its release while cur was already
// waiting, and cur had the lock that long after. A lock that passed on by
// expiring, or was taken while nobody waited, is no handoff.
func HandoffGap(prev, cur *history.Attempt) (time.Duration, bool) {
	if prev.LockReleasing == 0 || prev.LockLost || prev.Run != cur.Run ||
		cur.LockAcquired < prev.LockReleasing || cur.Invoke > prev.LockReleasing {
		return 0, false
	}
	return time.Duration(cur.LockAcquired - prev.LockReleasing), true
}

// ObserveHandoffs records the handoff gaps of one run's attempts (see
// Handoffs) under the Handoff phase and the outcome of the holder the lock
// passed to.
func (s *Set) ObserveHandoffs(attempts []history.Attempt) {
	handoffs(attempts, func(d time.Duration, to *history.Attempt) {
		s.record(Key{Run: to.Run, Phase: Handoff, Outcome: to.Outcome}, d)
	})
}

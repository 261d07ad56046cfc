package verify

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// maxOverlapViolations caps how many overlaps are reported one by one; the
// rest are counted in one more violation.
const maxOverlapViolations = 20

// pair is two lock holders whose critical sections overlapped.
type pair struct {
	First, Second history.Attempt
	From, To      int64 // Unix ns
}

// criticalSection is when a holder did the work the lock protects: from the
// moment it knew it had the lock until its sale was decided. Both stamps
// are conservative (taken after acquiring, before releasing), so any
// overlap they show really happened.
func criticalSection(a history.Attempt) (from, to int64, ok bool) {
	if a.LockAcquired == 0 || a.DBEnd == 0 {
		return 0, 0, false
	}
	return a.LockAcquired, a.DBEnd, true
}

// overlappingPairs finds every pair of lock holders whose critical
// sections overlapped, in order of when the overlap began.
func overlappingPairs(attempts []history.Attempt) []pair {
	var holders []history.Attempt
	for _, a := range attempts {
		if _, _, ok := criticalSection(a); ok {
			holders = append(holders, a)
		}
	}
	slices.SortFunc(holders, func(a, b history.Attempt) int { return cmp.Compare(a.LockAcquired, b.LockAcquired) })
	var out []pair
	var active []history.Attempt
	for _, h := range holders {
		from, to, _ := criticalSection(h)
		active = slices.DeleteFunc(active, func(a history.Attempt) bool { return a.DBEnd <= from })
		for _, a := range active {
			out = append(out, pair{First: a, Second: h, From: from, To: min(a.DBEnd, to)})
		}
		active = append(active, h)
	}
	slices.SortStableFunc(out, func(a, b pair) int { return cmp.Compare(a.From, b.From) })
	return out
}

// mutualExclusion fails for overlapping lock holders where the lock is the
// only guarantee (lock-only), unless the world caused the overlap (a host
// stall, a server that lost the key: see worldGaps). In lock-plus-update
// and fenced the database keeps the ledger right however the lock behaves,
// so overlaps there are noted, not failed (see notes).
func (x *index) mutualExclusion() []Violation {
	if x.in.Mode != scenarios.LockOnly {
		return nil
	}
	var overlaps []pair
	for _, o := range x.overlaps {
		if !o.cause.world() && !o.unclear {
			overlaps = append(overlaps, o.pair)
		}
	}
	var out []Violation
	for i, o := range overlaps {
		if i == maxOverlapViolations {
			out = append(out, Violation{Check: CheckMutualExclusion,
				Detail: fmt.Sprintf("and %d more overlapping pairs of lock holders", len(overlaps)-i)})
			break
		}
		v := Violation{Check: CheckMutualExclusion,
			Detail: fmt.Sprintf("%s and %s held the lock at the same time for %s",
				o.First.RequestID, o.Second.RequestID, ms(o.To-o.From))}
		v.attach(x.overlapStory(o))
		out = append(out, v)
	}
	return out
}

// overlapNote tells of overlaps that are not violations: those the
// database backstop made harmless, and in lock-only those the world caused
// while the strategy was caught anyway.
func (x *index) overlapNote() string {
	n := 0
	for _, o := range x.overlaps {
		if !o.unclear {
			n++
		}
	}
	switch {
	case n == 0, x.worldBroke():
		return ""
	case x.in.Mode == scenarios.LockOnly:
		world := 0
		for _, o := range x.overlaps {
			if o.cause.world() {
				world++
			}
		}
		if world == 0 {
			return ""
		}
		return fmt.Sprintf("%s of lock holders overlapped because of the host or a server, not the strategy or an injected fault; they are not counted as mutual-exclusion violations",
			plural(world, "pair", "pairs"))
	}
	return fmt.Sprintf("the lock was not exclusive: %s of holders overlapped in their critical sections; "+
		"the database backstop of %s kept the ledger right", plural(n, "pair", "pairs"), x.in.Mode)
}

// unexpectedErrors fails when attempts ended in error in a run whose fault
// (if any) does not explain errors: a correct strategy answers sold, sold
// out, lock timeout or rejected, it does not fail.
func (x *index) unexpectedErrors() []Violation {
	if x.in.Fault.ExplainsErrors() {
		return nil
	}
	var failed []string
	for _, a := range x.in.Attempts {
		// An infrastructure failure is the world's, not the strategy's (infraGaps).
		if a.Outcome == history.Error && a.Infra == "" {
			failed = append(failed, fmt.Sprintf("%s: %s", a.RequestID, a.Err))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	slices.Sort(failed)
	why := "in a run without faults"
	if x.in.Fault != "" {
		why = fmt.Sprintf("under the %s fault, which does not explain errors", x.in.Fault)
	}
	return []Violation{{Check: CheckUnexpectedError, Detail: fmt.Sprintf("%s failed with an error %s: %s",
		plural(len(failed), "attempt", "attempts"), why, capList(failed))}}
}

// stuckLock fails when contenders gave up waiting for the lock while seats
// were still unsold and nobody took it during the last TTL of their wait:
// the lock wedged (a holder died with a lock that never expires). Those
// that gave up while the lock moved on, or sooner than its TTL, waited on
// the queue, not on a stuck lock (queuedTimeouts: a note says so); where
// the run cannot tell (no TTL, a heartbeat, no acquisition recorded),
// every one counts. Contenders that gave up while a fault whose timeline
// did not happen held its holder back are not counted either.
func (x *index) stuckLock() []Violation {
	// Those that gave up while a fault held its holder back waited on
	// the fault (see unmetGaps).
	timedOut := x.count(history.LockTimeout) - x.heldBack - x.queued
	unsold := x.unsold()
	if timedOut == 0 || unsold <= 0 {
		return nil
	}
	why := "a lock that never expired, or a --lock-wait too short for the queue"
	if x.in.Lock.Library() {
		why = fmt.Sprintf("a lock that never expired, or %s's own retry budget, or a --lock-wait, too short for the queue", x.in.Lock)
	}
	return []Violation{{Check: CheckStuckLock, Detail: fmt.Sprintf(
		"%s gave up waiting for the lock while %d of %d seats were still unsold (%s)",
		plural(timedOut, "contender", "contenders"), unsold, x.in.Seats, why)}}
}

// unsold is how many seats the ledger shows unsold; 0 when it cannot be
// used.
func (x *index) unsold() int {
	if !x.ledgerUsable() {
		return 0
	}
	return x.in.Seats - len(x.in.Sales)
}

// ms renders nanoseconds as milliseconds.
func ms(ns int64) string {
	return fmt.Sprintf("%.1fms", float64(ns)/float64(time.Millisecond))
}

// countOverlaps counts the overlaps behind mutual-exclusion violations,
// including those folded into the last "and N more" one.
func countOverlaps(xs []Violation) int {
	n := 0
	for _, x := range xs {
		var more int
		if _, err := fmt.Sscanf(x.Detail, "and %d more", &more); err == nil {
			n += more
			continue
		}
		n++
	}
	return n
}

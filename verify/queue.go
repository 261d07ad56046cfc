package verify

import (
	"fmt"
	"slices"

	"github.com/hammer-load/hammer/history"
)

// queuedTimeouts counts the contenders that gave up on the lock while it
// was not stuck, and so are no stuck-lock: others took the lock during the
// last TTL of their wait, or their wait was shorter than the TTL, for all
// of which a holder may keep the lock with nothing wrong. Their wait was
// shorter than the queue: the --lock-wait chosen, or the host's pace, not
// the strategy. It counts none where the run cannot tell: without a TTL,
// with holders that extend theirs (a heartbeat keeps a lock past its TTL),
// or without one acquisition recorded (a service that does not say when
// its lock was taken). Those held back by an unmet fault are counted
// there (heldBackTimeouts), not here.
func queuedTimeouts(in Input, unmet []history.FaultEvent) int {
	ttl := int64(in.LockTTL)
	if ttl <= 0 || in.Extend {
		return 0
	}
	var taken []int64
	for i := range in.Attempts {
		if at := in.Attempts[i].LockAcquired; at > 0 {
			taken = append(taken, at)
		}
	}
	if len(taken) == 0 {
		return 0
	}
	slices.Sort(taken)
	n := 0
	for i := range in.Attempts {
		a := &in.Attempts[i]
		if a.Outcome != history.LockTimeout || heldBackBy(a, unmet) {
			continue
		}
		from := a.Complete - ttl
		if from < a.Invoke { // a wait shorter than the TTL
			n++
			continue
		}
		if j, _ := slices.BinarySearch(taken, from); j < len(taken) && taken[j] <= a.Complete {
			n++
		}
	}
	return n
}

// queueNote says why the contenders that gave up while the lock moved on
// (queuedTimeouts) are no stuck-lock, when seats were left unsold.
func (x *index) queueNote() string {
	if x.queued == 0 || x.unsold() <= 0 {
		return ""
	}
	wait := "--lock-wait"
	if x.in.Lock.Library() {
		wait = fmt.Sprintf("--lock-wait, or %s's own retry budget", x.in.Lock)
	}
	return fmt.Sprintf("%s gave up waiting for the lock while others took it, or sooner than its TTL of %v, "+
		"with seats unsold: the queue was longer than the lock's wait (%s), which is no stuck lock",
		plural(x.queued, "contender", "contenders"), x.in.LockTTL, wait)
}

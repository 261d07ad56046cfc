package verify

import (
	"fmt"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// cause is why two holders overlapped: why the lock stopped being
// exclusive.
type cause int

const (
	// byStrategy: nothing outside the strategy explains the overlap (a
	// lock released by someone else, a lock on the wrong key, …).
	byStrategy cause = iota
	// byFault: an injected fault touched the earlier holder.
	byFault
	// byStall: the earlier holder's lock expired while it worked, and no
	// fault was injected on it: the host stalled it past its TTL.
	byStall
	// byOutage: the lock vanished within its TTL while Redis came back as
	// another process (restarted, failed over), and no fault was
	// injected: the server lost the key.
	byOutage
)

// world reports whether the world, not the strategy or an injected fault,
// caused the overlap.
func (c cause) world() bool { return c == byStall || c == byOutage }

// overlap is a pair of holders whose critical sections overlapped, and why.
type overlap struct {
	pair
	cause cause
	// unclear: the holders ran on different agents and overlapped by less
	// than their clocks could be off, so the overlap may never have been.
	unclear bool
}

// classify finds every overlap of the run with its cause.
func (x *index) classify() []overlap {
	found := overlappingPairs(x.in.Attempts)
	out := make([]overlap, len(found))
	for i, o := range found {
		out[i] = overlap{pair: o, cause: x.causeOf(o), unclear: x.unclearPair(o)}
	}
	return out
}

// causeOf says why the second holder of o could take the lock the first
// still used.
func (x *index) causeOf(o pair) cause {
	a, b := o.First, o.Second
	switch {
	case x.injectedOn(a):
		return byFault
	case x.expiredBefore(a, b):
		return byStall
	case x.restartedBetween(history.ServerRedis, a.LockAcquired, b.LockAcquired):
		return byOutage
	}
	return byStrategy
}

// injectedOn reports whether an injected fault meant to break the lock
// touched holder a: a fault event on its request, or a fault window
// (network faults) open during its critical section. A fault that must
// leave the lock exclusive (crash, duplicate, slow-release) explains no
// overlap, so a host stall on a holder it touched is still told as one.
func (x *index) injectedOn(a history.Attempt) bool {
	from, to, _ := criticalSection(a)
	for _, f := range x.in.Faults {
		end := max(f.End, f.Start)
		touched := f.RequestID == a.RequestID || (f.RequestID == "" && f.Start <= to && end >= from)
		if touched && f.Fault.BreaksLock() {
			return true
		}
	}
	return false
}

// expiredBefore reports whether a's lock may have outlived its TTL when b
// took it: b's lock answered a whole TTL after a's lock command, or its
// heartbeat's last extension, was sent (the server ran each no earlier),
// less how far the two holders' clocks may be off each other (agents).
// The strategy is blamed only for a b that provably took the lock while
// a's still lived; a stamp made late by a stalled host cannot move that
// line. A history without LockSent (a lock library that does not tell,
// or an older hammer) dates a's lock from LockAcquired, taken when the
// command answered, less a tenth of the TTL (at most 50 ms) for the round
// trip. A heartbeat that failed while the lock should still have lived
// did run, so the lock did not expire for want of it: that is no stall.
func (x *index) expiredBefore(a, b history.Attempt) bool {
	ttl := int64(x.in.LockTTL)
	if ttl <= 0 {
		return false
	}
	lived := x.lockLived(a) - x.clockError(a.Proc, b.Proc)
	if a.ExtendFailed != 0 && a.ExtendFailed < lived {
		return false
	}
	return b.LockAcquired >= lived
}

// lockLived is the earliest a's lock can have expired by a's clock: a
// TTL after its lock command, or its heartbeat's last extension, was sent
// (see expiredBefore).
func (x *index) lockLived(a history.Attempt) int64 {
	ttl := int64(x.in.LockTTL)
	taken := a.LockSent
	if taken == 0 {
		taken = a.LockAcquired - min(ttl/10, int64(50*time.Millisecond))
	}
	return max(taken, a.Extended) + ttl
}

// worldBroke reports whether, in lock-only, the lock stopped being
// exclusive only because of the world: every overlap has a world cause. The
// oversells, double sales and lost updates such a run shows are then the
// world's doing too, and are not judged.
func (x *index) worldBroke() bool {
	if x.in.Mode != scenarios.LockOnly {
		return false
	}
	world := false
	for _, o := range x.overlaps {
		switch {
		case o.cause.world():
			world = true
		case !o.unclear:
			return false // a proven overlap the world does not explain
		}
	}
	return world
}

// firstWorld is the first overlap the world caused; call it only when
// worldBroke.
func (x *index) firstWorld() (overlap, int) {
	var first overlap
	n := 0
	for _, o := range x.overlaps {
		if o.cause.world() {
			if n == 0 {
				first = o
			}
			n++
		}
	}
	return first, n
}

// worldChecks names the checks a world-broken lock leaves unjudged.
const worldChecks = "oversell, conservation, double-sold and mutual-exclusion"

// worldGaps tells, in one line, how the world broke the lock of a
// lock-only run: the first such overlap, and how many more.
func (x *index) worldGaps() []string {
	if !x.worldBroke() {
		return nil
	}
	o, n := x.firstWorld()
	more := ""
	if n := n - 1; n > 0 {
		more = fmt.Sprintf(" (and %s)", plural(n, "more such overlap", "more such overlaps"))
	}
	return []string{fmt.Sprintf("%s%s, so %s were not judged", x.worldStory(o), more, worldChecks)}
}

// worldStory says what the world did in one overlap.
func (x *index) worldStory(o overlap) string {
	a, b := o.First, o.Second
	if o.cause == byStall {
		taken := a.LockSent // the stall is told from the stamps, no allowance
		if taken == 0 {
			taken = a.LockAcquired
		}
		over := a.DBEnd - max(taken, a.Extended) - int64(x.in.LockTTL)
		return fmt.Sprintf("host stall of %s past a TTL of %s, not injected: %s worked on after its lock expired and %s took the lock at %s",
			ms(max(over, 0)), ms(int64(x.in.LockTTL)), a.RequestID, b.RequestID, x.since(b.LockAcquired))
	}
	return fmt.Sprintf("%s, not injected: the lock %s held vanished and %s took it at %s",
		x.restart(history.ServerRedis), a.RequestID, b.RequestID, x.since(b.LockAcquired))
}

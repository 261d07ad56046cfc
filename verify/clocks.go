package verify

import (
	"fmt"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// A run raced on agents stamps its instants on several hosts' clocks,
// moved onto the coordinator's by estimated offsets, each true to within
// its uncertainty. Two instants of different agents are then only known
// to within the sum of their uncertainties: an overlap of lock holders
// shorter than that may never have happened, so it is no evidence.

// clockMargin is added to two agents' uncertainties for what drifts
// between the clock estimate and the race.
const clockMargin = 50 * time.Microsecond

// clockError is how far apart two instants stamped by processes p and q
// may really be from what their records say: zero on one clock (the same
// process, or a run without agents).
func (x *index) clockError(p, q int) int64 {
	u := x.in.ClockUncertainty
	if p == q || p < 0 || q < 0 || p >= len(u) || q >= len(u) {
		return 0
	}
	return int64(u[p] + u[q] + clockMargin)
}

// unclearPair reports whether o is shorter than its holders' clocks could
// make up.
func (x *index) unclearPair(o pair) bool {
	e := x.clockError(o.First.Proc, o.Second.Proc)
	return e > 0 && o.To-o.From <= e
}

// unclearOverlaps counts the overlaps that may never have happened, with
// the largest clock error among them.
func (x *index) unclearOverlaps() (n int, worst time.Duration) {
	for _, o := range x.overlaps {
		if o.unclear {
			n++
			worst = max(worst, time.Duration(x.clockError(o.First.Proc, o.Second.Proc)))
		}
	}
	return n, worst
}

// clockNote says, outside lock-only, how many overlaps were left out as
// within the clocks' error; "" when none was.
func (x *index) clockNote() string {
	n, worst := x.unclearOverlaps()
	if n == 0 || x.in.Mode == scenarios.LockOnly {
		return ""
	}
	return fmt.Sprintf("%s of lock holders on different agents overlapped by less than their clocks could be off (up to %s): not counted as overlaps",
		plural(n, "pair", "pairs"), worst.Round(time.Microsecond))
}

// clockGap says, in lock-only, that mutual exclusion cannot be told:
// holders on different agents overlapped by less than their clocks could
// be off, and no other overlap proves or explains a break. A run with such
// overlaps is never valid, and never invalid for them.
func (x *index) clockGap() []string {
	n, worst := x.unclearOverlaps()
	if n == 0 || x.in.Mode != scenarios.LockOnly || x.worldBroke() || x.provenBreak() {
		return nil
	}
	return []string{fmt.Sprintf("mutual exclusion cannot be told: %s of lock holders on different agents overlapped by less than their clocks could be off (up to %s)",
		plural(n, "pair", "pairs"), worst.Round(time.Microsecond))}
}

// provenBreak reports whether some overlap is longer than the clocks could
// make up and not the world's: the lock was not exclusive, whatever the
// shorter ones were.
func (x *index) provenBreak() bool {
	for _, o := range x.overlaps {
		if !o.unclear && !o.cause.world() {
			return true
		}
	}
	return false
}

// maxClockError is the most any process's instants may be off the
// coordinator's: zero on one clock.
func (x *index) maxClockError() int64 {
	var worst time.Duration
	for _, u := range x.in.ClockUncertainty {
		worst = max(worst, u+clockMargin)
	}
	return int64(worst)
}

// ClockUncertainties is the uncertainty of each process's clock in run
// (the estimate's, plus how far it drifted during the race), by process
// number; nil when it raced no agents.
func ClockUncertainties(run history.Run) []time.Duration {
	if len(run.Agents) == 0 {
		return nil
	}
	out := make([]time.Duration, len(run.Agents))
	for i, a := range run.Agents {
		out[i] = time.Duration(a.Uncertainty + a.Drift)
	}
	return out
}

package verify

import (
	"fmt"
	"time"

	"github.com/hammer-load/hammer/history"
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

// provable keeps the overlaps longer than their holders' clocks could
// make up, and counts the others, with the largest error among them.
func (x *index) provable(found []pair) (kept []pair, unclear int, worst time.Duration) {
	for _, o := range found {
		e := x.clockError(o.First.Proc, o.Second.Proc)
		if e > 0 && o.To-o.From <= e {
			unclear++
			worst = max(worst, time.Duration(e))
			continue
		}
		kept = append(kept, o)
	}
	return kept, unclear, worst
}

// clockNote says how many overlaps were left out as within the clocks'
// error; "" when none was.
func (x *index) clockNote() string {
	if x.unclear == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s of lock holders on different agents overlapped by less than their clocks could be off (up to %s): not counted as overlaps",
		x.unclear, pick(x.unclear, "pair", "pairs"), x.unclearBy.Round(time.Microsecond))
}

// ClockUncertainties is the uncertainty of each process's clock in run,
// by process number; nil when it raced no agents.
func ClockUncertainties(run history.Run) []time.Duration {
	if len(run.Agents) == 0 {
		return nil
	}
	out := make([]time.Duration, len(run.Agents))
	for i, a := range run.Agents {
		out[i] = time.Duration(a.Uncertainty)
	}
	return out
}

package verify

import (
	"fmt"
	"slices"

	"github.com/hammer-load/hammer/history"
)

// unmetFaults returns the fault events that struck but whose timeline
// did not happen (history.FaultEvent.Unmet): the lock was taken from a
// holder and nobody took it before that holder went on.
func unmetFaults(faults []history.FaultEvent) []history.FaultEvent {
	var out []history.FaultEvent
	for _, f := range faults {
		if f.Unmet != "" && f.Failed == "" {
			out = append(out, f)
		}
	}
	return out
}

// unmetGaps says, one line per fault, why a run whose fault's timeline did
// not happen cannot be judged as if it had: it never put two holders in
// the lock at once, so it shows nothing of what the fault does to the
// strategy. The first line also counts the contenders not taken for a
// stuck lock because they gave up while the fault held its holder back.
func (x *index) unmetGaps() []string {
	var out []string
	for _, f := range unmetFaults(x.in.Faults) {
		out = append(out, fmt.Sprintf("fault %s struck %s, but %s: the overlap it makes never happened, so the run cannot show what %s does to the strategy (worth a retry)",
			f.Fault, f.RequestID, f.Unmet, f.Fault))
	}
	if n := x.heldBack; n > 0 && len(out) > 0 {
		out[0] += fmt.Sprintf("; %s that gave up on the lock while it held its holder back %s not counted as a stuck lock",
			plural(n, "contender", "contenders"), pick(n, "is", "are"))
	}
	return out
}

// heldBackTimeouts counts the attempts that gave up on the lock while one
// of the unmet faults held its struck holder back: from the strike until
// that holder went on, the fault, not the strategy, kept the lock from
// the waiters.
func heldBackTimeouts(attempts []history.Attempt, unmet []history.FaultEvent) int {
	if len(unmet) == 0 {
		return 0
	}
	n := 0
	for i := range attempts {
		if a := &attempts[i]; a.Outcome == history.LockTimeout && heldBackBy(a, unmet) {
			n++
		}
	}
	return n
}

// heldBackBy reports whether attempt a waited while one of the unmet
// faults held its struck holder back.
func heldBackBy(a *history.Attempt, unmet []history.FaultEvent) bool {
	return slices.ContainsFunc(unmet, func(f history.FaultEvent) bool {
		return a.Invoke <= f.End && a.Complete >= f.Start
	})
}

package verify

import (
	"fmt"

	"github.com/hammer-load/hammer/history"
)

// unmet returns the fault events that struck but whose timeline did not
// happen (history.FaultEvent.Unmet): the lock was taken from a holder and
// nobody took it before that holder went on.
func (x *index) unmet() []history.FaultEvent {
	var out []history.FaultEvent
	for _, f := range x.in.Faults {
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
	for _, f := range x.unmet() {
		out = append(out, fmt.Sprintf("fault %s struck %s, but %s: the overlap it makes never happened, so the run cannot show what %s does to the strategy (worth a retry)",
			f.Fault, f.RequestID, f.Unmet, f.Fault))
	}
	if n := x.heldBackTimeouts(); n > 0 && len(out) > 0 {
		out[0] += fmt.Sprintf("; %s that gave up on the lock while it held its holder back %s not counted as a stuck lock",
			plural(n, "contender", "contenders"), pick(n, "is", "are"))
	}
	return out
}

// heldBack reports whether attempt a waited for the lock while a fault
// whose timeline did not happen held its struck holder back: from the
// strike until that holder went on, the fault, not the strategy, kept the
// lock from the waiters.
func (x *index) heldBack(a *history.Attempt) bool {
	for _, f := range x.in.Faults {
		if f.Unmet != "" && f.Failed == "" && a.Invoke <= f.End && a.Complete >= f.Start {
			return true
		}
	}
	return false
}

// heldBackTimeouts counts the contenders that gave up on the lock while a
// fault whose timeline did not happen held its holder back.
func (x *index) heldBackTimeouts() int {
	n := 0
	for i := range x.in.Attempts {
		if a := &x.in.Attempts[i]; a.Outcome == history.LockTimeout && x.heldBack(a) {
			n++
		}
	}
	return n
}

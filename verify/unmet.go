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
// strategy.
func (x *index) unmetGaps() []string {
	var out []string
	for _, f := range x.unmet() {
		out = append(out, fmt.Sprintf("fault %s struck %s, but %s: the overlap it makes never happened, so the run cannot show what %s does to the strategy (worth a retry)",
			f.Fault, f.RequestID, f.Unmet, f.Fault))
	}
	return out
}

// heldBack turns stuck-lock violations into notes when a fault's timeline
// did not happen: the fault itself held the struck holder back with the
// lock for as long as it waited for a successor, so contenders that gave
// up meanwhile waited on hammer, not on the strategy.
func (x *index) heldBack(vs []Violation) (kept []Violation, void []string) {
	if len(x.unmet()) == 0 {
		return vs, nil
	}
	for _, v := range vs {
		if v.Check != CheckStuckLock {
			kept = append(kept, v)
			continue
		}
		void = append(void, fmt.Sprintf("not counted, as the fault held its struck holder back with the lock while nobody took it: %s: %s",
			v.Check, v.Detail))
	}
	return kept, void
}

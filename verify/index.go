package verify

import (
	"fmt"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
)

// index groups a run's attempts and sale rows by request id so every check
// can look them up.
type index struct {
	in       Input
	attempts map[string][]history.Attempt // by request id, in history order
	rows     map[string][]history.Sale    // by request id, in ledger order
	// attemptIDs and rowIDs are the keys of attempts and rows in natural
	// order, sorted once for every check.
	attemptIDs, rowIDs []string
	overlaps           []overlap // lock holders that overlapped, with why
	// miscounted says, per worker, where the history holds another number
	// of attempts than the race made.
	miscounted []string
	// ownSales counts the distinct request ids of the sale rows that are
	// the race's own (distinctOwn).
	ownSales int
	// heldBack counts the contenders that gave up on the lock while a
	// fault whose timeline did not happen held its holder back (unmet.go);
	// queued, those that gave up while the lock moved on (queue.go).
	heldBack, queued int
}

func newIndex(in Input) *index {
	in.Integrity = append(truncatedIntegrity(in), in.Integrity...)
	x := &index{
		in:       in,
		attempts: make(map[string][]history.Attempt, len(in.Attempts)),
		rows:     make(map[string][]history.Sale, len(in.Sales)),
	}
	for _, a := range in.Attempts {
		x.attempts[a.RequestID] = append(x.attempts[a.RequestID], a)
	}
	for _, s := range in.Sales {
		x.rows[s.RequestID] = append(x.rows[s.RequestID], s)
	}
	x.attemptIDs, x.rowIDs = sortedIDs(x.attempts), sortedIDs(x.rows)
	x.ownSales = distinctOwn(in.Sales, x.attempts)
	x.overlaps = x.classify()
	x.miscounted = miscounted(in)
	unmet := unmetFaults(in.Faults)
	x.heldBack, x.queued = heldBackTimeouts(in.Attempts, unmet), queuedTimeouts(in, unmet)
	return x
}

// violations runs every check in report order.
func (x *index) violations() []Violation {
	var out []Violation
	for _, check := range []func() []Violation{
		x.oversell,
		x.conservation,
		x.doubleSold,
		x.missingSales,
		x.phantomSales,
		x.duplicateRequests,
		x.mutualExclusion,
		x.unexpectedErrors,
		x.stuckLock,
	} {
		out = append(out, check()...)
	}
	return out
}

// notes gathers the facts that are not violations.
func (x *index) notes() []string {
	var out []string
	if n := x.lostAcks(); n != "" {
		out = append(out, n)
	}
	if n := x.overlapNote(); n != "" {
		out = append(out, n)
	}
	if n := x.clockNote(); n != "" {
		out = append(out, n)
	}
	if n := x.queueNote(); n != "" {
		out = append(out, n)
	}
	out = append(out, x.outageNotes()...)
	if orphans := x.orphanRows(); len(orphans) > 0 && !x.complete() && x.ledgerUsable() {
		out = append(out, fmt.Sprintf("%s: %s", pick(len(orphans),
			"1 ledger row belongs to no recorded attempt; with the history incomplete, its attempt may simply be unreported",
			fmt.Sprintf("%d ledger rows belong to no recorded attempt; with the history incomplete, their attempts may simply be unreported", len(orphans))),
			capList(orphans)))
	}
	return out
}

// undetermined lists why a run without violations cannot be called valid.
// Attempts without a known outcome alone do not: they are named, their
// ledger rows are allowed either way, and every check can still be made.
// What cannot be judged is a history that may lack attempts altogether.
func (x *index) undetermined() []string {
	return x.gaps()
}

// gaps lists what is missing from or unreadable in the evidence. They keep
// a clean run from being valid and are worth a note on an invalid one.
func (x *index) gaps() []string {
	var out []string
	for _, r := range x.in.Incomplete {
		out = append(out, "history incomplete: "+r)
	}
	for _, p := range x.in.Integrity {
		out = append(out, p.Detail)
	}
	out = append(out, x.miscounted...)
	out = append(out, x.infraGaps()...)
	out = append(out, x.worldGaps()...)
	out = append(out, x.unmetGaps()...)
	out = append(out, x.clockGap()...)
	if x.in.Sector == nil && x.ledgerRead() && !x.in.NoCounter {
		out = append(out, "final sector row was not read")
	}
	if len(x.in.Attempts) == 0 {
		out = append(out, "no attempts were recorded")
	}
	if x.unanswered() {
		out = append(out, "no request got an answer a response rule of the target file matched: the service was not seen to sell or refuse anything")
	}
	if n, first, replica := x.unmatched(); n > 0 {
		out = append(out, fmt.Sprintf("%s of the service matched no response rule of the target file, so what they did cannot be told (first: %s)%s",
			plural(n, "answer", "answers"), first, x.logged(replica)))
	}
	if odd := x.unrecognised(); len(odd) > 0 {
		out = append(out, fmt.Sprintf("%s: %s",
			pick(len(odd), "1 attempt has an unrecognised outcome",
				fmt.Sprintf("%d attempts have an unrecognised outcome", len(odd))),
			capList(odd)))
	}
	return out
}

// complete reports whether the history is known to hold every attempt: no
// reason it is incomplete, every worker's attempts counted, and
// history.jsonl checked against its digest and found intact.
func (x *index) complete() bool {
	return len(x.in.Incomplete) == 0 && len(x.miscounted) == 0 && !x.inDoubt(folder.HistoryFile)
}

// count returns how many attempts ended with outcome o.
func (x *index) count(o history.Outcome) int {
	n := 0
	for _, a := range x.in.Attempts {
		if a.Outcome == o {
			n++
		}
	}
	return n
}

// unrecognised names the attempts whose outcome is none of the known ones,
// as "request (outcome)" sorted by request id.
func (x *index) unrecognised() []string {
	var out []string
	for _, id := range x.attemptIDs {
		for _, a := range x.attempts[id] {
			if !known(a.Outcome) {
				out = append(out, fmt.Sprintf("%s (%q)", quoteEmpty(id), a.Outcome))
			}
		}
	}
	return out
}

func known(o history.Outcome) bool {
	switch o {
	case history.Sold, history.SoldOut, history.LockTimeout, history.Rejected, history.Error, history.Unknown:
		return true
	}
	return false
}

// lostAcks describes the attempts that ended in error or unknown and how many
// of them committed a sale anyway; empty when there were none.
func (x *index) lostAcks() string {
	errs, unknowns, committed := 0, 0, 0
	for _, a := range x.in.Attempts {
		if !a.Outcome.Indeterminate() {
			continue
		}
		if a.Outcome == history.Error {
			errs++
		} else {
			unknowns++
		}
		if len(x.rows[a.RequestID]) > 0 {
			committed++
		}
	}
	if errs+unknowns == 0 {
		return ""
	}
	head := fmt.Sprintf("%s ended in error", plural(errs, "attempt", "attempts"))
	switch {
	case errs == 0:
		head = fmt.Sprintf("%s ended without a known outcome", plural(unknowns, "attempt", "attempts"))
	case unknowns > 0:
		head = fmt.Sprintf("%s ended in error or without a known outcome (%d error, %d unknown)",
			plural(errs+unknowns, "attempt", "attempts"), errs, unknowns)
	}
	switch {
	case !x.ledgerRead():
		return head + "; whether any of them committed a sale is not known (the ledger was not read back)"
	case !x.ledgerUsable():
		return head + "; whether any of them committed a sale is not known (the ledger's rows prove nothing)"
	case committed == 0:
		return head + pick(errs+unknowns, "; it did not commit a sale", "; none of them committed a sale")
	}
	return fmt.Sprintf("%s; %d of them committed a sale anyway (lost acknowledgement)", head, committed)
}

// orphanRows names the sale rows whose request id matches no attempt, as
// "request (seat N)" sorted by request id.
func (x *index) orphanRows() []string {
	var out []string
	for _, id := range x.rowIDs {
		if len(x.attempts[id]) > 0 {
			continue
		}
		for _, r := range x.rows[id] {
			out = append(out, fmt.Sprintf("%s (seat %d)", quoteEmpty(id), r.Seat))
		}
	}
	return out
}

// unmatched counts the service's answers that no response rule of the
// target file matched, and describes the first by request id. Under a
// fault that explains errors (a server cut off, a replica killed), such
// an answer is the service's error, expected: it counts none.
func (x *index) unmatched() (n int, first, replica string) {
	if x.in.Fault.ExplainsErrors() {
		return 0, "", ""
	}
	for _, id := range x.attemptIDs {
		for _, a := range x.attempts[id] {
			if a.Outcome == history.Unknown && a.Status != 0 {
				if n == 0 {
					first, replica = fmt.Sprintf("%s: %s", id, a.Err), a.Replica
				}
				n++
			}
		}
	}
	return n, first, replica
}

// unanswered reports a race against a user's service in which no request
// got an answer a rule matched (sold, sold out or rejected), outside a
// fault that explains errors: nothing was seen that could be judged.
func (x *index) unanswered() bool {
	if x.in.Fault.ExplainsErrors() || len(x.in.Attempts) == 0 || x.in.Attempts[0].Replica == "" {
		return false
	}
	for _, a := range x.in.Attempts {
		if a.Outcome == history.Sold || a.Outcome == history.SoldOut || a.Outcome == history.Rejected {
			return false
		}
	}
	return true
}

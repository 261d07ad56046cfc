package verify

import (
	"cmp"
	"fmt"
	"github.com/hammer-load/hammer/folder"
	"slices"
	"strings"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/tracecontext"
)

// event is one line of a story: something that happened at a time.
type event struct {
	at   int64
	text string
}

// attemptEvents tells what one attempt did, phase by phase.
func (x *index) attemptEvents(a history.Attempt) []event {
	if a.Replica != "" {
		return requestEvents(a)
	}
	who := fmt.Sprintf("%s (process %d)", a.RequestID, a.Proc)
	var out []event
	if a.LockAcquired != 0 {
		token := ""
		if a.Token != 0 {
			token = fmt.Sprintf(" with fencing token %d", a.Token)
		}
		out = append(out, event{a.LockAcquired, who + " took the lock" + token})
		if ttl := int64(x.in.LockTTL); ttl > 0 && a.DBEnd > a.LockAcquired+ttl && (!x.in.Extend || a.LockLost) {
			what := fmt.Sprintf("the lock of %s expired (TTL %s) while it was still working", a.RequestID, ms(ttl))
			if x.in.Extend {
				what = fmt.Sprintf("the lock of %s expired (TTL %s, its heartbeat stopped with the pause)", a.RequestID, ms(ttl))
			}
			out = append(out, event{a.LockAcquired + ttl, what})
		}
	}
	if a.ReadAvailable != nil {
		out = append(out, event{a.ReadAt, fmt.Sprintf("%s read available = %d", who, *a.ReadAvailable)})
	}
	if a.DBEnd != 0 {
		out = append(out, event{a.DBEnd, who + " " + wrote(a)})
	}
	if a.LockReleased != 0 && a.LockLost {
		out = append(out, event{a.LockReleased, fmt.Sprintf(
			"%s released the lock, which was no longer its own", a.RequestID)})
	}
	return out
}

// requestEvents tells what a request to a user's service did, from the
// client's side: when it was sent, to which replica, with which trace id
// (to look the request up in the service's traces), and what came back.
// A trace id that is not one (a changed record) is left out.
func requestEvents(a history.Attempt) []event {
	who := fmt.Sprintf("%s (process %d)", a.RequestID, a.Proc)
	if _, ok := tracecontext.ParseTraceID(a.Trace); ok {
		who = fmt.Sprintf("%s (process %d, trace %s)", a.RequestID, a.Proc, a.Trace)
	}
	out := []event{{a.Invoke, fmt.Sprintf("%s sent its request to replica %s", who, a.Replica)}}
	if a.Complete == 0 {
		return out
	}
	answer := fmt.Sprintf("got %d: ", a.Status)
	if a.Status == 0 && a.Outcome == history.Unknown {
		answer = "got no answer: "
	} else if a.Status == 0 {
		answer = "got "
	}
	switch a.Outcome {
	case history.Sold:
		answer += fmt.Sprintf("sold seat %d", a.Seat)
	case history.Unknown:
		answer += a.Err
	default:
		answer += string(a.Outcome)
	}
	return append(out, event{a.Complete, fmt.Sprintf("%s %s", a.RequestID, answer)})
}

// wrote says how an attempt's sale ended.
func wrote(a history.Attempt) string {
	switch a.Outcome {
	case history.Sold:
		if a.ReadAvailable != nil {
			return fmt.Sprintf("wrote available = %d and sold seat %d", *a.ReadAvailable-1, a.Seat)
		}
		return fmt.Sprintf("sold seat %d", a.Seat)
	case history.SoldOut:
		return "found the sector sold out"
	case history.Rejected:
		return "was rejected by the database (" + a.Err + ")"
	default:
		return "ended with " + string(a.Outcome)
	}
}

// faultEvents tells the injected faults that struck the given requests,
// or the replicas of a user's service they went to.
func (x *index) faultEvents(ids ...string) []event {
	struck := slices.Clone(ids)
	for _, id := range ids {
		for _, a := range x.attempts[id] {
			if i, _, ok := strings.Cut(strings.TrimPrefix(a.Replica, "r"), " "); ok && a.Replica != "" {
				struck = append(struck, "replica "+i)
			}
		}
	}
	var out []event
	for _, f := range x.in.Faults {
		if slices.Contains(struck, f.RequestID) {
			out = append(out, event{f.Start, "fault " + string(f.Fault) + ": " + f.Detail})
			if f.End > f.Start {
				out = append(out, event{f.End, fmt.Sprintf("fault %s on %s ended", f.Fault, f.RequestID)})
			}
		}
	}
	return out
}

// story is a told story with its actors and seat, ready for a Violation.
type story struct {
	lines  []string
	actors []string
	seat   int
}

// tell renders events in time order, each stamped from the go signal.
func (x *index) tell(events []event, ending string) []string {
	slices.SortStableFunc(events, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	out := make([]string, 0, len(events)+1)
	for _, e := range events {
		out = append(out, fmt.Sprintf("%9s  %s", "+"+ms(e.at-x.in.GoAt), e.text))
	}
	return append(out, "=> "+ending)
}

// attemptsOf returns the recorded attempts of a request.
func (x *index) attemptsOf(id string) []history.Attempt { return x.attempts[id] }

// seatStory tells how seat ended up sold to more than one request: the
// first two sales of it and everything that led to them.
func (x *index) seatStory(seat int, rows []history.Sale) story {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b history.Sale) int { return cmp.Compare(a.SoldAt, b.SoldAt) })
	ids := []string{rows[0].RequestID, rows[1].RequestID}
	actors := slices.Clone(ids)
	var events []event
	for _, id := range ids {
		for _, a := range x.attemptsOf(id) {
			events = append(events, x.attemptEvents(a)...)
			// A seller that read a count written by a holder that had lost
			// its lock was misled by that stale write: tell it too.
			if w, ok := x.staleWriter(a); ok && !slices.Contains(actors, w.RequestID) {
				actors = append(actors, w.RequestID)
				events = append(events, x.attemptEvents(w)...)
			}
		}
	}
	events = append(events, x.faultEvents(actors...)...)
	return story{lines: x.tell(events, fmt.Sprintf("seat %d was sold to both %s and %s", seat, ids[0], ids[1])),
		actors: actors, seat: seat}
}

// staleWriter finds the write that produced the count a read-then-write saw,
// if that write came from a holder that had lost its lock (it wrote a count
// read before others had sold).
func (x *index) staleWriter(a history.Attempt) (history.Attempt, bool) {
	if a.ReadAvailable == nil {
		return history.Attempt{}, false
	}
	var best history.Attempt
	found := false
	for _, w := range x.in.Attempts {
		if w.Outcome != history.Sold || w.ReadAvailable == nil || *w.ReadAvailable-1 != *a.ReadAvailable ||
			w.DBEnd == 0 || w.DBEnd > a.ReadAt || (found && w.DBEnd < best.DBEnd) {
			continue
		}
		best, found = w, true
	}
	return best, found && best.LockLost
}

// overlapStory tells how two holders came to hold the lock at once.
func (x *index) overlapStory(o pair) story {
	events := append(x.attemptEvents(o.First), x.attemptEvents(o.Second)...)
	events = append(events, x.faultEvents(o.First.RequestID, o.Second.RequestID)...)
	return story{lines: x.tell(events, fmt.Sprintf("%s and %s were both in their critical sections from +%s to +%s",
		o.First.RequestID, o.Second.RequestID, ms(o.From-x.in.GoAt), ms(o.To-x.in.GoAt))),
		actors: []string{o.First.RequestID, o.Second.RequestID}}
}

// firstDoubleSale returns the story of the earliest seat sold twice, the
// usual way an oversell happens.
func (x *index) firstDoubleSale() story {
	bySeat := map[int][]history.Sale{}
	for _, s := range x.in.Sales {
		bySeat[s.Seat] = append(bySeat[s.Seat], s)
	}
	best, bestAt := 0, int64(0)
	for seat, rows := range bySeat {
		if len(rows) < 2 {
			continue
		}
		second := secondSale(rows)
		if best == 0 || second < bestAt || (second == bestAt && seat < best) {
			best, bestAt = seat, second
		}
	}
	if best == 0 {
		return story{}
	}
	return x.seatStory(best, bySeat[best])
}

// secondSale is when a seat was sold the second time.
func secondSale(rows []history.Sale) int64 {
	ts := make([]int64, len(rows))
	for i, r := range rows {
		ts[i] = r.SoldAt
	}
	slices.Sort(ts)
	return ts[1]
}

// addStories attaches a story to the oversell and double-sold violations,
// told from the attempts: none when history.jsonl changed after the run,
// whose records may say anything (the violations stand on the ledger).
func (x *index) addStories(vs []Violation) {
	if x.changed(folder.HistoryFile) {
		return
	}
	bySeat := map[int][]history.Sale{}
	for _, s := range x.in.Sales {
		bySeat[s.Seat] = append(bySeat[s.Seat], s)
	}
	for i := range vs {
		switch vs[i].Check {
		case CheckOversell:
			vs[i].attach(x.firstDoubleSale())
		case CheckDoubleSold:
			var seat int
			if _, err := fmt.Sscanf(vs[i].Detail, "seat %d", &seat); err == nil && len(bySeat[seat]) > 1 {
				vs[i].attach(x.seatStory(seat, bySeat[seat]))
			}
		}
	}
}

// attach sets the violation's story, its actors and its seat.
func (v *Violation) attach(s story) {
	v.Story, v.Actors, v.Seat = s.lines, s.actors, s.seat
}

package verify

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hammer-load/hammer/history"
)

// oversell fails when the ledger holds more rows than there are seats;
// on a ledger cut short, when its rows hold more distinct sales of the
// race's own requests than seats.
func (x *index) oversell() []Violation {
	if !x.ledgerUsable() || x.worldBroke() {
		return nil
	}
	sold, seats := x.sold(), x.in.Seats
	if sold <= seats {
		return nil
	}
	atLeast := ""
	if !x.ledgerWhole() {
		atLeast = "at least "
	}
	return []Violation{{Check: CheckOversell, Detail: fmt.Sprintf(
		"sold %s%d of %d seats: %s%d more than exist", atLeast, sold, seats, atLeast, sold-seats)}}
}

// sold is the number of sales the ledger shows: its rows, or on a ledger
// cut short the distinct sales of the race's own requests among them.
func (x *index) sold() int {
	if x.in.LedgerTruncated > 0 {
		return x.ownSales
	}
	return len(x.in.Sales)
}

// conservation fails when the sector row's capacity is not the configured
// one, or when available + sale rows is not its capacity. It is skipped when
// the sector row was not read.
func (x *index) conservation() []Violation {
	s := x.in.Sector
	if s == nil || !x.ledgerWhole() || x.worldBroke() {
		return nil
	}
	var out []Violation
	if s.Capacity != x.in.Seats {
		out = append(out, Violation{Check: CheckConservation, Detail: fmt.Sprintf(
			"sector %d has capacity %d but the run was configured for %d seats",
			s.ID, s.Capacity, x.in.Seats)})
	}
	rows := len(x.in.Sales)
	sum := s.Available + rows
	head := fmt.Sprintf("available %d + %d sale rows = %d, not the capacity %d",
		s.Available, rows, sum, s.Capacity)
	switch {
	case sum > s.Capacity:
		n := sum - s.Capacity
		out = append(out, Violation{Check: CheckConservation, Detail: fmt.Sprintf(
			"%s: %s never decremented the counter (%s)", head,
			plural(n, "sale", "sales"), pick(n, "a lost update", "lost updates"))})
	case sum < s.Capacity:
		n := s.Capacity - sum
		out = append(out, Violation{Check: CheckConservation, Detail: fmt.Sprintf(
			"%s: %s of the counter %s no sale row", head,
			plural(n, "decrement", "decrements"), pick(n, "has", "have"))})
	}
	return out
}

// doubleSold reports, seat by seat, every seat number that appears in more
// than one sale row, naming the requests in ledger order.
func (x *index) doubleSold() []Violation {
	if !x.ledgerUsable() || x.worldBroke() {
		return nil
	}
	bySeat := map[int][]string{}
	for _, s := range x.in.Sales {
		bySeat[s.Seat] = append(bySeat[s.Seat], quoteEmpty(s.RequestID))
	}
	var out []Violation
	for _, seat := range slices.Sorted(maps.Keys(bySeat)) {
		ids := bySeat[seat]
		if len(ids) < 2 {
			continue
		}
		out = append(out, Violation{Check: CheckDoubleSold, Detail: fmt.Sprintf(
			"seat %d sold %d times (requests %s)", seat, len(ids), capList(ids))})
	}
	return out
}

// missingSales fails for attempts told "sold" whose request has no ledger
// row, or whose rows are all for another seat than the one reported. An
// attempt that reported seat 0 (no seat) is only checked for having a row.
// A sale acknowledged before PostgreSQL restarted may have been lost by the
// server: that is a gap (infraGaps), not a violation.
func (x *index) missingSales() []Violation {
	missing, moved, _ := x.unackedSales()
	return append(
		listed(CheckMissingSale, missing, "1 attempt was told it got a seat but has no ledger row",
			"%d attempts were told they got a seat but have no ledger row"),
		listed(CheckMissingSale, moved, "1 attempt was told one seat but its ledger row holds another",
			"%d attempts were told one seat but their ledger rows hold another")...)
}

// unackedSales names the attempts told "sold" that have no ledger row
// (missing), and those whose rows hold other seats (moved); lost counts
// those without a row that were told before PostgreSQL restarted, which
// the server may have lost. All are empty when the ledger was not read,
// or not read whole: the rows not read may hold those sales.
func (x *index) unackedSales() (missing, moved []string, lost int) {
	if !x.ledgerWhole() {
		return nil, nil, 0
	}
	for _, id := range x.attemptIDs {
		rows := x.rows[id]
		for _, a := range x.attempts[id] {
			if a.Outcome != history.Sold {
				continue
			}
			switch seats := seatsOf(rows); {
			case len(rows) == 0 && x.restartedAfter(history.ServerPostgreSQL, a.Complete):
				lost++
			case len(rows) == 0:
				missing = append(missing, named(id, a.Seat))
			case a.Seat != 0 && !slices.Contains(seats, a.Seat):
				moved = append(moved, fmt.Sprintf("%s (told seat %d, ledger has %s %s)",
					quoteEmpty(id), a.Seat, pick(len(seats), "seat", "seats"), andList(seats)))
			}
		}
	}
	return missing, moved, lost
}

// phantomSales fails for sale rows whose attempt was told it got no seat
// (sold_out, lock_timeout) and, when the history is complete, for rows that
// belong to no attempt at all.
func (x *index) phantomSales() []Violation {
	if !x.ledgerUsable() {
		return nil
	}
	var refused []string
	for _, id := range x.rowIDs {
		o, ok := refusal(x.attempts[id])
		if !ok {
			continue
		}
		for _, r := range x.rows[id] {
			refused = append(refused, fmt.Sprintf("%s (seat %d, told %s)", quoteEmpty(id), r.Seat, o))
		}
	}
	out := listed(CheckPhantomSale, refused, "1 ledger row belongs to an attempt that was told it got no seat",
		"%d ledger rows belong to attempts that were told they got no seat")
	if x.complete() {
		out = append(out, listed(CheckPhantomSale, x.orphanRows(), "1 ledger row belongs to no attempt in the history",
			"%d ledger rows belong to no attempt in the history")...)
	}
	return out
}

// refusal reports whether every attempt of a request was told it got no
// seat, and with which outcome (the first one's).
func refusal(atts []history.Attempt) (history.Outcome, bool) {
	if len(atts) == 0 {
		return "", false
	}
	for _, a := range atts {
		if a.Outcome != history.SoldOut && a.Outcome != history.LockTimeout && a.Outcome != history.Rejected {
			return "", false
		}
	}
	return atts[0].Outcome, true
}

// duplicateRequests fails for request ids used by more than one attempt or
// by more than one ledger row.
func (x *index) duplicateRequests() []Violation {
	var inAttempts, inRows []string
	for _, id := range x.attemptIDs {
		// Copies of one request (the duplicate fault) differ in Try.
		tries := map[int]int{}
		for _, a := range x.attempts[id] {
			tries[a.Try]++
		}
		if n := len(x.attempts[id]); n > len(tries) {
			inAttempts = append(inAttempts, fmt.Sprintf("%s (%d attempts)", quoteEmpty(id), n))
		}
	}
	for _, id := range x.rowIDs { // empty when the ledger was not read
		if rows := x.rows[id]; len(rows) > 1 && x.ledgerUsable() {
			inRows = append(inRows, fmt.Sprintf("%s (seats %s)", quoteEmpty(id), andList(seatsOf(rows))))
		}
	}
	return append(
		listed(CheckDuplicateRequest, inAttempts, "1 request id appears in more than one attempt",
			"%d request ids appear in more than one attempt"),
		listed(CheckDuplicateRequest, inRows, "1 request id appears in more than one ledger row",
			"%d request ids appear in more than one ledger row")...)
}

// listed is one violation of check naming items, headed by one for a
// single item and by many (with %d for the count) for more; none without
// items.
func listed(check string, items []string, one, many string) []Violation {
	if len(items) == 0 {
		return nil
	}
	return []Violation{{Check: check, Detail: fmt.Sprintf("%s: %s",
		pick(len(items), one, fmt.Sprintf(many, len(items))), capList(items))}}
}

// seatsOf returns the seats of rows in ledger order.
func seatsOf(rows []history.Sale) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.Seat
	}
	return out
}

// named renders a request id with the seat it reported, if any.
func named(id string, seat int) string {
	if seat == 0 {
		return quoteEmpty(id)
	}
	return fmt.Sprintf("%s (seat %d)", quoteEmpty(id), seat)
}

// quoteEmpty makes an empty request id visible.
func quoteEmpty(id string) string {
	if id == "" {
		return `""`
	}
	return id
}

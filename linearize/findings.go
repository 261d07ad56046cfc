package linearize

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/hammer-load/hammer/history"
)

// findings names the seats porcupine could not linearize: the partitions
// whose longest partial linearization falls short, each re-checked on its
// own, first without the "sold out" answer, to tell a seat sold wrongly
// from a "sold out" answered too early (and from a partition that was
// only cut short by the timeout).
func findings(h History, ops []porcupine.Operation, info porcupine.LinearizationInfo, deadline time.Time) []Finding {
	parts := partition(ops)
	lin := info.PartialLinearizations()
	model := newModel(h.Seats, false)
	start := span(h).start
	var out []Finding
	for i, p := range parts {
		if i < len(lin) && linearized(lin[i], len(p)) {
			continue
		}
		if f, ok := classify(model, h.Seats, p, start, deadline); ok {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		out = append(out, Finding{Unsettled: true,
			Detail: "porcupine found no linearization, but no single seat could be shown to have none"})
	}
	return out
}

// linearized reports whether one of a partition's partial linearizations
// holds all n of its operations.
func linearized(partials [][]int, n int) bool {
	return slices.ContainsFunc(partials, func(p []int) bool { return len(p) == n })
}

// classify re-checks partition p of one seat on its own; ok is false when
// it is linearizable after all.
func classify(model porcupine.Model, seats int, p []porcupine.Operation, start int64, deadline time.Time) (Finding, bool) {
	k := key(p[0].Input.(call), p[0].Output.(answer))
	if k == noSeat {
		return Finding{}, false // buys of no seat change nothing
	}
	f := Finding{Seat: k}
	without := slices.DeleteFunc(slices.Clone(p), func(op porcupine.Operation) bool { return op.Input.(call).Kind == soldOutRead })
	switch porcupine.CheckOperationsTimeout(model, without, left(deadline)) {
	case porcupine.Illegal:
		f.Detail = seatDetail(seats, k, without, start)
		return f, true
	case porcupine.Unknown:
		f.Unsettled, f.Detail = true, fmt.Sprintf("seat %d could not be re-checked in time", k)
		return f, true
	}
	switch porcupine.CheckOperationsTimeout(model, p, left(deadline)) {
	case porcupine.Illegal:
		f.SoldOutOnly, f.Detail = true, soldOutDetail(k, p, without, start)
		return f, true
	case porcupine.Unknown:
		f.Unsettled, f.Detail = true, fmt.Sprintf("seat %d could not be re-checked in time", k)
		return f, true
	}
	return Finding{}, false
}

// left is the time left until deadline for a re-check: none means no
// limit, and a deadline passed leaves a moment.
func left(deadline time.Time) time.Duration {
	if deadline.IsZero() {
		return 0
	}
	return max(time.Until(deadline), time.Millisecond)
}

// seatDetail says what the answers and the ledger hold of seat k, e.g.
// "seat 7: p0-g1 was told it got it at +3.1ms, p1-g2 was told it got it
// at +3.3ms; the ledger holds p0-g1".
func seatDetail(seats, k int, p []porcupine.Operation, start int64) string {
	head := fmt.Sprintf("seat %d", k)
	if k < 1 || k > seats {
		head = fmt.Sprintf("seat %d, which does not exist (the sector has seats 1 to %d)", k, seats)
		if k == 0 {
			head = "no seat"
		}
	}
	return head + ": " + story(p, start)
}

// soldOutDetail says that seat k was free when the first "sold out" was
// answered.
func soldOutDetail(k int, p, without []porcupine.Operation, start int64) string {
	i := slices.IndexFunc(p, func(op porcupine.Operation) bool { return op.Input.(call).Kind == soldOutRead })
	return fmt.Sprintf("seat %d was still free when %s was told sold out at %s: %s",
		k, p[i].Input.(call).Request, history.Offset(start, p[i].Return), story(without, start))
}

// story lists what the operations of one seat say, in the order they
// were answered (those without an answer and the ledger last): at most a
// few of them.
func story(p []porcupine.Operation, start int64) string {
	ops := slices.Clone(p)
	slices.SortStableFunc(ops, func(a, b porcupine.Operation) int { return cmp.Compare(a.Return, b.Return) })
	var told []string
	ledger := "the ledger holds nobody"
	for _, op := range ops {
		c, a := op.Input.(call), op.Output.(answer)
		switch {
		case c.Kind == ledgerRead && len(a.Holders) > 0:
			ledger = "the ledger holds " + andList(capped(a.Holders))
		case c.Kind == ledgerRead, c.Kind == opens:
		case a.Outcome == history.Sold && a.FromLedger:
			told = append(told, fmt.Sprintf("%s was told it got a seat at %s", c.Request, history.Offset(start, op.Return)))
		case a.Outcome == history.Sold:
			told = append(told, fmt.Sprintf("%s was told it got it at %s", c.Request, history.Offset(start, op.Return)))
		default:
			told = append(told, fmt.Sprintf("%s (%s, invoked at %s) may have taken it", c.Request, a.Outcome, history.Offset(start, op.Call)))
		}
	}
	if len(told) == 0 {
		return "nobody was told they got it; " + ledger
	}
	return andList(capped(told)) + "; " + ledger
}

// capped keeps the first few of xs and says how many more there are.
func capped(xs []string) []string {
	const most = 4
	if len(xs) <= most {
		return xs
	}
	return append(slices.Clone(xs[:most]), fmt.Sprintf("%d more", len(xs)-most))
}

// andList renders "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

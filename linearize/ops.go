package linearize

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/hammer-load/hammer/history"
)

// timeline is when a run's operations may happen: from start (the go
// signal) to end, the instant after the last answer, when every attempt
// without a known outcome has happened or never will; the ledger is read
// after end.
type timeline struct {
	start, end  int64
	uncertainty []time.Duration // of each process's clock (History.ClockUncertainty)
}

// span returns the timeline of a run's attempts.
func span(h History) timeline {
	t := timeline{start: h.GoAt, uncertainty: h.ClockUncertainty}
	for _, a := range h.Attempts {
		if a.Invoke != 0 && (t.start == 0 || a.Invoke < t.start) {
			t.start = a.Invoke
		}
	}
	t.end = t.start
	for _, a := range h.Attempts {
		t.end = max(t.end, a.Invoke, a.Complete)
	}
	t.end++
	return t
}

// interval is when attempt a may have taken effect: from its invocation
// to its answer or, without a known outcome, to the end of the run.
func (t timeline) interval(a history.Attempt) (from, to int64) {
	from = a.Invoke
	if from == 0 {
		from = t.start
	}
	to = a.Complete
	if a.Outcome.Indeterminate() || to == 0 {
		to = t.end
	}
	if u := t.uncertainty; a.Proc >= 0 && a.Proc < len(u) {
		from, to = max(from-int64(u[a.Proc]), t.start), min(to+int64(u[a.Proc]), t.end)
	}
	return from, max(from, to)
}

// operations turns a run's history into porcupine's operations: one buy
// per attempt, except that the earliest "sold out" answer becomes one
// read per seat of the sector (every later "sold out" answer is implied
// by it, since seats are never given back, so it alone is checked); one
// read of the ledger per seat, after the end of the run; and, before the
// race, each seat put on sale. The ledger's row of the drawing holds the
// first and the last.
func operations(h History) []porcupine.Operation {
	t := span(h)
	seatsOf := map[string][]int{} // by request, in ledger order
	holders := map[int][]string{} // by seat, in ledger order
	for _, s := range h.Sales {
		seatsOf[s.RequestID] = append(seatsOf[s.RequestID], s.Seat)
		holders[s.Seat] = append(holders[s.Seat], s.RequestID)
	}
	rows := clientRows(h.Attempts, t)
	first := firstSoldOut(h.Attempts)
	ops := make([]porcupine.Operation, 0, len(h.Attempts)+3*h.Seats)
	for i, a := range h.Attempts {
		from, to := t.interval(a)
		meta := t.metadata(a)
		if i == first {
			for s := 1; s <= h.Seats; s++ {
				ops = append(ops, porcupine.Operation{ClientId: rows[i], Call: from, Return: to, Metadata: meta,
					Input: call{Kind: soldOutRead, Request: a.RequestID, Seat: s}, Output: answer{Outcome: a.Outcome}})
			}
			continue
		}
		ops = append(ops, porcupine.Operation{ClientId: rows[i], Call: from, Return: to, Metadata: meta,
			Input: call{Kind: buy, Request: a.RequestID}, Output: answerOf(a, seatsOf[a.RequestID])})
	}
	row := len(h.Attempts)
	if len(rows) > 0 {
		row = slices.Max(rows) + 1
	}
	return append(ops, bookends(ops, h.Seats, holders, t, row)...)
}

// bookends are the operations on the ledger's row of the drawing: before
// the race, each seat put on sale; after it, the ledger's row of each
// seat. The seats are 1..seats, those the ledger holds and those anyone
// was told.
func bookends(ops []porcupine.Operation, seats int, holders map[int][]string, t timeline, row int) []porcupine.Operation {
	on := map[int]bool{}
	for s := 1; s <= seats; s++ {
		on[s] = true
	}
	for s := range holders {
		on[s] = true
	}
	for _, op := range ops {
		if k := key(op.Input.(call), op.Output.(answer)); k != noSeat {
			on[k] = true
		}
	}
	all := make([]int, 0, len(on))
	for s := range on {
		all = append(all, s)
	}
	slices.Sort(all)
	out := make([]porcupine.Operation, 0, 2*len(all))
	for i, s := range all {
		at := t.start - int64(len(all)-i)
		out = append(out, porcupine.Operation{ClientId: row, Call: at, Return: at,
			Input: call{Kind: opens, Seat: s}, Output: answer{}})
	}
	for i, s := range all {
		at := t.end + 1 + int64(i)
		out = append(out, porcupine.Operation{ClientId: row, Call: at, Return: at,
			Input: call{Kind: ledgerRead, Seat: s}, Output: answer{Holders: holders[s]}})
	}
	return out
}

// answerOf is what attempt a was told, with the seat the ledger holds for
// its request (ledger, in ledger order) where the answer does not say.
func answerOf(a history.Attempt, ledger []int) answer {
	ans := answer{Outcome: a.Outcome, Seat: a.Seat}
	switch {
	case a.Outcome == history.Sold && a.Seat != 0:
	case a.Outcome == history.Sold, a.Outcome.Indeterminate():
		ans.Seat = 0
		if len(ledger) > 0 {
			ans.Seat, ans.FromLedger = ledger[0], true
		}
	default:
		ans.Seat = 0
	}
	return ans
}

// firstSoldOut is the index of the "sold out" answer that came first, or
// -1 when nobody was told so.
func firstSoldOut(as []history.Attempt) int {
	first := -1
	for i, a := range as {
		if a.Outcome == history.SoldOut && (first < 0 || a.Complete < as[first].Complete) {
			first = i
		}
	}
	return first
}

// metadata describes attempt a for the visualization's tooltip.
func (t timeline) metadata(a history.Attempt) string {
	s := fmt.Sprintf("%s: process %d, goroutine %d", a.RequestID, a.Proc, a.Goroutine)
	if a.Try > 0 {
		s += fmt.Sprintf(", copy %d", a.Try)
	}
	if a.LockAcquired != 0 {
		s += fmt.Sprintf("; lock from %s", history.Offset(t.start, a.LockAcquired))
		if a.LockReleased != 0 {
			s += " to " + history.Offset(t.start, a.LockReleased)
		}
		if a.LockLost {
			s += " (lost)"
		}
	}
	if a.Hinted {
		s += "; sold out by the hint"
	}
	if a.Err != "" {
		s += "; " + a.Err
	}
	return s
}

// clientRows gives each attempt a row of the visualization: attempts that
// never overlap share one, so a closed race takes as many rows as it had
// contenders in flight at once, an open one far fewer than attempts.
func clientRows(as []history.Attempt, t timeline) []int {
	order := make([]int, len(as))
	for i := range order {
		order[i] = i
	}
	from := func(i int) int64 { f, _ := t.interval(as[i]); return f }
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(from(i), from(j)) })
	rows := make([]int, len(as))
	var busy rowHeap
	n := 0
	for _, i := range order {
		f, to := t.interval(as[i])
		if len(busy) > 0 && busy[0].until < f {
			r := heap.Pop(&busy).(rowEnd)
			rows[i] = r.row
		} else {
			rows[i] = n
			n++
		}
		heap.Push(&busy, rowEnd{row: rows[i], until: to})
	}
	return rows
}

// rowEnd is a row of the visualization and when its last attempt ended.
type rowEnd struct {
	row   int
	until int64
}

// rowHeap orders rows by when they are free again, earliest first.
type rowHeap []rowEnd

func (h rowHeap) Len() int           { return len(h) }
func (h rowHeap) Less(i, j int) bool { return h[i].until < h[j].until }
func (h rowHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rowHeap) Push(x any)        { *h = append(*h, x.(rowEnd)) }
func (h *rowHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

package linearize

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

// race builds a history: attempts stamped in milliseconds from the go
// signal, and ledger rows.
type race struct{ h History }

const goAt = int64(1_000_000_000_000)

func newRace(seats int) *race { return &race{h: History{Run: "r", Seats: seats, GoAt: goAt}} }

func ms(n int) int64 { return goAt + int64(n)*int64(time.Millisecond) }

// attempt adds one attempt invoked at from ms and answered at to ms.
func (r *race) attempt(id string, o history.Outcome, seat, from, to int) *race {
	a := history.Attempt{Run: "r", RequestID: id, Outcome: o, Seat: seat, Invoke: ms(from), Complete: ms(to)}
	if o == history.Unknown {
		a.Invoke, a.Complete = 0, 0
	}
	r.h.Attempts = append(r.h.Attempts, a)
	return r
}

// row adds a ledger row.
func (r *race) row(id string, seat int) *race {
	r.h.Sales = append(r.h.Sales, history.Sale{Run: "r", Sector: 1, Seat: seat, RequestID: id})
	return r
}

// sellout adds contenders told seats first..last, answered one a
// millisecond from 10 ms, each with its row; then n told sold out after.
func (r *race) sellout(first, last, n int) *race {
	for s := first; s <= last; s++ {
		id := fmt.Sprintf("s%d", s)
		r.attempt(id, history.Sold, s, 0, 10+s).row(id, s)
	}
	for i := range n {
		r.attempt(fmt.Sprintf("o%d", i), history.SoldOut, 0, 0, 20+last+i%50)
	}
	return r
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name        string
		h           History
		want        Status
		seatIllegal bool
		detail      string // in the first finding
	}{
		{
			name: "legal sell-out",
			h:    newRace(100).sellout(1, 100, 900).h,
			want: OK,
		},
		{
			name: "seats sold out of order, any free seat",
			h: newRace(3).attempt("a", history.Sold, 3, 0, 5).row("a", 3).
				attempt("b", history.Sold, 1, 0, 6).row("b", 1).
				attempt("c", history.Sold, 2, 0, 7).row("c", 2).
				attempt("d", history.SoldOut, 0, 0, 8).h,
			want: OK,
		},
		{
			name:        "oversell: 101 sold of 100",
			h:           newRace(100).sellout(1, 100, 10).attempt("x", history.Sold, 50, 0, 70).row("x", 50).h,
			want:        Illegal,
			seatIllegal: true,
			detail:      "seat 50: s50 was told it got it at +60.0ms and x was told it got it at +70.0ms; the ledger holds s50 and x",
		},
		{
			name: "the same seat twice, no oversell",
			h: newRace(3).attempt("a", history.Sold, 1, 0, 5).row("a", 1).
				attempt("b", history.Sold, 1, 0, 6).row("b", 1).
				attempt("c", history.Sold, 2, 0, 7).row("c", 2).h,
			want:        Illegal,
			seatIllegal: true,
			detail:      "seat 1: a was told it got it",
		},
		{
			name: "an error that took a seat: it may have happened",
			h: newRace(2).attempt("a", history.Sold, 1, 0, 5).row("a", 1).
				attempt("e", history.Error, 0, 0, 3).row("e", 2).
				attempt("o", history.SoldOut, 0, 4, 9).h,
			want: OK,
		},
		{
			name: "an unknown outcome that never answered took the last seat",
			h: newRace(2).attempt("a", history.Sold, 1, 0, 5).row("a", 1).
				attempt("u", history.Unknown, 0, 0, 0).row("u", 2).
				attempt("o", history.SoldOut, 0, 4, 9).h,
			want: OK,
		},
		{
			name: "an error without a ledger row took nothing",
			h: newRace(2).sellout(1, 2, 1).
				attempt("e", history.Error, 0, 0, 3).h,
			want: OK,
		},
		{
			name: "an error whose seat someone else was told",
			h: newRace(2).sellout(1, 2, 0).
				attempt("e", history.Error, 0, 0, 3).row("e", 2).h,
			want:        Illegal,
			seatIllegal: true,
			detail:      "seat 2: s2 was told it got it at +12.0ms and e (error, invoked at +0.0ms) may have taken it; the ledger holds s2 and e",
		},
		{
			name:        "told sold, no ledger row",
			h:           newRace(3).sellout(1, 2, 0).attempt("m", history.Sold, 3, 0, 5).h,
			want:        Illegal,
			seatIllegal: true,
			detail:      "seat 3: m was told it got it at +5.0ms; the ledger holds nobody",
		},
		{
			name:        "told sold out, holds a row",
			h:           newRace(3).sellout(1, 2, 0).attempt("p", history.SoldOut, 0, 0, 30).row("p", 3).h,
			want:        Illegal,
			seatIllegal: true,
			detail:      "seat 3: nobody was told they got it; the ledger holds p",
		},
		{
			name:        "a seat that does not exist",
			h:           newRace(2).sellout(1, 1, 0).attempt("z", history.Sold, 3, 0, 5).row("z", 3).h,
			want:        Illegal,
			seatIllegal: true,
			detail:      "seat 3, which does not exist (the sector has seats 1 to 2)",
		},
		{
			name: "sold out before the last seat was sold",
			h: newRace(2).attempt("a", history.Sold, 1, 0, 5).row("a", 1).
				attempt("o", history.SoldOut, 0, 0, 6).
				attempt("b", history.Sold, 2, 7, 9).row("b", 2).h,
			want:   Illegal,
			detail: "seat 2 was still free when o was told sold out at +6.0ms: b was told it got it at +9.0ms; the ledger holds b",
		},
		{
			name: "sold out while a seat stays free",
			h: newRace(2).attempt("a", history.Sold, 1, 0, 5).row("a", 1).
				attempt("o", history.SoldOut, 0, 0, 6).h,
			want:   Illegal,
			detail: "seat 2 was still free when o was told sold out at +6.0ms: nobody was told they got it; the ledger holds nobody",
		},
		{
			name: "a retried copy told the seat it already holds",
			h: newRace(1).attempt("a", history.Sold, 1, 0, 5).row("a", 1).
				attempt("a", history.Sold, 1, 1, 6).h,
			want: OK,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(tt.h, DefaultTimeout)
			if got.Status != tt.want {
				t.Fatalf("status = %s (%s), want %s", got.Status, got.Summary(), tt.want)
			}
			if got.SeatsIllegal() != tt.seatIllegal {
				t.Errorf("SeatsIllegal = %v, want %v (%s)", got.SeatsIllegal(), tt.seatIllegal, got.Summary())
			}
			if tt.detail != "" && !strings.HasPrefix(got.Findings[0].Detail, tt.detail) {
				t.Errorf("first finding = %q, want it to start with %q", got.Findings[0].Detail, tt.detail)
			}
		})
	}
}

func TestCheckLedgerUnread(t *testing.T) {
	h := newRace(2).sellout(1, 2, 3).h
	h.LedgerUnread = true
	got := Check(h, DefaultTimeout)
	if got.Status != NotChecked || got.CanVisualize() {
		t.Errorf("got %s (can visualize: %v), want not checked and nothing to draw", got.Summary(), got.CanVisualize())
	}
}

// TestCheckTimeout: a check that cannot finish in time is "not checked",
// never "ok".
func TestCheckTimeout(t *testing.T) {
	h := newRace(1000).sellout(1, 1000, 9000).h
	got := Check(h, time.Nanosecond)
	if got.Status != NotChecked {
		t.Fatalf("status = %s, want %s", got.Summary(), NotChecked)
	}
	if !strings.Contains(got.Reason, "did not finish within 1ns") {
		t.Errorf("reason = %q", got.Reason)
	}
}

// TestCheckFast: a 1000-contender, 100-seat history checks in well under
// a second, a legal one and one that oversells on every seat.
func TestCheckFast(t *testing.T) {
	legal := newRace(100).sellout(1, 100, 900).h
	oversold := newRace(100).sellout(1, 100, 0)
	for i := range 900 {
		id := fmt.Sprintf("x%d", i)
		oversold.attempt(id, history.Sold, 1+i%100, i%7, 15+i%90).row(id, 1+i%100)
	}
	for _, c := range []struct {
		name string
		h    History
		want Status
	}{{"legal", legal, OK}, {"oversold", oversold.h, Illegal}} {
		got := Check(c.h, DefaultTimeout)
		if got.Status != c.want {
			t.Errorf("%s: status = %s, want %s", c.name, got.Status, c.want)
		}
		if got.Elapsed > time.Second { // ~20 ms without -race
			t.Errorf("%s: took %s, want well under a second", c.name, got.Elapsed)
		}
		t.Logf("%s: %d operations in %s", c.name, got.Operations, got.Elapsed)
	}
}

func TestVisualize(t *testing.T) {
	h := newRace(2).attempt("a", history.Sold, 1, 0, 5).row("a", 1).
		attempt("b", history.Sold, 1, 0, 6).row("b", 1).h
	h.Attempts[0].LockAcquired, h.Attempts[0].LockReleased = ms(1), ms(4)
	h.Faults = []history.FaultEvent{{Fault: "pause", Start: ms(2), End: ms(3), Detail: "SIGSTOP"}}
	var b strings.Builder
	if err := Check(h, DefaultTimeout).Visualize(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<title>porcupine: r</title>", "porcupine says <b>illegal: seat 1:", "jump-link", "dispatchEvent", `"Tag":"lock"`, `"Tag":"fault"`, "a: sold seat 1"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	b.Reset()
	if err := Check(newRace(1).sellout(1, 1, 1).h, DefaultTimeout).Visualize(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "dispatchEvent") {
		t.Error("a legal history's page jumps to an error")
	}
}

// TestCheckTooLarge: a history too large to hand porcupine is "not
// checked" at once, never "ok".
func TestCheckTooLarge(t *testing.T) {
	h := newRace(MaxOperations).sellout(1, 2, 3).h
	began := time.Now()
	got := Check(h, DefaultTimeout)
	if got.Status != NotChecked || !strings.Contains(got.Reason, "more than porcupine is given") || time.Since(began) > time.Second {
		t.Fatalf("got %s after %s, want not checked at once", got.Summary(), time.Since(began))
	}
}

// TestCheckTooLargeToDraw: a history of more than MaxDrawn operations is
// checked all the same, but not kept to draw; a smaller one is drawn.
func TestCheckTooLargeToDraw(t *testing.T) {
	for _, h := range []History{newRace(100).sellout(1, 100, 900).h, newRace(9000).sellout(1, 9000, 0).h} {
		got := Check(h, DefaultTimeout)
		if got.Status != OK {
			t.Fatalf("%d operations: %s, want ok", got.Operations, got.Summary())
		}
		drawn := got.Operations <= MaxDrawn
		if got.CanVisualize() != drawn {
			t.Errorf("%d operations: can visualize %v, want %v (MaxDrawn %d)", got.Operations, got.CanVisualize(), drawn, MaxDrawn)
		}
		if err := got.Visualize(io.Discard); drawn != (err == nil) {
			t.Errorf("%d operations: Visualize: %v", got.Operations, err)
		}
		t.Logf("%d operations: drawn %v", got.Operations, drawn)
	}
}

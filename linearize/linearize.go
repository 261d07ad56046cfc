// Package linearize is hammer's second checker: it checks a run's history
// for linearizability with porcupine (github.com/anishathalye/porcupine),
// independently of package verify's counting checks, and draws porcupine's
// interactive visualization of it.
//
// The model is the sector as a sequential object: a sale takes a free seat
// (any free seat, numbered 1..seats: the counter modes hand out the next
// one, skip-locked any row nobody holds) or answers "sold out", which it
// may only do once every seat is taken; a seat is never given back. An
// attempt whose outcome is not known (an error, no answer) may or may not
// have taken the seat the ledger holds for its request, at any time after
// it was invoked. After the race, the ledger is read: it must hold exactly
// the seats the linearization sold, each by the request it was sold to.
//
// Each seat is its own object (P-compositionality): the history is
// partitioned by seat, the sales of one seat, the first "sold out" answer
// and the ledger's row for that seat in each, which keeps every partition
// a handful of operations. "Sold out" is read as "every seat is taken";
// since seats only ever get taken, the answer that came first implies every
// later one, so only it is checked, seat by seat.
//
// What the model cannot see: the sector's available counter (hammer's
// conservation check), the lock (mutual exclusion), errors and stuck
// locks. What only it judges: "sold out" answered while a seat was free,
// and seats outside 1..seats.
package linearize

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/hammer-load/hammer/history"
)

// Status is porcupine's verdict on a run.
type Status string

// The statuses a check can end with.
const (
	// OK: the history is linearizable: the answers and the ledger fit one
	// sequence of sales.
	OK Status = "ok"
	// Illegal: no sequence of sales explains the answers and the ledger.
	Illegal Status = "illegal"
	// NotChecked: the check could not be made (the ledger was not read)
	// or did not finish in time. Never as good as OK.
	NotChecked Status = "not checked"
)

// DefaultTimeout bounds the check of one run.
const DefaultTimeout = 10 * time.Second

// MaxOperations bounds the history Check hands porcupine: one operation
// per attempt and three per seat. Porcupine's timeout bounds its search,
// not the preparation of its input, which for a sector of a million seats
// alone took longer than the race (25 s).
const MaxOperations = 250_000

// MaxDrawn bounds the history Check keeps for porcupine to draw (see
// Result.Visualize); a bigger one is checked all the same. A drawing of
// a 100,000-contender race is a page of 28 MB, and making it took 105 MiB
// of the coordinator's memory, a tenth of what the whole race may use.
const MaxDrawn = 25_000

// History is what the check looks at for one run.
type History struct {
	// Run names the run, for the visualization.
	Run string
	// Seats is the sector's capacity as configured.
	Seats int
	// Attempts holds one record per contender.
	Attempts []history.Attempt
	// Sales holds the ledger rows as read back after the run.
	Sales []history.Sale
	// LedgerUnread is set when the ledger could not be read back: the
	// check is not made.
	LedgerUnread bool
	// GoAt is when the contenders were released (Unix ns).
	GoAt int64
	// Faults, Outages: drawn as annotations of the visualization.
	Faults  []history.FaultEvent
	Outages []history.Outage
	// ClockUncertainty is how far each process's clock may be off the
	// coordinator's (a run raced on agents), by process number; each
	// attempt's interval is widened by its process's, so that real-time
	// order is only asserted where the clocks can tell it. Nil: one clock.
	ClockUncertainty []time.Duration
}

// Finding is one seat porcupine could not linearize.
type Finding struct {
	// Seat is the seat; for a sale of no seat at all, 0.
	Seat int `json:"seat"`
	// SoldOutOnly: the seat's sales and the ledger fit together, but
	// someone was told "sold out" while the seat was still free.
	SoldOutOnly bool `json:"sold_out_only,omitempty"`
	// Unsettled: the seat could not be re-checked in time to tell which.
	Unsettled bool `json:"unsettled,omitempty"`
	// Detail says what happened to the seat, in plain words.
	Detail string `json:"detail"`
}

// Result is porcupine's verdict on one run.
type Result struct {
	Status Status
	// Findings lists the seats that could not be linearized (Illegal).
	Findings []Finding
	// Reason says why the check was not made (NotChecked).
	Reason string
	// Elapsed is how long the check took.
	Elapsed time.Duration
	// Operations is how many operations porcupine checked.
	Operations int
	vis        *visual
}

// SeatsIllegal reports whether a seat's sales and the ledger could not be
// linearized: what hammer's ledger checks judge too. A "sold out" answered
// too early alone does not count, nor does a seat left unsettled.
func (r Result) SeatsIllegal() bool {
	for _, f := range r.Findings {
		if !f.SoldOutOnly && !f.Unsettled {
			return true
		}
	}
	return false
}

// Unsettled reports whether some seat could not be told apart in time.
func (r Result) Unsettled() bool {
	for _, f := range r.Findings {
		if f.Unsettled {
			return true
		}
	}
	return false
}

// Summary renders the result in one line, e.g. "ok", "illegal: seat 7:
// …" or "not checked: porcupine did not finish within 10s".
func (r Result) Summary() string {
	switch r.Status {
	case Illegal:
		s := "illegal: " + r.Findings[0].Detail
		if n := len(r.Findings) - 1; n > 0 {
			s += fmt.Sprintf(" (and %d more %s)", n, pick(n, "seat", "seats"))
		}
		return s
	case NotChecked:
		return "not checked: " + r.Reason
	}
	return string(r.Status)
}

// Check checks one run's history against the model, within timeout (none
// when timeout <= 0). It does no I/O.
func Check(h History, timeout time.Duration) Result {
	if h.LedgerUnread {
		return Result{Status: NotChecked, Reason: "the ledger was not read back, so what was sold cannot be told"}
	}
	if n := len(h.Attempts) + 3*h.Seats; n > MaxOperations {
		return Result{Status: NotChecked, Reason: fmt.Sprintf("%d attempts and %d seats make %d operations, more than porcupine is given (%d)",
			len(h.Attempts), h.Seats, n, MaxOperations)}
	}
	began := time.Now()
	ops := operations(h)
	model := newModel(h.Seats, true)
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	r := Result{Operations: len(ops)}
	switch res {
	case porcupine.Ok:
		r.Status = OK
	case porcupine.Illegal:
		r.Status = Illegal
		var deadline time.Time
		if timeout > 0 {
			deadline = began.Add(timeout)
		}
		r.Findings = findings(h, ops, info, deadline)
	default:
		r.Status, r.Reason = NotChecked, fmt.Sprintf("porcupine did not finish within %s", timeout)
	}
	r.Elapsed = time.Since(began)
	if len(ops) <= MaxDrawn {
		info.AddAnnotations(annotations(h, span(h)))
		r.vis = &visual{model: model, info: info, run: h.Run, verdict: r.Summary(), illegal: r.Status == Illegal}
	}
	return r
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

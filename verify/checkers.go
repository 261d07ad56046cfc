package verify

import (
	"fmt"
	"slices"
	"time"

	"github.com/hammer-load/hammer/linearize"
)

// Checkers is what each of hammer's two checkers said of a run, and
// whether they agree on what both can judge.
type Checkers struct {
	// Hammer is the verdict of hammer's own checks (Check), before the
	// comparison.
	Hammer Status `json:"hammer"`
	// Porcupine is the verdict of the linearizability check (package
	// linearize): ok, illegal or not checked.
	Porcupine linearize.Status `json:"porcupine"`
	// PorcupineFindings are the seats porcupine could not linearize.
	PorcupineFindings []linearize.Finding `json:"porcupine_findings,omitempty"`
	// PorcupineReason says why porcupine did not check the run.
	PorcupineReason string `json:"porcupine_reason,omitempty"`
	// PorcupineMs is how long porcupine's check took, and
	// PorcupineOperations how many operations it checked.
	PorcupineMs         float64 `json:"porcupine_ms"`
	PorcupineOperations int     `json:"porcupine_operations"`
	// Agreement says whether the two agree on the seats sold.
	Agreement Agreement `json:"agreement"`
	// Why says why they were not compared, or what they disagree on.
	Why string `json:"why,omitempty"`
}

// Agreement is whether the two checkers agree on a run.
type Agreement string

// The agreements two checkers can reach.
const (
	// Agree: both found a seat sold wrongly, or neither did.
	Agree Agreement = "agree"
	// Disagree: one found a seat sold wrongly and the other did not; the
	// run is then unknown.
	Disagree Agreement = "disagree"
	// NotCompared: one of them could not judge the run (hammer's verdict
	// is unknown or its evidence has gaps, porcupine did not check it) or
	// the run's request ids are not unique, which the model relies on.
	NotCompared Agreement = "not compared"
)

// seatCheck reports whether porcupine's model judges hammer's check too:
// what the answers and the ledger say of each seat. The counter
// (conservation), the lock (mutual exclusion), errors, stuck locks and
// request ids are beyond a model of seats.
func seatCheck(check string) bool {
	switch check {
	case CheckOversell, CheckDoubleSold, CheckMissingSale, CheckPhantomSale:
		return true
	}
	return false
}

// CheckTwice verifies one run with hammer's checks (Check) and with
// porcupine (linearize.Check, bounded by timeout), and compares the two
// on what both can judge: whether any seat was sold wrongly. When they
// disagree the verdict is Unknown, with one line naming both checkers and
// what each said first among its reasons.
func CheckTwice(in Input, timeout time.Duration) (Verdict, linearize.Result) {
	v := Check(in)
	lin := linearize.Check(linearize.History{
		Run: in.Run, Seats: in.Seats, Attempts: in.Attempts, Sales: in.Sales,
		LedgerUnread: in.LedgerUnread != "", GoAt: in.GoAt, Faults: in.Faults, Outages: in.Outages,
		ClockUncertainty: in.ClockUncertainty,
	}, timeout)
	return reconcile(v, newIndex(in), lin), lin
}

// reconcile records both verdicts in v and makes it Unknown when they
// disagree.
func reconcile(v Verdict, x *index, lin linearize.Result) Verdict {
	c := &Checkers{
		Hammer: v.Status, Porcupine: lin.Status, PorcupineFindings: lin.Findings, PorcupineReason: lin.Reason,
		PorcupineMs: float64(lin.Elapsed.Microseconds()) / 1000, PorcupineOperations: lin.Operations,
	}
	hammerSaw := slices.ContainsFunc(v.Violations, func(x Violation) bool { return seatCheck(x.Check) })
	switch gaps := x.gaps(); {
	case v.Status == Unknown:
		c.Agreement, c.Why = NotCompared, "hammer could not judge the run"
	case len(gaps) > 0:
		c.Agreement, c.Why = NotCompared, "hammer's evidence has gaps: "+gaps[0]
	case lin.Status == linearize.NotChecked:
		c.Agreement, c.Why = NotCompared, "porcupine did not check the run: "+lin.Reason
	case slices.ContainsFunc(v.Violations, func(x Violation) bool { return x.Check == CheckDuplicateRequest }):
		c.Agreement, c.Why = NotCompared, "request ids are not unique (duplicate-request), and porcupine's model knows a seat's holder by request id"
	case lin.Unsettled() && !lin.SeatsIllegal():
		c.Agreement, c.Why = NotCompared, "porcupine could not tell in time which seats it could not linearize"
	case hammerSaw == lin.SeatsIllegal():
		c.Agreement = Agree
	default:
		c.Agreement = Disagree
		c.Why = fmt.Sprintf("CHECKERS DISAGREE on the seats sold: hammer says %s; porcupine says %s; one of them is wrong, so the run cannot be judged",
			hammerSays(v, hammerSaw), porcupineSays(lin))
	}
	v.Checkers = c
	v.Notes = append(v.Notes, porcupineNotes(lin)...)
	if c.Agreement == Disagree {
		v.Status = Unknown
		v.Undetermined = append([]string{c.Why}, v.Undetermined...)
	}
	return v
}

// hammerSays is hammer's side of a disagreement.
func hammerSays(v Verdict, saw bool) string {
	if saw || v.Status == Valid {
		return v.Summary()
	}
	return "no seat was sold wrongly (" + v.Summary() + ")"
}

// porcupineSays is porcupine's side of a disagreement, on the seats alone.
func porcupineSays(lin linearize.Result) string {
	var seats []string
	for _, f := range lin.Findings {
		if !f.SoldOutOnly && !f.Unsettled {
			seats = append(seats, f.Detail)
		}
	}
	if len(seats) > 0 {
		s := "illegal: " + seats[0]
		if n := len(seats) - 1; n > 0 {
			s += fmt.Sprintf(" (and %s)", plural(n, "more seat", "more seats"))
		}
		return s
	}
	if lin.Status == linearize.Illegal {
		return "every seat's sales fit one sequence with the ledger (it only found a \"sold out\" answered while a seat was free)"
	}
	return "ok: every seat's sales fit one sequence with the ledger"
}

// porcupineNotes are what porcupine found that is not compared with
// hammer: "sold out" answered while seats were free, which hammer does
// not check (one note for all such seats), and why it did not check the
// run.
func porcupineNotes(lin linearize.Result) []string {
	var out, early []string
	for _, f := range lin.Findings {
		if f.SoldOutOnly {
			early = append(early, f.Detail)
		}
	}
	switch len(early) {
	case 0:
	case 1:
		out = append(out, "porcupine: "+early[0]+notCompared)
	default:
		out = append(out, fmt.Sprintf("porcupine: \"sold out\" was answered while %d seats were still free (first: %s)%s",
			len(early), early[0], notCompared))
	}
	if lin.Status == linearize.NotChecked {
		out = append(out, "porcupine did not check this run: "+lin.Reason)
	}
	return out
}

// notCompared ends a note on what porcupine alone judges.
const notCompared = "; hammer does not check when \"sold out\" was answered, so this is not compared"

// Package verify decides whether a race oversold. It is a pure function from
// what a run left behind (the attempts, the sale rows read back from the
// ledger and the final sector row) to a Verdict, plus the helper that judges a
// verdict against a run's expectation. It reads the runs of a results folder
// from their views (package folder) and does no I/O. The ledger is the
// oracle: rows are counted, the available counter is only cross-checked
// against them.
package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// Status is the overall result of verifying one run.
type Status string

// The statuses a verdict can have.
const (
	// Valid: every check passed and the history was complete.
	Valid Status = "valid"
	// Invalid: at least one check failed; the ledger proves it.
	Invalid Status = "invalid"
	// Unknown: no check failed on records that are as the run wrote them,
	// but the evidence was not complete (or not intact) enough to call the
	// run valid; or hammer's checks and porcupine's disagree on whether a
	// seat was sold wrongly (CheckTwice), when the violations found stay
	// listed.
	Unknown Status = "unknown"
)

// The names of the checks, in the order their violations are reported.
const (
	// CheckOversell: more sale rows than seats.
	CheckOversell = "oversell"
	// CheckConservation: available + sale rows differs from the capacity, or
	// the sector's capacity differs from the configured seats.
	CheckConservation = "conservation"
	// CheckDoubleSold: one seat number in more than one sale row.
	CheckDoubleSold = "double-sold"
	// CheckMissingSale: an attempt was told it got a seat the ledger lacks.
	CheckMissingSale = "missing-sale"
	// CheckPhantomSale: a sale row nobody was told about.
	CheckPhantomSale = "phantom-sale"
	// CheckDuplicateRequest: a request id used more than once.
	CheckDuplicateRequest = "duplicate-request"
	// CheckMutualExclusion: two holders of the lock in their critical
	// sections at once, in a mode where the lock is the guarantee.
	CheckMutualExclusion = "mutual-exclusion"
	// CheckUnexpectedError: attempts failed in a run whose fault does not
	// explain failures.
	CheckUnexpectedError = "unexpected-error"
	// CheckStuckLock: contenders gave up on the lock while seats were left.
	CheckStuckLock = "stuck-lock"
)

// Violation is one failed check, described in plain words.
type Violation struct {
	Check  string `json:"check"`
	Detail string `json:"detail"`
	// Story is the shortest chain of recorded events that produced the
	// violation, in time order and plain words, when one can be told.
	Story []string `json:"story,omitempty"`
	// Actors are the requests whose attempts the story tells, the two at
	// its heart first (the two sales of a seat, the two holders of the
	// lock), for a report that draws the story; empty without a story.
	// Not in summary.json: a report rebuilds it by verifying again.
	Actors []string `json:"-"`
	// Seat is the seat the story shows sold twice; 0 when there is none.
	Seat int `json:"-"`
}

// Input is everything Check looks at for one run and one sector.
type Input struct {
	// Seats is the sector's capacity as configured.
	Seats int
	// Attempts holds one record per contender.
	Attempts []history.Attempt
	// Sales holds the ledger rows as read back after the run.
	Sales []history.Sale
	// Sector is the final sector row; nil when it could not be read.
	Sector *history.Sector
	// NoCounter: the sector keeps no counter, so there is no row to read.
	NoCounter bool
	// Incomplete lists why the history may be missing attempts.
	Incomplete []string
	// Mode is the run's mode; the lock's mutual exclusion is a safety
	// property only where the lock is the guarantee (lock-only).
	Mode scenarios.Mode
	// Fault is the injected fault, empty for none.
	Fault scenarios.Fault
	// Lock is the lock the contenders took: a lock library gives up on
	// its own retry budget, which the stories name.
	Lock scenarios.Lock
	// LockTTL is the lock's time to live, for the stories; Extend tells
	// whether holders kept extending it.
	LockTTL time.Duration
	Extend  bool
	// Faults are the injected fault events, for the stories.
	Faults []history.FaultEvent
	// GoAt is when the contenders were released (Unix ns); stories count
	// time from it.
	GoAt int64
	// LedgerUnread says why the ledger could not be read back; empty when
	// it was. Checks that count its rows are then not made.
	LedgerUnread string
	// LedgerTruncated is how many rows of a ledger that held more were
	// read (Sales holds them, and no other number is taken); zero when
	// the whole ledger was read.
	LedgerTruncated int
	// Outages are the spans during which a server did not answer the
	// health checks.
	Outages []history.Outage
	// Run is the run's name, for messages.
	Run string
	// ClockUncertainty is how far each process's clock may be off the
	// coordinator's, by process number, when the run raced on agents;
	// nil when every process shared the coordinator's clock.
	ClockUncertainty []time.Duration
	// RequestsPerWorker is how many attempt records the race made for each
	// worker process; the attempts of each Proc are counted against it. Nil
	// skips the count (a run that never raced, or an older folder).
	RequestsPerWorker []int
	// ReplicaLogs are the logs of the replicas of a user's service, whose
	// last lines a note about the service's answers quotes.
	ReplicaLogs []history.ReplicaLog
	// Integrity lists what does not add up between the results folder's
	// record files and its manifest (folder.Run.Integrity): a file cut
	// short or changed after the run, or one that cannot be checked.
	Integrity []folder.Problem
}

// Verdict is the result of verifying one run.
type Verdict struct {
	Status Status `json:"verdict"`
	// Seats is the configured capacity the run was judged against.
	Seats int `json:"seats"`
	// Sold is the number of sale rows in the ledger; on a ledger cut
	// short, the distinct sales of the race's own requests among them.
	Sold int `json:"sold"`
	// Oversold is max(0, Sold - Seats).
	Oversold int `json:"oversold"`
	// LedgerUnread is set when the ledger could not be read back: Sold and
	// Oversold then count nothing.
	LedgerUnread bool `json:"ledger_unread,omitempty"`
	// LedgerTruncated is set when only the ledger's first rows were read
	// (Input.LedgerTruncated): Sold and Oversold count at least as many.
	LedgerTruncated bool `json:"ledger_truncated,omitempty"`
	// Violations lists every failed check, in check order.
	Violations []Violation `json:"violations,omitempty"`
	// Notes holds facts that are not violations but a user should know,
	// such as lost acknowledgements.
	Notes []string `json:"notes,omitempty"`
	// Undetermined says why the verdict is unknown; empty unless Status is
	// Unknown.
	Undetermined []string `json:"undetermined,omitempty"`
	// Gaps are the gaps in the evidence of an Invalid verdict, which Notes
	// also hold: what was not judged, and why. Not in summary.json (a
	// report rebuilds it by verifying again).
	Gaps []string `json:"-"`
	// Checkers holds what each checker said when the run was checked
	// twice (CheckTwice); nil after Check alone.
	Checkers *Checkers `json:"checkers,omitempty"`
}

// Check verifies one run. A violation stands only on evidence that is as
// the run wrote it: one whose check reads a record file that changed after
// the run (its record count or SHA-256 differs from what the manifest
// recorded, or it was cut short) proves nothing and becomes a note. So a
// ledger.jsonl that was tampered with can never make a run Invalid, while
// an oversell read from an intact ledger still does when only history.jsonl
// was cut. A file that could not be checked (its manifest recorded no
// digest) still carries its violations, as before digests existed, but can
// never let a run be Valid. Any violation left makes the verdict Invalid, because sale rows
// are definitive even when attempts are missing, and the gaps in the
// evidence become notes; otherwise a gap (incomplete history, a record file
// cut short, changed or unchecked, fewer or more attempts for a worker than
// the race made, no sector row, attempts with an unrecognised outcome, a
// fault whose timeline did not happen) makes it Unknown; otherwise it is
// Valid.
func Check(in Input) Verdict {
	idx := newIndex(in)
	v := Verdict{
		Seats:           in.Seats,
		Sold:            idx.sold(),
		Oversold:        max(0, idx.sold()-in.Seats),
		LedgerUnread:    in.LedgerUnread != "",
		LedgerTruncated: in.LedgerTruncated > 0,
	}
	v.Violations = idx.violations()
	idx.addStories(v.Violations)
	v.Notes = idx.notes()
	var void []string
	v.Violations, void = idx.standing(v.Violations)
	v.Notes = append(v.Notes, void...)
	switch {
	case len(v.Violations) > 0:
		// The violations stand on intact records alone; gaps in the
		// evidence are still worth knowing, so they become notes.
		v.Status = Invalid
		v.Gaps = idx.gaps()
		v.Notes = append(v.Notes, v.Gaps...)
	default:
		v.Undetermined = idx.undetermined()
		v.Status = Valid
		if len(v.Undetermined) > 0 {
			v.Status = Unknown
		}
	}
	return v
}

// Summary renders the verdict as one line, e.g. "valid: 100/100 sold",
// "invalid: oversell (sold 137 of 100), double-sold (2 seats: 4, 9)" or
// "unknown: history incomplete: worker 2 died".
func (v Verdict) Summary() string {
	switch v.Status {
	case Valid:
		return fmt.Sprintf("valid: %d/%d sold", v.Sold, v.Seats)
	case Unknown:
		return "unknown: " + strings.Join(v.Undetermined, "; ")
	case Invalid:
		return "invalid: " + summarizeViolations(v)
	}
	return fmt.Sprintf("%s: %d/%d sold", v.Status, v.Sold, v.Seats)
}

// summarizeViolations renders "check (short)" for each check that failed, in
// the order the checks first appear.
func summarizeViolations(v Verdict) string {
	var order []string
	byCheck := map[string][]Violation{}
	for _, x := range v.Violations {
		if _, seen := byCheck[x.Check]; !seen {
			order = append(order, x.Check)
		}
		byCheck[x.Check] = append(byCheck[x.Check], x)
	}
	parts := make([]string, 0, len(order))
	for _, c := range order {
		parts = append(parts, fmt.Sprintf("%s (%s)", c, shortForm(v, c, byCheck[c])))
	}
	return strings.Join(parts, ", ")
}

// shortForm is the parenthesised part of one check in a summary: the
// headline of each detail (the text before its first ": "), or for
// double-sold the number of seats and which.
func shortForm(v Verdict, check string, xs []Violation) string {
	switch check {
	case CheckOversell:
		return fmt.Sprintf("sold %d of %d", v.Sold, v.Seats)
	case CheckDoubleSold:
		seats := make([]string, 0, len(xs))
		for _, x := range xs {
			seat, _, _ := strings.Cut(strings.TrimPrefix(x.Detail, "seat "), " ")
			seats = append(seats, seat)
		}
		return fmt.Sprintf("%s: %s", plural(len(xs), "seat", "seats"), capList(seats))
	case CheckMutualExclusion:
		return plural(countOverlaps(xs), "overlapping pair of holders", "overlapping pairs of holders")
	}
	heads := make([]string, 0, len(xs))
	for _, x := range xs {
		head, _, _ := strings.Cut(x.Detail, ": ")
		heads = append(heads, head)
	}
	return strings.Join(heads, "; ")
}

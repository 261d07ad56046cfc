package verify

import (
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/linearize"
)

// RunVerdict is the verdict of one run of a results folder and whether it
// holds the run's expectation.
type RunVerdict struct {
	Run          history.Run `json:"run"`
	Verdict      Verdict     `json:"verdict"`
	ExpectOK     bool        `json:"expect_ok"`
	ExpectReason string      `json:"expect_reason"`
	// Linearization is porcupine's check of the run, which can draw its
	// history.
	Linearization linearize.Result `json:"-"`
}

// Runs verifies the runs of a results folder, in the order given, each
// with its records and the integrity problems of the files they were read
// from, twice: with hammer's checks and with porcupine (CheckTwice, each
// run's check bounded by linearize.DefaultTimeout).
func Runs(runs []folder.Run) []RunVerdict {
	out := make([]RunVerdict, 0, len(runs))
	for _, run := range runs {
		in := RunInput(run.Run, run.Records)
		in.Integrity = run.Integrity
		v, lin := CheckTwice(in, linearize.DefaultTimeout)
		ok, reason := Expect(v, run.Expected)
		out = append(out, RunVerdict{Run: run.Run, Verdict: v, ExpectOK: ok, ExpectReason: reason, Linearization: lin})
	}
	return out
}

// RunInput gathers what Check needs about one run from its description
// and its records.
func RunInput(run history.Run, r history.Records) Input {
	return Input{
		Seats:             run.Seats,
		NoCounter:         run.NoCounter,
		Mode:              run.Mode,
		Fault:             run.Fault,
		Lock:              run.Lock,
		LockTTL:           time.Duration(run.LockTTL),
		Extend:            run.Extend,
		Attempts:          r.Attempts,
		Sales:             r.Sales,
		Sector:            pickSector(r.Sectors),
		Faults:            r.Faults,
		Incomplete:        run.Incomplete,
		GoAt:              run.GoAt,
		LedgerUnread:      run.LedgerUnread,
		LedgerTruncated:   run.LedgerTruncated,
		Outages:           run.Outages,
		Run:               run.Name,
		RequestsPerWorker: run.RequestsPerWorker,
		ClockUncertainty:  ClockUncertainties(run),
		ReplicaLogs:       run.ReplicaLogs,
	}
}

// pickSector returns a run's sector row: the only one, or the one with ID 1
// when there are several, or nil.
func pickSector(sectors []history.Sector) *history.Sector {
	if len(sectors) == 1 {
		return &sectors[0]
	}
	for i := range sectors {
		if sectors[i].ID == 1 {
			return &sectors[i]
		}
	}
	return nil
}

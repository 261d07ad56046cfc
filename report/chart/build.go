package chart

import (
	"math"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// Build computes every number the charts of a results folder plot, from
// its runs' records and its latency histograms. Runs appear in manifest
// order; records of runs the manifest does not list are ignored.
func Build(f *folder.Folder) Data {
	views := f.Runs()
	runs := describeRuns(views)
	return Data{
		RunID:    f.Manifest.RunID,
		Runs:     runs,
		Spectrum: buildSpectra(runs, f.Latency),
		Phases:   buildPhases(runs, f.Latency, f.Manifest.Env.Target != ""),
		Sold:     buildSold(views),
		Rate:     buildRate(views),
		LockWait: buildLockWait(runs, f.Latency),
	}
}

// describeRuns assigns each run its colour (by mode) and dash (by variant).
func describeRuns(runs []folder.Run) []Run {
	out := make([]Run, 0, len(runs))
	dashes := map[string]int{"": 0}
	for _, r := range runs {
		v := variant(r.Run)
		if _, ok := dashes[v]; !ok {
			dashes[v] = len(dashes)
		}
		out = append(out, Run{
			Name:    r.Name,
			Mode:    r.Mode,
			Variant: v,
			Colour:  modeIndex(r.Mode),
			Dash:    dashes[v],
			Lock:    r.Mode.UsesLock() || len(r.Records.Locks) > 0, // a service's, seen in Redis
			Seats:   r.Seats,
		})
	}
	return out
}

// variant names a run's fault, marking holders that extend their lock.
func variant(r history.Run) string {
	if r.Fault == "" {
		return ""
	}
	if r.Extend {
		return string(r.Fault) + "+extend"
	}
	return string(r.Fault)
}

// modeIndex is the mode's position in scenarios.Modes, or one past the end
// for a mode hammer does not know.
func modeIndex(mode scenarios.Mode) int {
	modes := scenarios.Modes()
	for i, m := range modes {
		if m == mode {
			return i
		}
	}
	return len(modes)
}

// origin is the instant a run's times count from: its go signal, or, when
// the manifest lacks one, its earliest attempt start.
func origin(run history.Run, attempts []history.Attempt) int64 {
	if run.GoAt > 0 {
		return run.GoAt
	}
	var first int64
	for _, a := range attempts {
		if a.Invoke > 0 && (first == 0 || a.Invoke < first) {
			first = a.Invoke
		}
	}
	return first
}

// sinceMs is the time from origin to t in milliseconds, to the nanosecond.
func sinceMs(origin, t int64) float64 { return round(float64(t-origin)/1e6, 6) }

// usToMs converts a histogram value in microseconds to milliseconds, to
// the microsecond (the histograms' resolution).
func usToMs(us float64) float64 { return round(us/1000, 3) }

// round rounds v to the given number of decimals, so that Data holds no
// digits beyond what was measured.
func round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}

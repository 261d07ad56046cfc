// Package report renders verified runs into what people read: the verdict
// table on the terminal, and in the results folder summary.json,
// violations.txt, report.md, junit.xml and (through report/chart) the
// charts; it also compares two folders. It only renders: the folder's
// layout and records come from package folder, the verdicts from package
// verify and the exit code from the caller.
package report

import (
	"math"
	"slices"
	"time"

	"github.com/hammer-load/hammer/history"
)

// stats are the measurements of one run, computed from its attempts.
type stats struct {
	Contenders int
	Outcomes   map[history.Outcome]int
	// StartSkew is the latest minus the earliest first-attempt start across
	// all processes: how well the start barrier lined contenders up.
	StartSkew time.Duration
	// PeakInFlight is the most attempts that were in flight at once (between
	// their start and their answer), across all processes.
	PeakInFlight int
	// Sellout is the time from the go signal until the seat that sold the
	// sector out was acknowledged; SoldOut is false if that never happened.
	Sellout time.Duration
	SoldOut bool
	// Elapsed is from the go signal to the last attempt's answer.
	Elapsed time.Duration
	// first is each contender's (process, goroutine) first start, Unix
	// ns; nil in the open model, where starts are spread on purpose.
	first map[[2]int]int64
	// Slack is the lock TTL minus each holder's critical section (lock
	// taken to sale decided): how close holders came to outliving their
	// lock. Negative slack means the lock expired mid-section.
	Slack []time.Duration
}

// measure measures one run.
func measure(run history.Run, attempts []history.Attempt) stats {
	s := stats{Outcomes: map[history.Outcome]int{}}
	var soldAt []int64
	first := map[[2]int]int64{}
	for _, a := range attempts {
		s.Outcomes[a.Outcome]++
		if a.Invoke == 0 {
			continue
		}
		key := [2]int{a.Proc, a.Goroutine}
		if t, ok := first[key]; !ok || a.Invoke < t {
			first[key] = a.Invoke
		}
		if a.Complete > 0 {
			s.Elapsed = max(s.Elapsed, time.Duration(a.Complete-run.GoAt))
		}
		if a.Outcome == history.Sold {
			// A user's service is a black box: its answer is when the
			// client knew the sale was made.
			at := a.DBEnd
			if at == 0 {
				at = a.Complete
			}
			soldAt = append(soldAt, at)
		}
		if a.LockAcquired != 0 && a.DBEnd != 0 && run.LockTTL > 0 {
			s.Slack = append(s.Slack, time.Duration(run.LockTTL-(a.DBEnd-a.LockAcquired)))
		}
	}
	s.Contenders = run.Procs * run.Goroutines
	if run.Rate > 0 {
		// Open model: every request is a contender of its own.
		s.Contenders = history.OpenRequests(run.Rate, time.Duration(run.Duration))
	}
	if run.Rate == 0 {
		// Open-model attempts are spread out on purpose: no skew to measure.
		s.first, s.StartSkew = first, skew(first)
	}
	s.PeakInFlight = peakInFlight(attempts)
	if len(soldAt) >= run.Seats && run.Seats > 0 {
		slices.Sort(soldAt)
		s.Sellout, s.SoldOut = time.Duration(soldAt[run.Seats-1]-run.GoAt), true
	}
	return s
}

// percentile returns the nearest-rank percentile q of ds (0 for none).
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

func skew(first map[[2]int]int64) time.Duration {
	lo, hi, _ := startSpan(first, func(int) bool { return true })
	return time.Duration(hi - lo)
}

// startSpan is the earliest and latest first start (Unix ns) among the
// contenders of the processes keep accepts; ok is false when there is none.
func startSpan(first map[[2]int]int64, keep func(proc int) bool) (lo, hi int64, ok bool) {
	for key, t := range first {
		if !keep(key[0]) {
			continue
		}
		if !ok {
			lo, hi, ok = t, t, true
		}
		lo, hi = min(lo, t), max(hi, t)
	}
	return lo, hi, ok
}

// peakInFlight is the most attempts in flight at once: each from its
// Invoke to its Complete, an answer at the instant of another's start
// counted as before it. Attempts without both instants (never reported)
// are left out: when they ran is not known.
func peakInFlight(attempts []history.Attempt) int {
	var starts, ends []int64
	for _, a := range attempts {
		if a.Invoke != 0 && a.Complete != 0 {
			starts, ends = append(starts, a.Invoke), append(ends, a.Complete)
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	peak, in, e := 0, 0, 0
	for _, t := range starts {
		for e < len(ends) && ends[e] <= t {
			e++
			in--
		}
		in++
		peak = max(peak, in)
	}
	return peak
}

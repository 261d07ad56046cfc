package driver

import (
	"iter"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/wire"
)

// requestsPerWorker is how many attempt records the race must leave per
// worker: every copy of every request it makes.
func requestsPerWorker(o Options) []int {
	perWorker := make([]int, o.Procs)
	for p := range perWorker {
		perWorker[p] = o.Scenario.Fault.Copies() * o.Goroutines * o.Attempts
		if o.Rate > 0 {
			perWorker[p] = o.Scenario.Fault.Copies() * openShare(o, p)
		}
	}
	return perWorker
}

// recordsExpected is how many attempt records the race must leave in all.
func recordsExpected(o Options) int {
	n := 0
	for _, r := range requestsPerWorker(o) {
		n += r
	}
	return n
}

// fillUnknown adds a record with outcome unknown for every attempt that
// never reported, so that a lost worker shows up in the history.
func fillUnknown(got []history.Attempt, o Options, run string) []history.Attempt {
	type copyOf struct {
		request string
		try     int
	}
	seen := make(map[copyOf]bool, len(got))
	for _, a := range got {
		seen[copyOf{a.RequestID, a.Try}] = true
	}
	copies := o.Scenario.Fault.Copies()
	for base := range expectedRequests(o) {
		for try := range copies {
			if !seen[copyOf{base.RequestID, try}] {
				a := base
				a.Run, a.Mode, a.Try, a.Outcome = run, o.Scenario.Mode, try, history.Unknown
				got = append(got, a)
			}
		}
	}
	return got
}

// expectedRequests yields every request the race should make: per
// goroutine in the closed model, per process in the open one.
func expectedRequests(o Options) iter.Seq[history.Attempt] {
	return func(yield func(history.Attempt) bool) {
		for p := range o.Procs {
			if o.Rate > 0 {
				for n := range openShare(o, p) {
					if !yield(history.Attempt{Proc: p, Goroutine: -1, RequestID: wire.OpenRequestID(p, n)}) {
						return
					}
				}
				continue
			}
			for g := range o.Goroutines {
				for k := range o.Attempts {
					if !yield(history.Attempt{Proc: p, Goroutine: g, RequestID: wire.RequestID(p, g, k)}) {
						return
					}
				}
			}
		}
	}
}

// openShare is how many of the open model's requests process p makes: the
// total (rate × duration) split evenly, the remainder to the first ones.
func openShare(o Options, p int) int {
	total := history.OpenRequests(o.Rate, o.Duration)
	n := total / o.Procs
	if p < total%o.Procs {
		n++
	}
	return n
}

// forProc is the configuration of worker p: how many workers share its
// host and, in the open model, its share of the requests, at its share of
// the rate, offset so that the workers take turns.
func forProc(c wire.Config, p int, o Options) wire.Config {
	c.Proc, c.HostWorkers = p, hostWorkers(o, p)
	if o.Rate > 0 {
		c.Rate = o.Rate / float64(o.Procs)
		c.Requests = openShare(o, p)
		c.Offset = time.Duration(float64(p) * float64(time.Second) / o.Rate)
	}
	return c
}

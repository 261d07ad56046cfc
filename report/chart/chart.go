// Package chart draws the five charts of a results folder — the latency
// spectrum, where the time of an attempt goes, seats sold over time,
// attempts per second by outcome and the lock-wait histogram — as PNG and
// SVG files with gonum.org/v1/plot. Which charts there are, their files and
// their titles are folder.Charts: report.md shows the same list.
//
// It works in two steps so that the numbers can be tested without pixels:
// Build computes Data, every number a chart plots, from a results folder's
// runs and latency histograms; Write renders Data into files. Data is
// plain values with JSON tags, golden-tested.
//
// Every chart is 1000×600 pixels (1200×800 for a folder of more than 12
// runs, such as a gate), with its legend in a column beside the plot area
// so it never covers data. Each run keeps one look across all
// charts: its colour is its mode's (a fixed palette in the order of
// scenarios.Modes), its line dash is its fault's (solid without a fault),
// so the runs of one mode share a colour and differ by dash. A gate's run
// charts are drawn as a grid of panels, one per fault, in which the colour
// alone tells the modes apart; a load folder's are one panel with a line
// per run.
//
// A folder without attempts still charts: Write draws each chart's axes
// with a note saying there is no data instead of failing, so a report
// never loses its other parts to an empty run. Write fails only when a
// file cannot be written.
package chart

import (
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// Data is every number the charts plot, computed from a folder's records by
// Build. Series name their run; Runs says how each run is drawn.
type Data struct {
	RunID string `json:"run_id"`
	// Runs lists the folder's runs in manifest order.
	Runs     []Run      `json:"runs"`
	Spectrum []Spectrum `json:"latency_spectrum"`
	Phases   []Phases   `json:"phases"`
	Sold     []Sold     `json:"sold_over_time"`
	Rate     Rate       `json:"attempts_per_second"`
	LockWait LockWait   `json:"lock_wait"`
}

// Run is one run of the folder and how the charts draw it.
type Run struct {
	Name string         `json:"name"`
	Mode scenarios.Mode `json:"mode"`
	// Variant names the run's fault ("pause", "pause+extend"); empty
	// without a fault.
	Variant string `json:"variant,omitempty"`
	// Colour indexes the mode palette: the mode's position in
	// scenarios.Modes, or one past the end for a mode hammer does not know.
	Colour int `json:"colour"`
	// Dash indexes the dash patterns: 0 (solid) without a fault, otherwise
	// the variant's position among the folder's variants, counted from 1
	// in manifest order.
	Dash  int  `json:"dash"`
	Lock  bool `json:"lock"`
	Seats int  `json:"seats"`
}

// Spectrum is one run's whole-attempt latency by percentile, every outcome
// together.
type Spectrum struct {
	Run   string `json:"run"`
	Count int64  `json:"count"`
	// Points run from the 0th percentile up to the maximum, which sits at
	// percentile 100·(1−1/Count): the last sample is the top 1/Count.
	Points []Quantile `json:"points"`
}

// Quantile is the latency at one percentile.
type Quantile struct {
	Percentile float64 `json:"percentile"`
	Ms         float64 `json:"ms"`
}

// Phases is where one run's attempts spend their time: the mean of each
// phase over the attempts that reached it, in milliseconds.
type Phases struct {
	Run        string  `json:"run"`
	Lock       bool    `json:"lock"`
	LockWaitMs float64 `json:"lock_wait_ms"`
	CriticalMs float64 `json:"critical_ms"`
	ReleaseMs  float64 `json:"release_ms"`
	// HandoffMs is the mean lock handoff: from a holder sending its
	// release to the next holder having the lock (per handoff).
	HandoffMs float64 `json:"handoff_ms,omitempty"`
	// RequestMs is the mean whole request of a run against a user's
	// service, whose inner phases hammer cannot see; zero otherwise.
	RequestMs float64 `json:"request_ms,omitempty"`
}

// Sold is one run's count of seats sold over time, and its fault windows.
// Times are milliseconds since the run's go signal.
type Sold struct {
	Run   string `json:"run"`
	Seats int    `json:"seats"`
	// Steps start at (0, 0) and add one seat at each sale's DBEnd; the last
	// step holds until the run's last answer.
	Steps  []Step   `json:"steps"`
	Faults []Window `json:"faults,omitempty"`
}

// Step is a point of a cumulative count.
type Step struct {
	Ms float64 `json:"ms"`
	N  int     `json:"n"`
}

// Window is when a fault was in force, in milliseconds since the go signal.
type Window struct {
	Fault   scenarios.Fault `json:"fault"`
	StartMs float64         `json:"start_ms"`
	EndMs   float64         `json:"end_ms"`
}

// Rate is how many attempts completed per second, by outcome, summed over
// every run with time counted from each run's go signal.
type Rate struct {
	// BucketMs is the width of one bucket; bucket i covers
	// [i·BucketMs, (i+1)·BucketMs).
	BucketMs float64 `json:"bucket_ms"`
	// NoTime counts the attempts that never answered (unknown), which
	// have no completion time to place.
	NoTime int           `json:"no_time"`
	Series []OutcomeRate `json:"series"`
}

// OutcomeRate is the completion rate of one outcome, in attempts per second.
type OutcomeRate struct {
	Outcome   history.Outcome `json:"outcome"`
	Total     int             `json:"total"`
	PerSecond []float64       `json:"per_second"`
}

// LockWait is the histogram of lock wait of each run that takes a lock, on
// shared logarithmic bins.
type LockWait struct {
	// EdgesMs are the bin edges: bin i covers [EdgesMs[i], EdgesMs[i+1]).
	EdgesMs []float64     `json:"edges_ms"`
	Runs    []LockWaitRun `json:"runs"`
}

// LockWaitRun is one run's lock-wait counts, one per bin.
type LockWaitRun struct {
	Run    string  `json:"run"`
	Count  int64   `json:"count"`
	Counts []int64 `json:"counts"`
}

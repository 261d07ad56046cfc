// Package latency records how long the phases of attempts take in HDR
// histograms (microsecond resolution, 3 significant digits). Each worker
// process records its own attempts; the coordinator merges the histograms
// exactly (bucket by bucket, never by averaging percentiles); package folder
// saves them, encoded, so that reports can be rebuilt offline.
package latency

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hammer-load/hammer/history"
)

// Phase is a part of an attempt whose duration is recorded.
type Phase string

// The phases of an attempt.
const (
	// LockWait is from the attempt's start until it held the lock, or
	// gave up waiting for it.
	LockWait Phase = "lock_wait"
	// Handoff is the lock passing from one holder to a waiter: from the
	// holder sending its release to the next holder having the lock. It
	// spans two attempts, so the coordinator records it from the whole
	// history (ObserveHandoffs), under the next holder's outcome.
	Handoff Phase = "handoff"
	// Critical is the work the lock protects: from holding the lock (or,
	// without a lock, from the start of the sale) until the sale was decided.
	Critical Phase = "critical"
	// Release is from the sale's end until the lock was given back.
	Release Phase = "release"
	// Attempt is the whole attempt, from its start — its intended start
	// in the open model — until its answer.
	Attempt Phase = "attempt"
)

// Phases returns every phase, in the order reports show them.
func Phases() []Phase { return []Phase{LockWait, Handoff, Critical, Release, Attempt} }

// Key names one histogram: a run, a phase and the outcome of the attempts.
type Key struct {
	Run     string          `json:"run"`
	Phase   Phase           `json:"phase"`
	Outcome history.Outcome `json:"outcome"`
}

// maxValue is the longest duration a histogram tracks: an hour, in µs.
const maxValue = int64(time.Hour / time.Microsecond)

// newHistogram returns an empty histogram of hammer's resolution.
func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, maxValue, 3) }

// Set is a group of histograms, one per key.
type Set struct {
	hists map[Key]*hdrhistogram.Histogram
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{hists: map[Key]*hdrhistogram.Histogram{}} }

// record adds one duration under k, clamped to what a histogram tracks.
func (s *Set) record(k Key, d time.Duration) {
	h, ok := s.hists[k]
	if !ok {
		h = newHistogram()
		s.hists[k] = h
	}
	// Within [1, maxValue] RecordValue cannot fail.
	_ = h.RecordValue(min(max(d.Microseconds(), 1), maxValue))
}

// Observe records the phases of one finished attempt.
func (s *Set) Observe(a history.Attempt) {
	Durations(a, func(p Phase, d time.Duration) {
		s.record(Key{Run: a.Run, Phase: p, Outcome: a.Outcome}, d)
	})
}

// Durations calls f with each phase one finished attempt went through
// and how long it took: every phase but Handoff, which spans two
// attempts (see HandoffGap). It is the one definition of the phases, for
// the histograms and for whatever else watches attempts (the live
// page's metrics).
func Durations(a history.Attempt, f func(Phase, time.Duration)) {
	between := func(from, to int64) (time.Duration, bool) { return time.Duration(to - from), from > 0 && to >= from }
	start := a.Invoke
	if a.Intended > 0 {
		start = a.Intended
	}
	if d, ok := between(start, a.Complete); ok {
		f(Attempt, d)
	}
	switch {
	case a.LockAcquired > 0:
		if d, ok := between(a.Invoke, a.LockAcquired); ok {
			f(LockWait, d)
		}
	case a.Outcome == history.LockTimeout && a.Replica == "":
		// A service's attempt (it names its replica) waits inside the
		// service: its lock waits are the claims Redis showed.
		if d, ok := between(a.Invoke, a.Complete); ok {
			f(LockWait, d)
		}
	}
	critStart := a.LockAcquired
	if critStart == 0 {
		critStart = a.DBStart
	}
	if d, ok := between(critStart, a.DBEnd); ok {
		f(Critical, d)
	}
	if d, ok := between(a.DBEnd, a.LockReleased); ok {
		f(Release, d)
	}
}

// Merge adds every histogram of o into s, bucket by bucket.
func (s *Set) Merge(o *Set) {
	for k, h := range o.hists {
		mine, ok := s.hists[k]
		if !ok {
			mine = newHistogram()
			s.hists[k] = mine
		}
		mine.Merge(h)
	}
}

// keys returns the keys that hold data, sorted by run, phase and outcome.
func (s *Set) keys() []Key {
	keys := make([]Key, 0, len(s.hists))
	for k := range s.hists {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Key) int {
		return cmp.Or(cmp.Compare(a.Run, b.Run), cmp.Compare(a.Phase, b.Phase), cmp.Compare(a.Outcome, b.Outcome))
	})
	return keys
}

// Histogram returns the run's histogram of phase p over the given outcomes
// (every outcome when none is given), merged into a new histogram.
func (s *Set) Histogram(run string, p Phase, outcomes ...history.Outcome) *hdrhistogram.Histogram {
	out := newHistogram()
	for k, h := range s.hists {
		if k.Run == run && k.Phase == p && (len(outcomes) == 0 || slices.Contains(outcomes, k.Outcome)) {
			out.Merge(h)
		}
	}
	return out
}

// Encoded is one histogram in HdrHistogram's compressed V2 encoding.
type Encoded struct {
	Key
	Histogram []byte `json:"histogram"`
}

// Encode returns every histogram, encoded, in key order.
func (s *Set) Encode() ([]Encoded, error) {
	out := make([]Encoded, 0, len(s.hists))
	for _, k := range s.keys() {
		b, err := s.hists[k].Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, fmt.Errorf("encode histogram %v: %w", k, err)
		}
		out = append(out, Encoded{Key: k, Histogram: b})
	}
	return out, nil
}

// Decode rebuilds a set from Encode's output. A histogram of another
// range or precision than hammer's is refused: the encoding is a few
// dozen bytes whatever the range, so a file or a frame of such histograms
// (1 to 2^61 µs at 5 digits is 45 MB each once decoded) would otherwise
// take memory without bound.
func Decode(es []Encoded) (*Set, error) {
	s := NewSet()
	for _, e := range es {
		h, err := hdrhistogram.Decode(e.Histogram)
		if err != nil {
			return nil, fmt.Errorf("decode histogram %v: %w", e.Key, err)
		}
		if err := checkGeometry(h); err != nil {
			return nil, fmt.Errorf("decode histogram %v: %w", e.Key, err)
		}
		if mine, ok := s.hists[e.Key]; ok {
			mine.Merge(h)
			continue
		}
		s.hists[e.Key] = h
	}
	return s, nil
}

// checkGeometry refuses a histogram that does not track what
// newHistogram's do.
func checkGeometry(h *hdrhistogram.Histogram) error {
	want := newHistogram()
	if h.LowestTrackableValue() != want.LowestTrackableValue() || h.HighestTrackableValue() != want.HighestTrackableValue() ||
		h.SignificantFigures() != want.SignificantFigures() {
		return fmt.Errorf("tracks %d to %d at %d digits, not hammer's %d to %d at %d",
			h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures(),
			want.LowestTrackableValue(), want.HighestTrackableValue(), want.SignificantFigures())
	}
	return nil
}

// WriteHgrm writes h as a percentile distribution in milliseconds, the
// .hgrm text format HdrHistogram's plotters read.
func WriteHgrm(w io.Writer, h *hdrhistogram.Histogram) error {
	_, err := h.PercentilesPrint(w, 5, 1000)
	return err
}

// Summary is one row of a percentile table, in milliseconds.
type Summary struct {
	Phase Phase   `json:"phase"`
	Count int64   `json:"count"`
	Min   float64 `json:"min_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
	Mean  float64 `json:"mean_ms"`
}

// Summarize returns the percentile row of h.
func Summarize(p Phase, h *hdrhistogram.Histogram) Summary {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Summary{
		Phase: p, Count: h.TotalCount(),
		Min: ms(h.Min()), P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
		P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()),
		Mean: h.Mean() / 1000,
	}
}

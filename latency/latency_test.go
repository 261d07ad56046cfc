package latency

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hammer-load/hammer/history"
)

// TestDecodeRefusesOtherGeometry: a histogram of a wider range or more
// digits than hammer's encodes into a few dozen bytes but decodes into
// tens of megabytes; Decode refuses it, and takes hammer's own.
func TestDecodeRefusesOtherGeometry(t *testing.T) {
	tests := []struct {
		name    string
		h       *hdrhistogram.Histogram
		wantErr bool
	}{
		{"hammer's own", newHistogram(), false},
		{"1 to 2^61 at 5 digits (45 MB decoded)", hdrhistogram.New(1, math.MaxInt64/4, 5), true},
		{"more digits", hdrhistogram.New(1, maxValue, 4), true},
		{"a wider range", hdrhistogram.New(1, 2*maxValue, 3), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Decode([]Encoded{{Key: Key{Run: "r", Phase: Attempt}, Histogram: b}})
			if (err != nil) != tt.wantErr {
				t.Errorf("Decode of %d bytes: error %v, want an error: %v", len(b), err, tt.wantErr)
			}
		})
	}
}

// TestMergeIsExact: histograms recorded by several processes and merged
// give the same percentiles as one histogram fed every value.
func TestMergeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	one := NewSet()
	merged := NewSet()
	for proc := range 4 {
		part := NewSet()
		for range 5000 {
			d := time.Duration(rng.ExpFloat64()*float64(20*time.Millisecond)) + time.Duration(proc)*time.Millisecond
			k := Key{Run: "r", Phase: Attempt, Outcome: history.Sold}
			part.record(k, d)
			one.record(k, d)
		}
		// Ship it the way workers do: encoded, then decoded.
		enc, err := part.Encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		merged.Merge(got)
	}
	a, b := one.Histogram("r", Attempt), merged.Histogram("r", Attempt)
	for _, q := range []float64{0, 50, 90, 99, 99.9, 100} {
		if x, y := a.ValueAtQuantile(q), b.ValueAtQuantile(q); x != y {
			t.Errorf("p%v: one histogram %dµs, merged %dµs", q, x, y)
		}
	}
	if a.TotalCount() != 20000 || b.TotalCount() != 20000 || a.Mean() != b.Mean() {
		t.Errorf("counts %d/%d, means %v/%v", a.TotalCount(), b.TotalCount(), a.Mean(), b.Mean())
	}
}

func TestObservePhases(t *testing.T) {
	ms := int64(time.Millisecond)
	tests := []struct {
		name string
		a    history.Attempt
		want map[Phase]int64 // µs, one value each
	}{
		{"lock holder", history.Attempt{Run: "r", Outcome: history.Sold, Invoke: 10 * ms, LockAcquired: 15 * ms,
			DBStart: 15 * ms, DBEnd: 18 * ms, LockReleased: 19 * ms, Complete: 19 * ms},
			map[Phase]int64{LockWait: 5000, Critical: 3000, Release: 1000, Attempt: 9000}},
		{"lock timeout", history.Attempt{Run: "r", Outcome: history.LockTimeout, Invoke: 10 * ms, Complete: 40 * ms},
			map[Phase]int64{LockWait: 30000, Attempt: 30000}},
		{"no lock", history.Attempt{Run: "r", Outcome: history.SoldOut, Invoke: 10 * ms, DBStart: 11 * ms, DBEnd: 13 * ms, Complete: 13 * ms},
			map[Phase]int64{Critical: 2000, Attempt: 3000}},
		{"open model counts from the intended start", history.Attempt{Run: "r", Outcome: history.Sold, Intended: 2 * ms, Invoke: 10 * ms,
			DBStart: 10 * ms, DBEnd: 12 * ms, Complete: 12 * ms},
			map[Phase]int64{Critical: 2000, Attempt: 10000}},
		{"never reported", history.Attempt{Run: "r", Outcome: history.Unknown}, map[Phase]int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSet()
			s.Observe(tt.a)
			for _, p := range Phases() {
				h := s.Histogram("r", p)
				want, ok := tt.want[p]
				if !ok {
					if h.TotalCount() != 0 {
						t.Errorf("%s: %d values, want none", p, h.TotalCount())
					}
					continue
				}
				if h.TotalCount() != 1 || !h.ValuesAreEquivalent(h.Max(), want) {
					t.Errorf("%s: count %d max %dµs, want one value of %dµs", p, h.TotalCount(), h.Max(), want)
				}
			}
		})
	}
}

func TestHgrm(t *testing.T) {
	s := NewSet()
	for i := 1; i <= 100; i++ {
		s.record(Key{Run: "r", Phase: Attempt}, time.Duration(i)*time.Millisecond)
	}
	var b strings.Builder
	if err := WriteHgrm(&b, s.Histogram("r", Attempt)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Value", "Percentile", "TotalCount", "#[Mean"} {
		if !strings.Contains(out, want) {
			t.Errorf(".hgrm output lacks %q:\n%s", want, out)
		}
	}
}

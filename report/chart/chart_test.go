package chart

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// t0 is the go signal of the first synthetic run, in Unix ns.
const t0 = int64(1_800_000_000_000_000_000)

// ms is d milliseconds in nanoseconds, for timestamps.
func ms(d float64) int64 { return int64(d * float64(time.Millisecond)) }

// fixture is a small folder: a lock-only run with a pause, an update-only
// run with an attempt that never answered, and a fenced run that recorded
// no attempts.
func fixture() (history.Manifest, history.Records) {
	m := history.Manifest{
		Schema: history.ManifestSchema, RunID: "test-run",
		Runs: []history.Run{
			{Name: "lock-only/pause", Mode: "lock-only", Fault: "pause", Seats: 2, GoAt: t0},
			{Name: "update-only", Mode: "update-only", Seats: 2, GoAt: t0 + ms(100)},
			{Name: "fenced", Mode: "fenced", Seats: 2, GoAt: t0 + ms(200)},
		},
	}
	lock := func(id string, invoke, acquired, dbStart, dbEnd, released float64, o history.Outcome) history.Attempt {
		return history.Attempt{
			Run: "lock-only/pause", Mode: "lock-only", RequestID: id,
			Invoke: t0 + ms(invoke), LockAcquired: t0 + ms(acquired), DBStart: t0 + ms(dbStart),
			DBEnd: t0 + ms(dbEnd), LockReleased: t0 + ms(released), Complete: t0 + ms(released), Outcome: o,
		}
	}
	upd := func(id string, invoke, dbEnd float64, o history.Outcome) history.Attempt {
		at := t0 + ms(100)
		return history.Attempt{
			Run: "update-only", Mode: "update-only", RequestID: id,
			Invoke: at + ms(invoke), DBStart: at + ms(invoke), DBEnd: at + ms(dbEnd), Complete: at + ms(dbEnd), Outcome: o,
		}
	}
	r := history.Records{
		Attempts: []history.Attempt{
			lock("a1", 0.1, 0.3, 0.4, 1.5, 1.7, history.Sold),
			lock("a2", 0.2, 1.8, 1.9, 8.0, 8.2, history.Sold),
			lock("a3", 0.2, 8.3, 8.4, 9.0, 9.1, history.SoldOut),
			{Run: "lock-only/pause", Mode: "lock-only", RequestID: "a4", Invoke: t0 + ms(0.3), Complete: t0 + ms(6.3), Outcome: history.LockTimeout},
			upd("b1", 0.1, 2.0, history.Sold),
			upd("b2", 0.1, 2.5, history.Sold),
			upd("b3", 0.2, 3.0, history.SoldOut),
			{Run: "update-only", Mode: "update-only", RequestID: "b4", Invoke: t0 + ms(100.2), Outcome: history.Unknown},
		},
		Faults: []history.FaultEvent{
			{Run: "lock-only/pause", Fault: "pause", Proc: 0, Goroutine: 1, Start: t0 + ms(2), End: t0 + ms(7), Detail: "paused 5ms"},
		},
	}
	return m, r
}

// observe records the attempts of r into a new latency set.
func observe(r history.Records) *latency.Set {
	s := latency.NewSet()
	for _, a := range r.Attempts {
		s.Observe(a)
	}
	return s
}

// build computes the Data of a folder of m and r; nil lat rebuilds the
// histograms from r's attempts.
func build(m history.Manifest, r history.Records, lat *latency.Set) Data {
	return Build(folder.New(history.Log{Manifest: m, Records: r}, lat))
}

func TestBuildGolden(t *testing.T) {
	m, r := fixture()
	tests := []struct {
		name   string
		m      history.Manifest
		r      history.Records
		golden string
	}{
		{"three runs", m, r, "data.golden"},
		{"runs without records", m, history.Records{}, "data-empty.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.MarshalIndent(build(tt.m, tt.r, observe(tt.r)), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", tt.golden), append(got, '\n'))
		})
	}
}

// TestBuildWithoutHistograms checks that the charts of a folder saved
// without histograms plot the histograms rebuilt from its attempts.
func TestBuildWithoutHistograms(t *testing.T) {
	m, r := fixture()
	want, _ := json.Marshal(build(m, r, observe(r)))
	got, _ := json.Marshal(build(m, r, nil))
	if !bytes.Equal(got, want) {
		t.Errorf("Build with rebuilt histograms:\ngot  %s\nwant %s", got, want)
	}
}

// checkGolden compares got with the golden file, or rewrites it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Data differs from %s (rerun with -update to accept):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestBucketWidth(t *testing.T) {
	tests := []struct {
		name    string
		longest time.Duration
		want    time.Duration
	}{
		{"nothing", 0, time.Millisecond},
		{"shorter than 50 ms", 20 * time.Millisecond, time.Millisecond},
		{"one second", time.Second, 20 * time.Millisecond},
		{"nearer 50 than 20", 1800 * time.Millisecond, 50 * time.Millisecond},
		{"a minute", time.Minute, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := time.Duration(bucketWidth(int64(tt.longest))); got != tt.want {
				t.Errorf("bucketWidth(%v) = %v, want %v", tt.longest, got, tt.want)
			}
		})
	}
}

func TestPercentileTicks(t *testing.T) {
	tests := []struct {
		name string
		max  float64
		want []string
	}{
		{"ten samples", 10, []string{"50%", "90%"}},
		{"a thousand samples", 1000, []string{"50%", "90%", "99%", "99.9%"}},
		{"short of 99.99%", 5000, []string{"50%", "90%", "99%", "99.9%"}},
		{"a hundred thousand", 1e5, []string{"50%", "90%", "99%", "99.9%", "99.99%", "99.999%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tk := range (percentileTicks{}).Ticks(1, tt.max) {
				if tk.Label != "" {
					got = append(got, tk.Label)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("labels up to %g = %q, want %q", tt.max, got, tt.want)
			}
		})
	}
}

func TestFaceted(t *testing.T) {
	// runs makes n runs; run i has mode i%modes and fault dash(i).
	runs := func(n, modes int, dash func(i int) int) []Run {
		out := make([]Run, n)
		for i := range out {
			out[i] = Run{Name: string(rune('a' + i)), Colour: i % modes, Dash: dash(i)}
		}
		return out
	}
	tests := []struct {
		name string
		runs []Run
		want bool
	}{
		{"load: five modes, no fault", runs(5, 5, func(int) int { return 0 }), false},
		{"few runs under two faults", runs(4, 2, func(i int) int { return i / 2 }), false},
		{"gate: modes under several faults", runs(15, 5, func(i int) int { return i / 5 }), true},
		{"many runs under one fault", runs(10, 10, func(int) int { return 1 }), false},
		{"a mode twice under one fault", runs(10, 5, func(i int) int { return min(i/4, 1) }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := faceted(Data{Runs: tt.runs}); got != tt.want {
				t.Errorf("faceted = %v, want %v", got, tt.want)
			}
		})
	}
}

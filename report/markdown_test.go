package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/linearize"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update to accept):\n%s", path, got)
	}
}

// sample is a small load-like summary: a negative control that oversold
// and a safe run, with fixed numbers.
func sample(fast bool) Summary {
	slow := 1.0
	if !fast {
		slow = 1.5
	}
	sellout := 12.5 * slow
	return Summary{
		Schema: summarySchema, RunID: "20261129-080000-abcdef", Command: "load", Seed: 42, Stack: "local",
		Env: history.Env{Hammer: "v0.1.0", Revision: "0123abc", Go: "go1.26.8", Redis: "7.0.15",
			PostgreSQL: "15.18", Fsync: "off", Cores: 2, PoolSize: 16, RedisPool: 16},
		StackNotes: []string{"local PostgreSQL runs with fsync off"},
		ExitCode:   0,
		Runs: []RunSummary{
			{Name: "none", Mode: "none", Procs: 2, Goroutines: 10, Contenders: 20, Seats: 5, Sold: 7, Oversold: 2,
				Verdict: verify.Invalid, Expected: scenarios.Unsafe, ExpectOK: true, ExpectReason: "expected an oversell and saw one: sold 7 of 5",
				Violations: []verify.Violation{{Check: "oversell", Detail: "sold 7 of 5 seats: 2 more than exist",
					Story: []string{"   +1.0ms  p0-g1-a0 (process 0) read available = 5", "=> seat 1 was sold to both p0-g1-a0 and p1-g2-a0"}}},
				Outcomes: map[string]int{"sold": 7, "sold_out": 13}, WinsByProcess: map[string]int{"0": 4, "1": 3},
				P50Ms: 3 * slow, P99Ms: 9 * slow, StartSkewMs: 0.4, PeakInFlight: 20, RealtimeWorkers: 2, SelloutMs: &sellout, Model: "closed",
				Latency: []latency.Summary{{Phase: latency.Critical, Count: 20, Min: 0.5, P50: 1 * slow, P90: 2, P99: 3, P999: 3, Max: 3, Mean: 1.2},
					{Phase: latency.Attempt, Count: 20, Min: 1, P50: 3 * slow, P90: 8, P99: 9 * slow, P999: 9 * slow, Max: 9 * slow, Mean: 4}}},
			{Name: "update-only", Mode: "update-only", Procs: 2, Goroutines: 10, Contenders: 20, Seats: 5, Sold: 5,
				Verdict: verify.Valid, Expected: scenarios.Safe, ExpectOK: true, ExpectReason: "expected safe: every check passed, sold 5 of 5",
				Violations: []verify.Violation{}, Outcomes: map[string]int{"sold": 5, "sold_out": 15},
				WinsByProcess: map[string]int{"0": 2, "1": 3}, P50Ms: 2, P99Ms: 4, StartSkewMs: 0.3, PeakInFlight: 18, RealtimeWorkers: 1, SelloutMs: &sellout, Model: "closed",
				Floor:   Floor{CommitLatencyMs: ptr(0.5), FloorMs: ptr(2.5), Efficiency: ptr(0.2)},
				Latency: []latency.Summary{{Phase: latency.Attempt, Count: 20, Min: 1, P50: 2, P90: 3, P99: 4, P999: 4, Max: 4, Mean: 2.2}}},
		},
	}
}

func TestMarkdownGolden(t *testing.T) {
	var b strings.Builder
	charts := folder.Charts()[:1]
	s := sample(true)
	s.Runs[0].Checkers = &verify.Checkers{Hammer: verify.Invalid, Porcupine: linearize.Illegal, PorcupineMs: 4.2, Agreement: verify.Agree}
	s.Runs[1].Checkers = &verify.Checkers{Hammer: verify.Valid, Porcupine: linearize.NotChecked, PorcupineMs: 10000,
		Agreement: verify.NotCompared, Why: "porcupine did not check the run: porcupine did not finish within 10s"}
	pages := map[string]string{"none": folder.PorcupineFile("none")}
	if err := writeMarkdown(&b, s, charts, pages); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md.golden", b.String())
}

func TestCompareGolden(t *testing.T) {
	a, b := sample(true), sample(false)
	b.Runs[1].Verdict, b.Runs[1].ExpectOK, b.Runs[1].Sold = verify.Invalid, false, 6
	// lock-only can no longer be told in B; lock-plus-update failed in A and
	// holds in B; pause is only in A, fenced only in B.
	a.Runs = append(a.Runs,
		RunSummary{Name: "lock-only", Expected: scenarios.Safe, Verdict: verify.Valid, ExpectOK: true, Sold: 5},
		RunSummary{Name: "lock-plus-update", Expected: scenarios.Safe, Verdict: verify.Invalid, Sold: 6},
		RunSummary{Name: "pause", Expected: scenarios.Safe, Verdict: verify.Valid, ExpectOK: true, Sold: 5})
	b.Runs = append(b.Runs,
		RunSummary{Name: "lock-only", Expected: scenarios.Safe, Verdict: verify.Unknown, Sold: 4},
		RunSummary{Name: "lock-plus-update", Expected: scenarios.Safe, Verdict: verify.Valid, ExpectOK: true, Sold: 5},
		RunSummary{Name: "fenced", Verdict: verify.Valid, ExpectOK: true, Sold: 5})
	var out strings.Builder
	if err := Compare(&out, a, b, "results/a", "results/b"); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.md.golden", out.String())
}

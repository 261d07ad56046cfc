package report

import (
	"slices"
	"testing"

	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

// line is a run's summary line with only what the judgement reads.
func line(name string, expected scenarios.Expectation, v verify.Status, ok bool) RunSummary {
	return RunSummary{Name: name, Expected: expected, Verdict: v, ExpectOK: ok}
}

// summaryOf is a summary of the given command holding runs.
func summaryOf(command string, runs ...RunSummary) Summary {
	return Summary{Command: command, Runs: runs}
}

func runNames(cs []RunChange) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.A.Name)
	}
	return out
}

func TestRegressions(t *testing.T) {
	safeValid := line("update-only", scenarios.Safe, verify.Valid, true)
	safeInvalid := line("update-only", scenarios.Safe, verify.Invalid, false)
	safeUnknown := line("update-only", scenarios.Safe, verify.Unknown, false)
	controlCaught := line("none", scenarios.Unsafe, verify.Invalid, true)
	controlLost := line("none", scenarios.Unsafe, verify.Valid, false)
	controlUnk := line("none", scenarios.Unsafe, verify.Unknown, false)
	bareValid := line("plain", "", verify.Valid, true)
	bareInvalid := line("plain", "", verify.Invalid, false)
	tests := []struct {
		name             string
		a, b             Summary
		wantWorse        []string
		wantUndetermined []string
		wantConclusion   string
	}{
		{name: "same folder", a: summaryOf("load", controlCaught, safeValid), b: summaryOf("load", controlCaught, safeValid),
			wantConclusion: "no run got worse"},
		{name: "safe run becomes invalid", a: summaryOf("load", controlCaught, safeValid), b: summaryOf("load", controlCaught, safeInvalid),
			wantWorse:      []string{"update-only"},
			wantConclusion: "B is worse than A in 1 run: `update-only` (valid → invalid)"},
		{name: "negative control loses detection", a: summaryOf("load", controlCaught), b: summaryOf("load", controlLost),
			wantUndetermined: []string{"none"},
			wantConclusion:   "no run got worse; 1 run could not be determined in B: `none` (invalid → valid)"},
		{name: "run without expectation becomes invalid", a: summaryOf("run", bareValid), b: summaryOf("run", bareInvalid),
			wantWorse:      []string{"plain"},
			wantConclusion: "B is worse than A in 1 run: `plain` (valid → invalid)"},
		{name: "two runs worse", a: summaryOf("load", controlCaught, safeValid, bareValid), b: summaryOf("load", controlCaught, safeInvalid, bareInvalid),
			wantWorse:      []string{"update-only", "plain"},
			wantConclusion: "B is worse than A in 2 runs: `update-only` (valid → invalid), `plain` (valid → invalid)"},
		{name: "lost detection and a worse run", a: summaryOf("load", controlCaught, safeValid), b: summaryOf("load", controlLost, safeInvalid),
			wantWorse: []string{"update-only"}, wantUndetermined: []string{"none"},
			wantConclusion: "B is worse than A in 1 run: `update-only` (valid → invalid); 1 run could not be determined in B: `none` (invalid → valid)"},
		{name: "safe run becomes unknown", a: summaryOf("load", safeValid), b: summaryOf("load", safeUnknown),
			wantUndetermined: []string{"update-only"},
			wantConclusion:   "no run got worse; 1 run could not be determined in B: `update-only` (valid → unknown)"},
		{name: "control becomes unknown", a: summaryOf("load", controlCaught), b: summaryOf("load", controlUnk),
			wantUndetermined: []string{"none"},
			wantConclusion:   "no run got worse; 1 run could not be determined in B: `none` (invalid → unknown)"},
		{name: "worse outranks unknown", a: summaryOf("load", controlCaught, safeValid), b: summaryOf("load", controlUnk, safeInvalid),
			wantWorse: []string{"update-only"}, wantUndetermined: []string{"none"},
			wantConclusion: "B is worse than A in 1 run: `update-only` (valid → invalid); 1 run could not be determined in B: `none` (invalid → unknown)"},
		{name: "B got better", a: summaryOf("load", controlLost, safeInvalid), b: summaryOf("load", controlCaught, safeValid),
			wantConclusion: "no run got worse"},
		{name: "already failing in A is not worse", a: summaryOf("load", safeInvalid), b: summaryOf("load", safeInvalid),
			wantConclusion: "no run got worse"},
		{name: "unknown in A, caught in B", a: summaryOf("load", safeUnknown), b: summaryOf("load", safeInvalid),
			wantWorse:      []string{"update-only"},
			wantConclusion: "B is worse than A in 1 run: `update-only` (unknown → invalid)"},
		{name: "still unknown is not judged", a: summaryOf("load", safeUnknown), b: summaryOf("load", safeUnknown),
			wantConclusion: "no run got worse"},
		{name: "runs only in one folder are not judged", a: summaryOf("load", safeValid), b: summaryOf("load", controlLost),
			wantConclusion: "no run got worse"},
		{name: "expectation dropped, same verdict", a: summaryOf("load", controlCaught),
			b:              summaryOf("run", line("none", "", verify.Invalid, false)),
			wantWorse:      []string{"none"},
			wantConclusion: "B is worse than A in 1 run: `none` (invalid → invalid, expected unsafe → nothing)"},
		{name: "empty folders", wantConclusion: "no run got worse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Regressions(tt.a, tt.b)
			if got := runNames(j.Worse); !slices.Equal(got, tt.wantWorse) {
				t.Errorf("worse = %q, want %q", got, tt.wantWorse)
			}
			if got := runNames(j.Undetermined); !slices.Equal(got, tt.wantUndetermined) {
				t.Errorf("undetermined = %q, want %q", got, tt.wantUndetermined)
			}
			if got := j.conclusion(); got != tt.wantConclusion {
				t.Errorf("conclusion = %q, want %q", got, tt.wantConclusion)
			}
		})
	}
}

func TestConclusionCapsTheList(t *testing.T) {
	var a, b Summary
	for _, n := range []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7"} {
		a.Runs = append(a.Runs, line(n, scenarios.Safe, verify.Valid, true))
		b.Runs = append(b.Runs, line(n, scenarios.Safe, verify.Invalid, false))
	}
	want := "B is worse than A in 7 runs: `r1` (valid → invalid), `r2` (valid → invalid), `r3` (valid → invalid), " +
		"`r4` (valid → invalid), `r5` (valid → invalid) and 2 more"
	if got := Regressions(a, b).conclusion(); got != want {
		t.Errorf("conclusion = %q, want %q", got, want)
	}
}

func TestMismatches(t *testing.T) {
	run := func(n string) RunSummary { return line(n, scenarios.Safe, verify.Valid, true) }
	tests := []struct {
		name string
		a, b Summary
		want []string
	}{
		{name: "alike", a: summaryOf("load", run("x"), run("y")), b: summaryOf("load", run("y"), run("x"))},
		{name: "command unrecorded in one folder", a: summaryOf("", run("x")), b: summaryOf("load", run("x"))},
		{name: "different commands", a: summaryOf("gate", run("x")), b: summaryOf("load", run("x")),
			want: []string{"A comes from hammer gate, B from hammer load: their runs may not be comparable"}},
		{name: "run only in A", a: summaryOf("load", run("x"), run("y")), b: summaryOf("load", run("x")),
			want: []string{"A and B ran different matrices (only the runs both hold are judged): 1 run only in A: y"}},
		{name: "expectation differs", a: summaryOf("load", line("none", scenarios.Unsafe, verify.Invalid, true)),
			b:    summaryOf("load", line("none", "", verify.Invalid, false)),
			want: []string{"expectations differ between A and B in 1 run (B is judged by its own): none (expected unsafe → nothing)"}},
		{name: "runs only on each side, capped", a: summaryOf("gate", run("x"), run("a1"), run("a2"), run("a3"), run("a4"), run("a5")),
			b: summaryOf("load", run("b1"), run("x")),
			want: []string{"A comes from hammer gate, B from hammer load: their runs may not be comparable",
				"A and B ran different matrices (only the runs both hold are judged): 5 runs only in A: a1, a2, a3 and 2 more; 1 run only in B: b1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mismatches(tt.a, tt.b); !slices.Equal(got, tt.want) {
				t.Errorf("mismatches = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestChangeCell(t *testing.T) {
	tests := []struct {
		name string
		a, b RunSummary
		want string
	}{
		{name: "same", a: line("x", scenarios.Safe, verify.Valid, true), b: line("x", scenarios.Safe, verify.Valid, true), want: ""},
		{name: "worse", a: line("x", scenarios.Safe, verify.Valid, true), b: line("x", scenarios.Safe, verify.Invalid, false),
			want: "**worse: valid → invalid**"},
		{name: "cannot tell", a: line("x", scenarios.Safe, verify.Valid, true), b: line("x", scenarios.Safe, verify.Unknown, false),
			want: "**cannot tell: valid → unknown**"},
		{name: "better", a: line("x", scenarios.Safe, verify.Unknown, false), b: line("x", scenarios.Safe, verify.Valid, true),
			want: "better: unknown → valid"},
		{name: "unknown in A, caught in B", a: line("x", scenarios.Safe, verify.Unknown, false), b: line("x", scenarios.Safe, verify.Invalid, false),
			want: "**worse: unknown → invalid**"},
		{name: "still failing, other verdict", a: line("x", scenarios.Unsafe, verify.Valid, false), b: line("x", scenarios.Unsafe, verify.Unknown, false),
			want: "changed: valid → unknown"},
		{name: "expectation changed only", a: line("x", scenarios.Safe, verify.Valid, true), b: line("x", "", verify.Valid, true),
			want: "changed: valid → valid, expected safe → nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := changeCell(RunChange{A: tt.a, B: tt.b}); got != tt.want {
				t.Errorf("change = %q, want %q", got, tt.want)
			}
		})
	}
}

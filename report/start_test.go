package report

import (
	"strings"
	"testing"
)

// The start note says that every worker started in a real-time burst, or
// that none did, or names the runs where some did not; it is absent
// without a closed-model run.
func TestStartNote(t *testing.T) {
	closed := func(name string, procs, rt int) RunSummary {
		return RunSummary{Name: name, Procs: procs, RealtimeWorkers: rt, Model: "closed"}
	}
	open := RunSummary{Name: "open", Procs: 2, Model: "open"}
	tests := []struct {
		name     string
		runs     []RunSummary
		want     []string // substrings, in order
		wantNot  []string
		wantNone bool
	}{
		{"every worker in real time", []RunSummary{closed("a", 4, 4), open},
			[]string{"Every worker process started its contenders in a real-time burst"}, []string{"`a`", "`open`"}, false},
		{"some under ordinary scheduling", []RunSummary{closed("a", 4, 4), closed("b", 4, 1), closed("c", 2, 0)},
			[]string{"ordinary scheduling", "`b` (3 of 4), `c` (2 of 2)", "start skew is larger"}, []string{"`a`"}, false},
		{"no worker in real time", []RunSummary{closed("a", 4, 0), closed("b", 2, 0)},
			[]string{"No worker process started its contenders in a real-time burst", "start skew is larger"}, []string{"`a`", "`b`"}, false},
		{"open model only", []RunSummary{open}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeStartNote(&b, Summary{Runs: tt.runs})
			got := b.String()
			if tt.wantNone != (got == "") {
				t.Fatalf("note %q; want one: %v", got, !tt.wantNone)
			}
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("note %q lacks %q (in order)", got, w)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("note %q names %s", got, w)
				}
			}
		})
	}
}

// The CPU note gives the one GOMAXPROCS every worker raced with, or each
// run's when they differ; it is absent when no run recorded one.
func TestCPUNote(t *testing.T) {
	run := func(name string, n int) RunSummary { return RunSummary{Name: name, WorkerGoMaxProcs: n} }
	tests := []struct {
		name string
		runs []RunSummary
		want string // "" for no note
	}{
		{"one value", []RunSummary{run("a", 1), run("b", 1), run("old", 0)}, "The worker processes raced with GOMAXPROCS 1 at most ("},
		{"values differ", []RunSummary{run("a", 1), run("old", 0), run("b", 2)}, "): `a` 1, `b` 2.\n"},
		{"none recorded", []RunSummary{run("old", 0)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeCPUNote(&b, Summary{Runs: tt.runs})
			got := b.String()
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("note %q; want one containing %q", got, tt.want)
			}
		})
	}
}

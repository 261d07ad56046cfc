package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
)

// twoRuns is a folder of two runs of two workers each: none (3 seats, 8
// contenders all told they got a seat: an oversell, as expected) and then
// update-only (10 seats, 20 contenders, the last 10 sold out).
func twoRuns() history.Log {
	f := history.Log{Manifest: history.Manifest{Schema: history.ManifestSchema, Runs: []history.Run{
		{Name: "none", Mode: "none", Procs: 2, Seats: 3, Expected: scenarios.Unsafe, RequestsPerWorker: []int{4, 4}},
		{Name: "update-only", Mode: "update-only", Procs: 2, Seats: 10, Expected: scenarios.Safe, RequestsPerWorker: []int{10, 10}},
	}}}
	add := func(run string, n, seats int) {
		for i := range n {
			a := history.Attempt{Run: run, Mode: scenarios.Mode(run), Proc: i % 2, RequestID: reqID(i), Outcome: history.SoldOut}
			if run == "none" || i < seats {
				a.Outcome, a.Seat = history.Sold, i%seats+1
				f.Sales = append(f.Sales, history.Sale{Run: run, Sector: 1, Seat: a.Seat, RequestID: a.RequestID})
			}
			f.Attempts = append(f.Attempts, a)
		}
	}
	add("none", 8, 3)
	add("update-only", 20, 10)
	f.Sectors = []history.Sector{{Run: "none", ID: 1, Capacity: 3}, {Run: "update-only", ID: 1, Capacity: 10}}
	return f
}

// rewrite changes one file of dir through change.
func rewrite(t *testing.T, dir, name string, change func(string) string) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(change(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editManifest changes the manifest of dir through edit.
func editManifest(t *testing.T, dir string, edit func(*history.Manifest)) {
	t.Helper()
	rewrite(t, dir, folder.ManifestFile, func(s string) string {
		var m history.Manifest
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		edit(&m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	})
}

// withoutLines drops the lines of a JSONL text for which drop is true.
func withoutLines(s string, drop func(i int, line string) bool) string {
	var b strings.Builder
	for i, l := range strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") {
		if l = strings.TrimSuffix(l, "\n"); !drop(i, l) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// runWant is what one run of a tampered folder must be judged.
type runWant struct {
	status Status
	// reason must appear among the verdict's undetermined reasons (Unknown)
	// or its notes (Invalid).
	reason string
	// note, when set, must appear among the verdict's notes.
	note string
}

func TestFolderIntegrity(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		none   runWant
		safe   runWant
	}{
		{
			name:   "intact",
			tamper: func(*testing.T, string) {},
			none:   runWant{status: Invalid},
			safe:   runWant{status: Valid},
		},
		{
			name: "history lost its last lines at a line boundary",
			tamper: func(t *testing.T, dir string) {
				rewrite(t, dir, folder.HistoryFile, func(s string) string {
					return withoutLines(s, func(i int, _ string) bool { return i >= 25 })
				})
			},
			// The oversell stands on the intact ledger alone.
			none: runWant{status: Invalid, reason: "history.jsonl holds 25 records but manifest.json recorded 28"},
			safe: runWant{status: Unknown, reason: "history.jsonl holds 9 attempts of update-only for worker 0, the race made 10"},
		},
		{
			name: "sold_out lines deleted",
			tamper: func(t *testing.T, dir string) {
				rewrite(t, dir, folder.HistoryFile, func(s string) string {
					return withoutLines(s, func(_ int, l string) bool { return strings.Contains(l, `"outcome":"sold_out"`) })
				})
			},
			none: runWant{status: Invalid, reason: "history.jsonl holds 18 records but manifest.json recorded 28"},
			safe: runWant{status: Unknown, reason: "history.jsonl holds 5 attempts of update-only for worker 1, the race made 10"},
		},
		{
			name: "ledger row appended",
			tamper: func(t *testing.T, dir string) {
				rewrite(t, dir, folder.LedgerFile, func(s string) string {
					return s + `{"run":"update-only","sector":1,"seat":11,"request_id":"ghost","worker":"w","started_ns":0,"sold_ns":0}` + "\n"
				})
			},
			// A tampered ledger proves nothing, not even the control's oversell.
			none: runWant{status: Unknown, reason: "ledger.jsonl holds 19 records but manifest.json recorded 18"},
			safe: runWant{status: Unknown, reason: "ledger.jsonl holds 19 records but manifest.json recorded 18",
				note: "not counted, as ledger.jsonl changed after the run: oversell: sold 11 of 10 seats"},
		},
		{
			name: "without digests",
			tamper: func(t *testing.T, dir string) {
				editManifest(t, dir, func(m *history.Manifest) {
					m.Files = nil
					for i := range m.Runs {
						m.Runs[i].RequestsPerWorker = nil
					}
				})
			},
			none: runWant{status: Invalid, reason: "manifest.json records no digests for the record files"},
			safe: runWant{status: Unknown, reason: "manifest.json records no digests for the record files"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := folder.New(twoRuns(), nil).Save(dir); err != nil {
				t.Fatal(err)
			}
			tt.tamper(t, dir)
			f, err := folder.Load(dir)
			if err != nil {
				t.Fatalf("Load: %v, want the folder read with its problems", err)
			}
			got := Runs(f.Runs())
			for i, w := range []runWant{tt.none, tt.safe} {
				checkRun(t, got[i], w)
			}
		})
	}
}

// checkRun compares one run's verdict with what it must be.
func checkRun(t *testing.T, got RunVerdict, w runWant) {
	t.Helper()
	v := got.Verdict
	if v.Status != w.status {
		t.Errorf("%s: verdict %s (%s), want %s", got.Run.Name, v.Status, v.Summary(), w.status)
	}
	where := v.Notes
	if w.status == Unknown {
		where = v.Undetermined
	}
	if w.reason != "" && !strings.Contains(strings.Join(where, "\n"), w.reason) {
		t.Errorf("%s: %s reasons %q, want one containing %q", got.Run.Name, w.status, where, w.reason)
	}
	if w.note != "" && !strings.Contains(strings.Join(v.Notes, "\n"), w.note) {
		t.Errorf("%s: notes %q, want one containing %q", got.Run.Name, v.Notes, w.note)
	}
	if w.status == Valid && (len(v.Notes) > 0 || len(v.Undetermined) > 0) {
		t.Errorf("%s: valid with notes %q and undetermined %q, want none", got.Run.Name, v.Notes, v.Undetermined)
	}
}

// onProcs spreads an Input's attempts over n workers, round robin.
func onProcs(in Input, n int) Input {
	for i := range in.Attempts {
		in.Attempts[i].Proc = i % n
	}
	return in
}

func TestCheckIntegrity(t *testing.T) {
	historyCut := folder.Problem{File: folder.HistoryFile, Changed: true, Detail: "history.jsonl holds 7 records but manifest.json recorded 9"}
	ledgerEdited := folder.Problem{File: folder.LedgerFile, Changed: true,
		Detail: "ledger.jsonl does not match the SHA-256 manifest.json recorded for it (changed after the run)"}
	unchecked := folder.Problem{Detail: "manifest.json records no digests for the record files (written before hammer recorded them), so the folder cannot be checked"}
	tests := []struct {
		name       string
		in         Input
		wantStatus Status
		// want must appear among the undetermined reasons (Unknown) or the
		// notes (Invalid); note, when set, must begin one of the notes.
		want, note string
	}{
		{
			name:       "every worker's attempts counted",
			in:         onProcs(new(race).sold(1, 3).refused(3, history.SoldOut).input(3, 3, 0), 2).with(func(in *Input) { in.RequestsPerWorker = []int{3, 3} }),
			wantStatus: Valid,
		},
		{
			name:       "a worker short of attempts",
			in:         onProcs(new(race).sold(1, 3).refused(2, history.SoldOut).input(3, 3, 0), 2).with(func(in *Input) { in.Run, in.RequestsPerWorker = "r", []int{3, 3} }),
			wantStatus: Unknown,
			want:       "history.jsonl holds 2 attempts of r for worker 1, the race made 3",
		},
		{
			name:       "attempts of a worker the race never had",
			in:         onProcs(new(race).sold(1, 3).input(3, 3, 0), 3).with(func(in *Input) { in.RequestsPerWorker = []int{1, 1} }),
			wantStatus: Unknown,
			want:       "history.jsonl holds 1 attempt of this run for worker 2, the race made none",
		},
		{
			name:       "an oversell on an edited ledger proves nothing",
			in:         oversold().input(100, 100, 0).with(func(in *Input) { in.Integrity = []folder.Problem{ledgerEdited} }),
			wantStatus: Unknown,
			want:       ledgerEdited.Detail,
			note:       "not counted, as ledger.jsonl changed after the run: oversell: sold 103 of 100 seats",
		},
		{
			name:       "an oversell on an intact ledger stands when the history was cut",
			in:         oversold().input(100, 100, 0).with(func(in *Input) { in.Integrity = []folder.Problem{historyCut} }),
			wantStatus: Invalid,
			want:       historyCut.Detail,
		},
		{
			name: "overlapping lock holders in a cut history prove nothing",
			in: new(race).locked("p0-g1-a0", 0, 10, 400, 1).locked("p1-g2-a0", 1, 160, 165, 2).input(2, 2, 0).
				with(func(in *Input) {
					in.Mode, in.LockTTL, in.Integrity = "lock-only", 150_000_000, []folder.Problem{historyCut}
				}).with(paused("p0-g1-a0", 11, 390)),
			wantStatus: Unknown,
			want:       historyCut.Detail,
			note:       "not counted, as history.jsonl changed after the run: mutual-exclusion: ",
		},
		{
			name:       "a cut history makes a ledger row without an attempt a note",
			in:         new(race).sold(1, 2).row("gone", 3).input(3, 3, 0).with(func(in *Input) { in.Integrity = []folder.Problem{historyCut} }),
			wantStatus: Unknown,
			want:       historyCut.Detail,
		},
		{
			name:       "an oversell stands on files that could not be checked",
			in:         oversold().input(100, 100, 0).with(func(in *Input) { in.Integrity = []folder.Problem{unchecked} }),
			wantStatus: Invalid,
			want:       unchecked.Detail,
		},
		{
			name:       "a clean run on files that could not be checked is unknown",
			in:         new(race).sold(1, 3).input(3, 3, 0).with(func(in *Input) { in.Integrity = []folder.Problem{unchecked} }),
			wantStatus: Unknown,
			want:       unchecked.Detail,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Check(tt.in)
			if v.Status != tt.wantStatus {
				t.Errorf("Check().Status = %s (%s), want %s", v.Status, v.Summary(), tt.wantStatus)
			}
			where := v.Notes
			if v.Status == Unknown {
				where = v.Undetermined
			}
			if tt.want != "" && !slices.Contains(where, tt.want) {
				t.Errorf("Check() %s reasons %q, want %q among them", v.Status, where, tt.want)
			}
			if tt.note != "" && !slices.ContainsFunc(v.Notes, func(n string) bool { return strings.HasPrefix(n, tt.note) }) {
				t.Errorf("Check() notes %q, want one beginning %q", v.Notes, tt.note)
			}
		})
	}
}

package folder

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/history"
)

// savedFolder saves a small folder of one run with 5 attempts and 3 sale
// rows into a fresh directory and returns the directory.
func savedFolder(t *testing.T) string {
	t.Helper()
	f := history.Log{Manifest: history.Manifest{Schema: history.ManifestSchema,
		Runs: []history.Run{{Name: "a", Procs: 1, Seats: 3, RequestsPerWorker: []int{5}}}}}
	for i := range 5 {
		f.Attempts = append(f.Attempts, history.Attempt{Run: "a", RequestID: string(rune('a' + i)), Outcome: history.SoldOut})
	}
	for seat := 1; seat <= 3; seat++ {
		f.Sales = append(f.Sales, history.Sale{Run: "a", Sector: 1, Seat: seat})
	}
	f.Sectors = []history.Sector{{Run: "a", ID: 1, Capacity: 3}}
	dir := t.TempDir()
	if err := New(f, nil).Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// edit rewrites one file of dir through change.
func edit(t *testing.T, dir, name string, change func(string) string) {
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

// rewriteManifest changes the manifest of dir through change.
func rewriteManifest(t *testing.T, dir string, change func(*history.Manifest)) {
	t.Helper()
	var m history.Manifest
	if err := readJSON(filepath.Join(dir, ManifestFile), &m, maxManifestSize); err != nil {
		t.Fatal(err)
	}
	change(&m)
	if err := writeJSON(filepath.Join(dir, ManifestFile), m); err != nil {
		t.Fatal(err)
	}
}

// dropLines removes the last n lines of a JSONL text.
func dropLines(n int) func(string) string {
	return func(s string) string {
		lines := strings.SplitAfter(s, "\n")
		return strings.Join(lines[:len(lines)-1-n], "")
	}
}

func TestLoadIntegrity(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		want   []Problem
	}{
		{name: "intact", tamper: func(*testing.T, string) {}},
		{
			name:   "history cut at a line boundary",
			tamper: func(t *testing.T, dir string) { edit(t, dir, HistoryFile, dropLines(2)) },
			want:   []Problem{{File: HistoryFile, Changed: true, Detail: "history.jsonl holds 3 records but manifest.json recorded 5"}},
		},
		{
			name: "history cut in the middle of a line",
			tamper: func(t *testing.T, dir string) {
				edit(t, dir, HistoryFile, func(s string) string { return s[:len(s)-10] })
			},
			want: []Problem{
				{File: HistoryFile, Changed: true, Detail: "history.jsonl ends in the middle of record 5 (cut short)"},
				{File: HistoryFile, Changed: true, Detail: "history.jsonl holds 4 records but manifest.json recorded 5"},
			},
		},
		{
			name: "ledger row appended",
			tamper: func(t *testing.T, dir string) {
				edit(t, dir, LedgerFile, func(s string) string { return s + `{"run":"a","sector":1,"seat":4}` + "\n" })
			},
			want: []Problem{{File: LedgerFile, Changed: true, Detail: "ledger.jsonl holds 4 records but manifest.json recorded 3"}},
		},
		{
			name: "ledger row edited in place",
			tamper: func(t *testing.T, dir string) {
				edit(t, dir, LedgerFile, func(s string) string { return strings.Replace(s, `"seat":3`, `"seat":2`, 1) })
			},
			want: []Problem{{File: LedgerFile, Changed: true, Detail: "ledger.jsonl does not match the SHA-256 manifest.json recorded for it (changed after the run)"}},
		},
		{
			name: "no digests",
			tamper: func(t *testing.T, dir string) {
				rewriteManifest(t, dir, func(m *history.Manifest) { m.Files = nil })
			},
			want: []Problem{{Detail: "manifest.json records no digests for the record files (written before hammer recorded them), so the folder cannot be checked"}},
		},
		{
			name: "one digest missing",
			tamper: func(t *testing.T, dir string) {
				rewriteManifest(t, dir, func(m *history.Manifest) { delete(m.Files, FaultsFile) })
			},
			want: []Problem{{File: FaultsFile, Detail: "manifest.json records no digest for faults.jsonl, so it cannot be checked"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := savedFolder(t)
			tt.tamper(t, dir)
			f, err := Load(dir)
			if err != nil {
				t.Fatalf("Load: %v, want the folder with its problems", err)
			}
			if !reflect.DeepEqual(f.Integrity, tt.want) {
				t.Errorf("Integrity = %+v\nwant        %+v", f.Integrity, tt.want)
			}
		})
	}
}

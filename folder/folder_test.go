package folder

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
)

// twoRuns is a small folder of two runs, a and b, with a record of each
// kind for a and records of a run the manifest does not list.
func twoRuns() history.Log {
	read := 3
	return history.Log{
		Manifest: history.Manifest{Schema: history.ManifestSchema, RunID: "r1", Seed: 7, Stack: "local",
			Runs: []history.Run{{Name: "a", Mode: "lock-only", Procs: 1, Goroutines: 2, Seats: 1, Fault: "pause"}, {Name: "b", Mode: "none"}}},
		Records: history.Records{
			Attempts: []history.Attempt{{Run: "a", RequestID: "p0-g0-a0", Outcome: history.Sold, Seat: 1, ReadAvailable: &read},
				{Run: "b", RequestID: "x", Outcome: history.SoldOut,
					Replica: "r0 127.0.0.1:8080", Status: 409, Trace: "4bf92f3577b34da6a3ce929d0e0e4736", Span: "00f067aa0ba902b7"},
				{Run: "gone", RequestID: "y", Outcome: history.SoldOut}},
			Sales:   []history.Sale{{Run: "a", Sector: 1, Seat: 1, RequestID: "p0-g0-a0"}},
			Sectors: []history.Sector{{Run: "a", ID: 1, Capacity: 1}, {Run: "b", ID: 1, Capacity: 1, Available: 1}},
			Faults:  []history.FaultEvent{{Run: "a", Fault: "pause", RequestID: "p0-g0-a0", Detail: "paused"}},
		},
	}
}

func TestFolderRoundTrip(t *testing.T) {
	f := New(twoRuns(), nil)
	dir := t.TempDir()
	if err := f.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Log, f.Log) {
		t.Fatalf("round trip changed the folder:\ngot  %+v\nwant %+v", got.Log, f.Log)
	}
	wantRecords := map[string]int{HistoryFile: 3, LedgerFile: 1, SectorsFile: 2, FaultsFile: 1, LocksFile: 0}
	for name, n := range wantRecords {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		want := history.FileDigest{Records: n, SHA256: hex.EncodeToString(sum[:])}
		if d := got.Manifest.Files[name]; d != want {
			t.Errorf("manifest digest of %s = %+v, want %+v", name, d, want)
		}
	}
	if len(got.Manifest.Files) != len(wantRecords) || len(got.Integrity) > 0 {
		t.Errorf("manifest files %v, integrity %v; want the 5 record files and no problems", got.Manifest.Files, got.Integrity)
	}
}

func TestRuns(t *testing.T) {
	f := New(twoRuns(), nil)
	f.Integrity = nil
	runs := f.Runs()
	if len(runs) != 2 || runs[0].Name != "a" || runs[1].Name != "b" {
		t.Fatalf("Runs() = %+v, want a and b in manifest order", runs)
	}
	a := runs[0].Records
	if len(a.Attempts) != 1 || len(a.Sales) != 1 || len(a.Sectors) != 1 || len(a.Faults) != 1 {
		t.Errorf("run a holds %+v, want one record of each kind", a)
	}
	b := f.Run("b").Records
	if len(b.Attempts) != 1 || len(b.Sales) != 0 || len(b.Sectors) != 1 || len(b.Faults) != 0 {
		t.Errorf("run b holds %+v, want one attempt and one sector", b)
	}
	if gone := f.Run("gone"); gone.Name != "" || len(gone.Records.Attempts) != 0 {
		t.Errorf("Run(gone) = %+v, want no run: the manifest does not list it", gone)
	}
}

// TestRunsCarryIntegrity checks that every run's view carries the
// problems of the record files, which hold every run's records.
func TestRunsCarryIntegrity(t *testing.T) {
	dir := t.TempDir()
	if err := New(twoRuns(), nil).Save(dir); err != nil {
		t.Fatal(err)
	}
	edit(t, dir, LedgerFile, func(s string) string { return s + `{"run":"b","sector":1,"seat":1}` + "\n" })
	f, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Runs() {
		if !reflect.DeepEqual(r.Integrity, f.Integrity) || len(r.Integrity) != 1 {
			t.Errorf("run %s: integrity %+v, want the folder's one problem %+v", r.Name, r.Integrity, f.Integrity)
		}
	}
}

// TestHistograms checks that a folder keeps the histograms it is given,
// rebuilds them from the attempts when it has none, and that Load reads
// back what SaveHistograms wrote.
func TestHistograms(t *testing.T) {
	hf := twoRuns()
	hf.Attempts[0].Invoke, hf.Attempts[0].Complete = 1000, 3_000_000
	given := latency.NewSet()
	given.Observe(history.Attempt{Run: "b", Invoke: 1000, Complete: 9_000_000})
	if got := New(hf, given).Latency; got != given {
		t.Errorf("New with histograms replaced them")
	}
	rebuilt := New(hf, nil)
	if n := rebuilt.Latency.Histogram("a", latency.Attempt).TotalCount(); n != 1 {
		t.Errorf("rebuilt histograms hold %d attempts of a, want 1", n)
	}
	dir := t.TempDir()
	if err := rebuilt.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !sameHistograms(t, loaded.Latency, rebuilt.Latency) {
		t.Errorf("a folder without %s did not get its histograms rebuilt", histogramsFile)
	}
	f := New(hf, given)
	if err := f.SaveHistograms(dir); err != nil {
		t.Fatal(err)
	}
	if loaded, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if !sameHistograms(t, loaded.Latency, given) {
		t.Errorf("Load did not read back the saved histograms")
	}
	if _, err := os.Stat(filepath.Join(dir, "hgrm", "b.attempt.hgrm")); err != nil {
		t.Errorf("SaveHistograms: %v", err)
	}
}

// sameHistograms reports whether two sets encode alike.
func sameHistograms(t *testing.T, a, b *latency.Set) bool {
	t.Helper()
	ea, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	eb, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(ea, eb)
}

func TestLoadRejects(t *testing.T) {
	tests := []struct {
		name, manifest, histograms, want string
	}{
		{name: "wrong schema", manifest: `{"schema":"other/v9"}`, want: `schema "other/v9"`},
		{name: "not json", manifest: `{`, want: "manifest.json"},
		{name: "histograms not json", manifest: `{"schema":"hammer.manifest/v1"}`, histograms: `[`, want: "histograms.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(tt.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.histograms != "" {
				if err := os.WriteFile(filepath.Join(dir, histogramsFile), []byte(tt.histograms), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestFileName(t *testing.T) {
	tests := []struct{ name, run, want string }{
		{"plain", "none", "hgrm/none.attempt.hgrm"},
		{"fault and extend", "lock-only/pause+extend", "hgrm/lock-only_pause_extend.attempt.hgrm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hgrmFile(tt.run, latency.Attempt); got != tt.want {
				t.Errorf("hgrmFile(%q) = %q, want %q", tt.run, got, tt.want)
			}
		})
	}
}

// TestLockClaimsRoundTrip saves the claims on a service's lock into
// locks.jsonl and loads them back split by run; a folder written before
// hammer wrote the file (no digest for it, no file) loads without a
// problem, and one whose locks.jsonl went missing has one.
func TestLockClaimsRoundTrip(t *testing.T) {
	log := twoRuns()
	log.Locks = []history.LockClaim{{Run: "a", Replica: 1, Token: "t1", First: 10, Last: 20, Tries: 2, Acquired: 20, Released: 30}}
	dir := t.TempDir()
	if err := New(log, nil).Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Run("a").Records.Locks, log.Locks) || len(got.Integrity) != 0 {
		t.Fatalf("run a's claims = %+v, problems %v; want %+v and none", got.Run("a").Records.Locks, got.Integrity, log.Locks)
	}
	// No histograms.json: they are rebuilt from the records, claims too.
	if n := got.Latency.Histogram("a", latency.LockWait).TotalCount(); n != 1 {
		t.Errorf("rebuilt histograms hold %d lock waits of run a, want the claim's 1", n)
	}
	if err := os.Remove(filepath.Join(dir, LocksFile)); err != nil {
		t.Fatal(err)
	}
	if got, _ := Load(dir); len(got.Integrity) != 1 || got.Integrity[0].File != LocksFile {
		t.Errorf("locks.jsonl removed: problems %+v, want one about it", got.Integrity)
	}
	m := got.Manifest
	delete(m.Files, LocksFile)
	if err := writeJSON(filepath.Join(dir, ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	if got, _ := Load(dir); len(got.Integrity) != 0 {
		t.Errorf("a folder from before locks.jsonl: problems %+v, want none", got.Integrity)
	}
}

package history

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFolderRoundTrip(t *testing.T) {
	read := 3
	f := &Folder{
		Manifest: Manifest{Schema: ManifestSchema, RunID: "r1", Seed: 7, Stack: "local",
			Runs: []Run{{Name: "a", Mode: "lock-only", Procs: 1, Goroutines: 2, Seats: 1, Fault: "pause"}, {Name: "b", Mode: "none"}}},
		Records: Records{
			Attempts: []Attempt{{Run: "a", RequestID: "p0-g0-a0", Outcome: Sold, Seat: 1, ReadAvailable: &read}, {Run: "b", RequestID: "x", Outcome: SoldOut}},
			Sales:    []Sale{{Run: "a", Sector: 1, Seat: 1, RequestID: "p0-g0-a0"}},
			Sectors:  []Sector{{Run: "a", ID: 1, Capacity: 1}, {Run: "b", ID: 1, Capacity: 1, Available: 1}},
			Faults:   []FaultEvent{{Run: "a", Fault: "pause", RequestID: "p0-g0-a0", Detail: "paused"}},
		},
	}
	dir := t.TempDir()
	if err := f.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("round trip changed the folder:\ngot  %+v\nwant %+v", got, f)
	}
	wantRecords := map[string]int{HistoryFile: 2, LedgerFile: 1, SectorsFile: 2, FaultsFile: 1}
	for name, n := range wantRecords {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		want := FileDigest{Records: n, SHA256: hex.EncodeToString(sum[:])}
		if d := got.Manifest.Files[name]; d != want {
			t.Errorf("manifest digest of %s = %+v, want %+v", name, d, want)
		}
	}
	if len(got.Manifest.Files) != len(wantRecords) || len(got.Integrity) > 0 {
		t.Errorf("manifest files %v, integrity %v; want the 4 record files and no problems", got.Manifest.Files, got.Integrity)
	}
	a := got.ForRun("a")
	if len(a.Attempts) != 1 || len(a.Sales) != 1 || len(a.Sectors) != 1 || len(a.Faults) != 1 {
		t.Errorf("ForRun(a) = %+v", a)
	}
}

func TestLoadRejects(t *testing.T) {
	tests := []struct {
		name, manifest, want string
	}{
		{"wrong schema", `{"schema":"other/v9"}`, `schema "other/v9"`},
		{"not json", `{`, "manifest.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(tt.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

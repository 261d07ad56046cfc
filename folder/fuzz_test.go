package folder

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// maxFuzzFile bounds each file FuzzLoad writes: the properties do not
// depend on size, and small folders keep every execution fast.
const maxFuzzFile = 64 << 10

// fuzzFiles are the files of a folder FuzzLoad writes, in the order of
// its arguments; histograms.json is left out when its bytes are empty.
func fuzzFiles() []string {
	return []string{ManifestFile, HistoryFile, LedgerFile, SectorsFile, FaultsFile, histogramsFile}
}

// folderSeed adds the files of the results folder dir as a seed, an
// empty slice for a file it does not hold.
func folderSeed(f *testing.F, dir string) {
	f.Helper()
	var b [6][]byte
	for i, name := range fuzzFiles() {
		var err error
		if b[i], err = os.ReadFile(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			f.Fatal(err)
		}
	}
	f.Add(b[0], b[1], b[2], b[3], b[4], b[5])
}

// writeFolder writes the fuzzed files into a new folder.
func writeFolder(t *testing.T, files [][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for i, name := range fuzzFiles() {
		if name == histogramsFile && len(files[i]) == 0 {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), files[i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// FuzzLoad writes arbitrary bytes as the manifest, the record files and
// the histograms of a results folder and loads it. Load refuses with one
// line or gives every run only its own records and says in one line each
// what does not add up; a folder it loads saves and loads back intact,
// with the same records, and saving that again writes the same bytes.
func FuzzLoad(f *testing.F) {
	for _, dir := range []string{"none-only", "load-small"} {
		folderSeed(f, filepath.Join("..", "cmd", "hammer", "testdata", dir))
	}
	saved := f.TempDir()
	two := New(twoRuns(), nil)
	if err := two.Save(saved); err != nil {
		f.Fatal(err)
	}
	if err := two.SaveHistograms(saved); err != nil {
		f.Fatal(err)
	}
	folderSeed(f, saved)
	f.Fuzz(func(t *testing.T, manifest, hist, ledger, sectors, faults, hgrams []byte) {
		files := [][]byte{manifest, hist, ledger, sectors, faults, hgrams}
		for _, b := range files {
			if len(b) > maxFuzzFile {
				return
			}
		}
		got, err := Load(writeFolder(t, files))
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("the refusal is not one line: %q", err)
			}
			return
		}
		checkRuns(t, got)
		roundTrip(t, got)
	})
}

// checkRuns checks that every run of f holds only its own records and
// that each integrity problem is one line.
func checkRuns(t *testing.T, f *Folder) {
	t.Helper()
	runs := f.Runs()
	if len(runs) != len(f.Manifest.Runs) {
		t.Fatalf("%d runs, the manifest lists %d", len(runs), len(f.Manifest.Runs))
	}
	for _, r := range runs {
		for _, a := range r.Records.Attempts {
			if a.Run != r.Name {
				t.Fatalf("run %q holds an attempt of run %q", r.Name, a.Run)
			}
		}
		for _, s := range r.Records.Sales {
			if s.Run != r.Name {
				t.Fatalf("run %q holds a sale of run %q", r.Name, s.Run)
			}
		}
	}
	for _, p := range f.Integrity {
		if p.Detail == "" || strings.ContainsAny(p.Detail, "\r\n") {
			t.Fatalf("integrity problem %+v: want one line", p)
		}
	}
}

// roundTrip saves f, loads it back and saves that again: the folder
// loads intact with the same records and the second save writes the
// same bytes.
func roundTrip(t *testing.T, f *Folder) {
	t.Helper()
	dir := t.TempDir()
	if err := f.Save(dir); err != nil {
		t.Fatalf("a loaded folder does not save: %v", err)
	}
	// histograms.json as SaveHistograms writes it, without the .hgrm
	// files it renders for people: they take most of an execution.
	want, err := f.Latency.Encode()
	if err != nil {
		t.Fatalf("a loaded folder's histograms do not encode: %v", err)
	}
	if err := writeJSON(filepath.Join(dir, histogramsFile), want); err != nil {
		t.Fatal(err)
	}
	back, err := Load(dir)
	if err != nil {
		t.Fatalf("a saved folder does not load: %v", err)
	}
	if len(back.Integrity) > 0 {
		t.Fatalf("a folder just saved does not add up: %+v", back.Integrity)
	}
	if !reflect.DeepEqual(counts(back), counts(f)) || len(back.Manifest.Runs) != len(f.Manifest.Runs) {
		t.Fatalf("saved and loaded back: %v records, %d runs; want %v, %d",
			counts(back), len(back.Manifest.Runs), counts(f), len(f.Manifest.Runs))
	}
	if got, err := back.Latency.Encode(); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("histograms saved and loaded back differ (%v)", err)
	}
	again := t.TempDir()
	if err := back.Save(again); err != nil {
		t.Fatal(err)
	}
	for _, name := range append(recordFiles(), ManifestFile) {
		a, errA := os.ReadFile(filepath.Join(dir, name))
		b, errB := os.ReadFile(filepath.Join(again, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("%s differs when a loaded folder is saved again (%v, %v):\n%s\n%s", name, errA, errB, a, b)
		}
	}
}

// counts are the numbers of records of each kind a folder holds.
func counts(f *Folder) [4]int {
	return [4]int{len(f.Attempts), len(f.Sales), len(f.Sectors), len(f.Faults)}
}

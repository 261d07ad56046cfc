package verify

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/folder/foldertest"
)

// maxFuzzFile bounds each file FuzzRuns writes: the properties do not
// depend on size, and small folders keep every execution fast.
const maxFuzzFile = 64 << 10

// fuzzDeadline bounds one execution of FuzzRuns: a folder of at most
// five files of maxFuzzFile bytes is judged in milliseconds, and
// porcupine's check of each run is bounded by linearize.DefaultTimeout
// (10 s); the margin is for a machine busy with other work.
const fuzzDeadline = time.Minute

// FuzzRuns writes arbitrary bytes as the manifest and record files of a
// results folder (with seal, the manifest records the files' digests, so
// the folder is consistent), loads it and verifies its runs. No run is
// valid on evidence that does not add up, every verdict says why it is
// what it is, a violation never stands on a record file that changed
// after the run, and hammer's checks and porcupine never disagree on the
// seats sold (one of them would be wrong).
func FuzzRuns(f *testing.F) {
	for _, dir := range []string{"none-only", "load-small"} {
		b, err := foldertest.Read(filepath.Join("..", "cmd", "hammer", "testdata", dir))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[0], b[1], b[2], b[3], b[4], false)
		f.Add(b[0], b[1], b[2], b[3], b[4], true)
	}
	f.Fuzz(func(t *testing.T, manifest, hist, ledger, sectors, faults []byte, seal bool) {
		files := [][]byte{manifest, hist, ledger, sectors, faults}
		for _, b := range files {
			if len(b) > maxFuzzFile {
				return
			}
		}
		dir := t.TempDir()
		if err := foldertest.Write(dir, files, seal); err != nil {
			t.Fatal(err)
		}
		loaded, err := folder.Load(dir)
		if err != nil {
			return
		}
		runs := loaded.Runs()
		done := make(chan []RunVerdict, 1)
		go func() { done <- Runs(runs) }()
		select {
		case got := <-done:
			for i, v := range got {
				checkVerdict(t, runs[i], v)
			}
		case <-time.After(fuzzDeadline):
			t.Fatalf("verifying %d runs took longer than %v: a hang", len(runs), fuzzDeadline)
		}
	})
}

// checkVerdict checks what every verdict of a run must hold.
func checkVerdict(t *testing.T, run folder.Run, rv RunVerdict) {
	t.Helper()
	v := rv.Verdict
	if rv.Run.Name != run.Name {
		t.Fatalf("verdict of run %q given for run %q", rv.Run.Name, run.Name)
	}
	if v.Sold != len(run.Records.Sales) || v.Oversold != max(0, v.Sold-v.Seats) || v.Seats != run.Seats {
		t.Fatalf("run %q: sold %d, oversold %d of %d seats; the ledger holds %d sales of %d seats",
			run.Name, v.Sold, v.Oversold, v.Seats, len(run.Records.Sales), run.Seats)
	}
	switch v.Status {
	case Valid:
		if len(run.Integrity) > 0 || len(v.Violations) > 0 || len(v.Undetermined) > 0 {
			t.Fatalf("run %q is valid with integrity problems %+v, violations %+v, undetermined %q",
				run.Name, run.Integrity, v.Violations, v.Undetermined)
		}
	case Invalid:
		if len(v.Violations) == 0 {
			t.Fatalf("run %q is invalid without a violation", run.Name)
		}
	case Unknown:
		if len(v.Undetermined) == 0 {
			t.Fatalf("run %q is unknown without saying why", run.Name)
		}
	default:
		t.Fatalf("run %q: status %q", run.Name, v.Status)
	}
	for _, x := range v.Violations {
		for _, file := range restsOn(x.Check) {
			if slices.ContainsFunc(run.Integrity, func(p folder.Problem) bool { return p.Changed && p.Concerns(file) }) {
				t.Fatalf("run %q: violation %s stands on %s, which changed after the run", run.Name, x.Check, file)
			}
		}
	}
	if v.Checkers != nil && v.Checkers.Agreement == Disagree {
		t.Fatalf("run %q: %s", run.Name, v.Checkers.Why)
	}
	if s := v.Summary(); !strings.HasPrefix(s, string(v.Status)+":") {
		t.Fatalf("run %q: summary %q does not start with its status %s", run.Name, s, v.Status)
	}
}

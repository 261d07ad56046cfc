// Package folder owns the layout of a results folder, results/<run-id>/:
// the name of every file in it and of every chart, how the raw records and
// the manifest are saved and loaded back (checking the record files
// against the digests the manifest recorded), the latency histograms
// (rebuilt from the attempts, once, for a folder saved without them) and
// the view of each run, its records split from the folder's once.
//
// Data flows one way: a race (or Load) makes a Folder, package verify
// judges its runs, package report renders the verdicts into the files
// named here.
package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/bounded"
	"github.com/hammer-load/hammer/latency"
)

// Folder is a results folder in memory: the manifest and raw records of
// every run in it, their latency histograms and what Load found not adding
// up. Make one with New or Load, and change its records before, not after:
// the runs' views are split when it is made.
type Folder struct {
	history.Log
	// Latency holds the histograms the workers recorded or, for a folder
	// without them, the same histograms rebuilt from its attempts; never
	// nil.
	Latency *latency.Set
	// Integrity lists what Load found not adding up between the record
	// files and the digests manifest.json recorded for them, each problem
	// in one plain line: a file cut short or changed after the run, or a
	// manifest that recorded no digests. Empty for an intact folder and for
	// one made by New; never saved.
	Integrity []Problem
	runs      []Run
}

// Run is the view of one run of a results folder: how it was raced, its
// own records, and the folder's integrity problems (every record file
// holds every run's records, so a file's problem concerns each run).
type Run struct {
	history.Run
	Records   history.Records
	Integrity []Problem
}

// New makes a folder of what a race left behind. lat holds the histograms
// the workers recorded; nil rebuilds them from the attempts.
func New(f history.Log, lat *latency.Set) *Folder { return newFolder(f, lat, nil) }

func newFolder(f history.Log, lat *latency.Set, problems []Problem) *Folder {
	if lat == nil {
		lat = observe(f.Attempts, f.Locks)
	}
	return &Folder{Log: f, Latency: lat, Integrity: problems, runs: split(f, problems)}
}

// Runs returns the view of every run, in manifest order.
func (f *Folder) Runs() []Run { return append([]Run(nil), f.runs...) }

// Run returns the view of the named run; a run the manifest does not list
// has no records.
func (f *Folder) Run(name string) Run {
	for _, r := range f.runs {
		if r.Name == name {
			return r
		}
	}
	return Run{}
}

// split gives each run of the manifest its own records, in the order the
// folder holds them; records of runs the manifest does not list are left
// out.
func split(f history.Log, problems []Problem) []Run {
	recs := make(map[string]*history.Records, len(f.Manifest.Runs))
	for _, r := range f.Manifest.Runs {
		recs[r.Name] = &history.Records{}
	}
	deal(f.Attempts, recs, func(a history.Attempt) string { return a.Run }, func(r *history.Records) *[]history.Attempt { return &r.Attempts })
	deal(f.Sales, recs, func(s history.Sale) string { return s.Run }, func(r *history.Records) *[]history.Sale { return &r.Sales })
	deal(f.Sectors, recs, func(s history.Sector) string { return s.Run }, func(r *history.Records) *[]history.Sector { return &r.Sectors })
	deal(f.Faults, recs, func(e history.FaultEvent) string { return e.Run }, func(r *history.Records) *[]history.FaultEvent { return &r.Faults })
	deal(f.Locks, recs, func(c history.LockClaim) string { return c.Run }, func(r *history.Records) *[]history.LockClaim { return &r.Locks })
	out := make([]Run, len(f.Manifest.Runs))
	for i, r := range f.Manifest.Runs {
		out[i] = Run{Run: r, Records: *recs[r.Name], Integrity: problems}
	}
	return out
}

// deal appends each record of xs to the records of its run, into slices
// made to measure: a folder of 100,000 attempts would otherwise leave
// twice that in outgrown copies behind. The records of a run that has
// them all are xs itself.
func deal[T any](xs []T, recs map[string]*history.Records, run func(T) string, field func(*history.Records) *[]T) {
	counts := make(map[*history.Records]int, len(recs))
	for _, x := range xs {
		if r, ok := recs[run(x)]; ok {
			counts[r]++
		}
	}
	for r, n := range counts {
		if n == len(xs) {
			// One run has them all (a folder of one race): it shares
			// them, clipped so that an append to either copies.
			*field(r) = slices.Clip(xs)
			return
		}
		*field(r) = make([]T, 0, n)
	}
	for _, x := range xs {
		if r, ok := recs[run(x)]; ok {
			p := field(r)
			*p = append(*p, x)
		}
	}
}

// Save writes the folder's records into dir, which must exist: each
// record file, then manifest.json with the number of records and the
// SHA-256 of each (also kept in f.Manifest.Files), so a folder with a
// manifest was written whole.
func (f *Folder) Save(dir string) error {
	writes := []struct {
		name  string
		write func(path string) (history.FileDigest, error)
	}{
		{HistoryFile, func(p string) (history.FileDigest, error) { return writeRecords(p, f.Attempts) }},
		{LedgerFile, func(p string) (history.FileDigest, error) { return writeRecords(p, f.Sales) }},
		{SectorsFile, func(p string) (history.FileDigest, error) { return writeRecords(p, f.Sectors) }},
		{FaultsFile, func(p string) (history.FileDigest, error) { return writeRecords(p, f.Faults) }},
		{LocksFile, func(p string) (history.FileDigest, error) { return writeRecords(p, f.Locks) }},
	}
	files := make(map[string]history.FileDigest, len(writes))
	for _, w := range writes {
		d, err := w.write(filepath.Join(dir, w.name))
		if err != nil {
			return err
		}
		files[w.name] = d
	}
	f.Manifest.Files = files
	if err := saveReplicaLogs(dir, f.Manifest.Runs); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, ManifestFile), f.Manifest)
}

// saveReplicaLogs writes what the replicas of each run printed, each
// replica's log in its own file, and records the file in the run.
func saveReplicaLogs(dir string, runs []history.Run) error {
	for i := range runs {
		for j := range runs[i].ReplicaLogs {
			l := &runs[i].ReplicaLogs[j]
			l.File = ReplicaLogFile(runs[i].Name, l.Replica)
			p := filepath.Join(dir, filepath.FromSlash(l.File))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, l.Text, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// Load reads a results folder written by Save and SaveHistograms. Record
// files that do not match the digests in the manifest (or a record file
// cut in the middle of a record) are not an error: the folder is read as
// it is and the mismatch listed in Integrity, so that its verdict can say
// what is missing. A folder without histograms.json gets its histograms
// rebuilt from the attempts. A file larger than hammer reads of it (see
// maxSize), or one that is no regular file, fails Load with an error
// matching bounded.ErrTooLarge or bounded.ErrNotRegular; a manifest.json
// or histograms.json that does not parse, with one matching ErrDamaged.
func Load(dir string) (*Folder, error) {
	var f history.Log
	if err := readJSON(filepath.Join(dir, ManifestFile), &f.Manifest, maxManifestSize); err != nil {
		return nil, err
	}
	if f.Manifest.Schema != history.ManifestSchema {
		return nil, fmt.Errorf("%s: schema %q, want %q", ManifestFile, f.Manifest.Schema, history.ManifestSchema)
	}
	read := make(map[string]scanned, len(recordFiles()))
	files := f.Manifest.Files
	for _, load := range []func() error{
		func() error { return load(dir, HistoryFile, files, &f.Attempts, read) },
		func() error { return load(dir, LedgerFile, files, &f.Sales, read) },
		func() error { return load(dir, SectorsFile, files, &f.Sectors, read) },
		func() error { return load(dir, FaultsFile, files, &f.Faults, read) },
		func() error { return load(dir, LocksFile, files, &f.Locks, read) },
	} {
		if err := load(); err != nil {
			return nil, err
		}
	}
	if len(f.Locks) == 0 {
		f.Locks = nil // most folders have none, and older ones no file
	}
	lat, err := loadHistograms(dir)
	if err != nil {
		return nil, err
	}
	return newFolder(f, lat, integrity(f.Manifest.Files, read)), nil
}

// load reads the record file name of dir into *dst, with room for the
// records the manifest expects, and notes what it found in read. A record
// file that is missing or does not parse is not an error of Load: the
// folder does not add up, which its Integrity says. One past its size
// limit or no regular file is: it is returned, and nothing more read.
func load[T any](dir, name string, expected map[string]history.FileDigest, dst *[]T, read map[string]scanned) error {
	xs, s, err := readRecords[T](filepath.Join(dir, name), expected[name].Records, maxSize(name))
	switch {
	case errors.Is(err, bounded.ErrTooLarge), errors.Is(err, bounded.ErrNotRegular):
		return err
	case errors.Is(err, fs.ErrNotExist):
		s.broken = "is missing"
	case err != nil:
		s.broken = fmt.Sprintf("does not parse (%v): it changed after the run", err)
	}
	*dst, read[name] = xs, s
	return nil
}

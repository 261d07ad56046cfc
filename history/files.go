package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The files a results folder holds.
const (
	ManifestFile = "manifest.json"
	HistoryFile  = "history.jsonl"
	LedgerFile   = "ledger.jsonl"
	SectorsFile  = "sectors.jsonl"
	FaultsFile   = "faults.jsonl"
)

// Folder is everything the driver saved for a results folder: the manifest
// and the raw records of every run in it.
type Folder struct {
	Manifest Manifest
	Records
	// Integrity lists what Load found not adding up between the record
	// files and the digests manifest.json recorded for them, each problem
	// in one plain line: a file cut short or changed after the run, or a
	// manifest that recorded no digests. Empty for an intact folder and for
	// one built in memory; never saved.
	Integrity []Problem
}

// Records are the raw records of one or more runs.
type Records struct {
	Attempts []Attempt
	Sales    []Sale
	Sectors  []Sector
	Faults   []FaultEvent
}

// Add appends r's records.
func (r *Records) Add(o Records) {
	r.Attempts = append(r.Attempts, o.Attempts...)
	r.Sales = append(r.Sales, o.Sales...)
	r.Sectors = append(r.Sectors, o.Sectors...)
	r.Faults = append(r.Faults, o.Faults...)
}

// ForRun returns the records of the named run.
func (f *Folder) ForRun(name string) Records { return f.Records.ForRun(name) }

// ForRun returns the records of the named run.
func (r Records) ForRun(name string) Records {
	return Records{
		Attempts: filterRun(r.Attempts, name, func(a Attempt) string { return a.Run }),
		Sales:    filterRun(r.Sales, name, func(s Sale) string { return s.Run }),
		Sectors:  filterRun(r.Sectors, name, func(s Sector) string { return s.Run }),
		Faults:   filterRun(r.Faults, name, func(e FaultEvent) string { return e.Run }),
	}
}

func filterRun[T any](xs []T, name string, run func(T) string) []T {
	var out []T
	for _, x := range xs {
		if run(x) == name {
			out = append(out, x)
		}
	}
	return out
}

// Save writes the folder's files into dir, which must exist: each record
// file, then manifest.json with the number of records and the SHA-256 of
// each (also kept in f.Manifest.Files), so a folder with a manifest was
// written whole.
func (f *Folder) Save(dir string) error {
	writes := []struct {
		name  string
		write func(path string) (FileDigest, error)
	}{
		{HistoryFile, func(p string) (FileDigest, error) { return writeRecords(p, f.Attempts) }},
		{LedgerFile, func(p string) (FileDigest, error) { return writeRecords(p, f.Sales) }},
		{SectorsFile, func(p string) (FileDigest, error) { return writeRecords(p, f.Sectors) }},
		{FaultsFile, func(p string) (FileDigest, error) { return writeRecords(p, f.Faults) }},
	}
	files := make(map[string]FileDigest, len(writes))
	for _, w := range writes {
		d, err := w.write(filepath.Join(dir, w.name))
		if err != nil {
			return err
		}
		files[w.name] = d
	}
	f.Manifest.Files = files
	return WriteJSON(filepath.Join(dir, ManifestFile), f.Manifest)
}

// Load reads a results folder written by Save. Record files that do not
// match the digests in the manifest (or a record file cut in the middle of
// a record) are not an error: the folder is read as it is and the mismatch
// listed in Integrity, so that its verdict can say what is missing.
func Load(dir string) (*Folder, error) {
	var f Folder
	if err := ReadJSON(filepath.Join(dir, ManifestFile), &f.Manifest); err != nil {
		return nil, err
	}
	if f.Manifest.Schema != ManifestSchema {
		return nil, fmt.Errorf("%s: schema %q, want %q", ManifestFile, f.Manifest.Schema, ManifestSchema)
	}
	read := make(map[string]scanned, len(RecordFiles()))
	load(dir, HistoryFile, &f.Attempts, read)
	load(dir, LedgerFile, &f.Sales, read)
	load(dir, SectorsFile, &f.Sectors, read)
	load(dir, FaultsFile, &f.Faults, read)
	f.Integrity = integrity(f.Manifest.Files, read)
	return &f, nil
}

// load reads the record file name of dir into *dst and notes what it found
// in read. A record file that is missing or does not parse is not an error
// of Load: the folder does not add up, which its Integrity says.
func load[T any](dir, name string, dst *[]T, read map[string]scanned) {
	xs, s, err := readRecords[T](filepath.Join(dir, name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.broken = "is missing"
	case err != nil:
		s.broken = fmt.Sprintf("does not parse (%v): it changed after the run", err)
	}
	*dst, read[name] = xs, s
}

// WriteJSON writes v as indented JSON to path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadJSON decodes the JSON file at path into v.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteJSONL writes one JSON object per line to path.
func WriteJSONL[T any](path string, xs []T) error {
	_, err := writeRecords(path, xs)
	return err
}

// ReadJSONL reads a file written by WriteJSONL; a file that ends in the
// middle of a record is an error.
func ReadJSONL[T any](path string) ([]T, error) {
	xs, s, err := readRecords[T](path)
	if err != nil {
		return nil, err
	}
	if s.cut {
		return nil, fmt.Errorf("%s: record %d: %w", path, len(xs)+1, io.ErrUnexpectedEOF)
	}
	return xs, nil
}

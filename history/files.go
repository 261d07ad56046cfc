package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// Save writes the folder's files into dir, which must exist.
func (f *Folder) Save(dir string) error {
	if err := WriteJSON(filepath.Join(dir, ManifestFile), f.Manifest); err != nil {
		return err
	}
	if err := WriteJSONL(filepath.Join(dir, HistoryFile), f.Attempts); err != nil {
		return err
	}
	if err := WriteJSONL(filepath.Join(dir, LedgerFile), f.Sales); err != nil {
		return err
	}
	if err := WriteJSONL(filepath.Join(dir, SectorsFile), f.Sectors); err != nil {
		return err
	}
	return WriteJSONL(filepath.Join(dir, FaultsFile), f.Faults)
}

// Load reads a results folder written by Save.
func Load(dir string) (*Folder, error) {
	var f Folder
	if err := ReadJSON(filepath.Join(dir, ManifestFile), &f.Manifest); err != nil {
		return nil, err
	}
	if f.Manifest.Schema != ManifestSchema {
		return nil, fmt.Errorf("%s: schema %q, want %q", ManifestFile, f.Manifest.Schema, ManifestSchema)
	}
	var err error
	if f.Attempts, err = ReadJSONL[Attempt](filepath.Join(dir, HistoryFile)); err != nil {
		return nil, err
	}
	if f.Sales, err = ReadJSONL[Sale](filepath.Join(dir, LedgerFile)); err != nil {
		return nil, err
	}
	if f.Sectors, err = ReadJSONL[Sector](filepath.Join(dir, SectorsFile)); err != nil {
		return nil, err
	}
	if f.Faults, err = ReadJSONL[FaultEvent](filepath.Join(dir, FaultsFile)); err != nil {
		return nil, err
	}
	return &f, nil
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
func WriteJSONL[T any](path string, xs []T) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, x := range xs {
		if err := enc.Encode(x); err != nil {
			return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
		}
	}
	return w.Flush()
}

// ReadJSONL reads a file written by WriteJSONL.
func ReadJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	dec := json.NewDecoder(f)
	for {
		var x T
		err := dec.Decode(&x)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", path, len(out)+1, err)
		}
		out = append(out, x)
	}
}

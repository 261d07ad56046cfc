package history

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// FileDigest is what Save wrote into one record file: how many records and
// the SHA-256 of its bytes. The manifest keeps one per record file, so that
// a file cut short or changed after the run shows when the folder is loaded.
type FileDigest struct {
	Records int    `json:"records"`
	SHA256  string `json:"sha256"`
}

// Problem is one way a results folder's record files do not add up with
// what its manifest recorded about them.
type Problem struct {
	// File is the record file concerned; empty when the problem concerns
	// every record file (the manifest recorded no digests at all).
	File string
	// Changed is set when the file's bytes are known not to be the ones the
	// run wrote (cut short, rows added, removed or edited); unset when they
	// could not be checked.
	Changed bool
	// Detail is the problem in one plain line, naming the file and the
	// numbers, e.g. "history.jsonl holds 800 records but manifest.json
	// recorded 1000".
	Detail string
}

// Concerns reports whether the problem bears on the named record file.
func (p Problem) Concerns(file string) bool { return p.File == "" || p.File == file }

// RecordFiles lists the record files of a results folder in the order Save
// writes them; manifest.json records a FileDigest for each.
func RecordFiles() []string { return []string{HistoryFile, LedgerFile, SectorsFile, FaultsFile} }

// scanned is what reading one record file found besides its records.
type scanned struct {
	FileDigest
	// cut is set when the file ends in the middle of a record.
	cut bool
	// broken says why the file could not be read to its end (missing, a
	// record that does not parse); its records are the ones before.
	broken string
}

// writeRecords writes one JSON object per line to path and returns how
// many it wrote and the SHA-256 of the bytes, computed as they are written.
func writeRecords[T any](path string, xs []T) (d FileDigest, err error) {
	f, err := os.Create(path)
	if err != nil {
		return FileDigest{}, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	h := sha256.New()
	w := bufio.NewWriter(io.MultiWriter(f, h))
	enc := json.NewEncoder(w)
	for _, x := range xs {
		if err := enc.Encode(x); err != nil {
			return FileDigest{}, fmt.Errorf("encode %s: %w", filepath.Base(path), err)
		}
	}
	if err := w.Flush(); err != nil {
		return FileDigest{}, err
	}
	return FileDigest{Records: len(xs), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// readRecords reads a file written by writeRecords, hashing the bytes as
// they are decoded. A file that ends in the middle of a record is not an
// error: the whole records before it are returned and the cut is reported.
func readRecords[T any](path string) ([]T, scanned, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, scanned{}, err
	}
	defer f.Close()
	h := sha256.New()
	dec := json.NewDecoder(io.TeeReader(f, h))
	var out []T
	for {
		var x T
		err := dec.Decode(&x)
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			s := scanned{FileDigest: FileDigest{Records: len(out), SHA256: hex.EncodeToString(h.Sum(nil))}}
			s.cut = errors.Is(err, io.ErrUnexpectedEOF)
			return out, s, nil
		case err != nil:
			return out, scanned{}, fmt.Errorf("record %d: %w", len(out)+1, err)
		}
		out = append(out, x)
	}
}

// integrity compares what Load read from each record file with what the
// manifest recorded, one Problem per thing that does not add up. A record
// count that differs already says the file changed, so the SHA-256 is
// named only when the counts agree.
func integrity(recorded map[string]FileDigest, read map[string]scanned) []Problem {
	var out []Problem
	if len(recorded) == 0 {
		out = append(out, Problem{Detail: ManifestFile + " records no digests for the record files " +
			"(written before hammer recorded them), so the folder cannot be checked"})
	}
	for _, name := range RecordFiles() {
		got := read[name]
		if got.broken != "" {
			out = append(out, Problem{File: name, Changed: true, Detail: name + " " + got.broken})
			continue
		}
		if got.cut {
			out = append(out, Problem{File: name, Changed: true, Detail: fmt.Sprintf(
				"%s ends in the middle of record %d (cut short)", name, got.Records+1)})
		}
		if len(recorded) == 0 {
			continue
		}
		want, ok := recorded[name]
		switch {
		case !ok:
			out = append(out, Problem{File: name, Detail: fmt.Sprintf(
				"%s records no digest for %s, so it cannot be checked", ManifestFile, name)})
		case got.Records != want.Records:
			out = append(out, Problem{File: name, Changed: true, Detail: fmt.Sprintf(
				"%s holds %d records but %s recorded %d", name, got.Records, ManifestFile, want.Records)})
		case got.SHA256 != want.SHA256:
			out = append(out, Problem{File: name, Changed: true, Detail: fmt.Sprintf(
				"%s does not match the SHA-256 %s recorded for it (changed after the run)", name, ManifestFile)})
		}
	}
	return out
}

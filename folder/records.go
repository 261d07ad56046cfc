package folder

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

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/bounded"
)

// scanned is what reading one record file found besides its records.
type scanned struct {
	history.FileDigest
	// cut is set when the file ends in the middle of a record.
	cut bool
	// broken says why the file could not be read to its end (missing, a
	// record that does not parse); its records are the ones before.
	broken string
}

// writeRecords writes one JSON object per line to path and returns how
// many it wrote and the SHA-256 of the bytes, computed as they are written.
func writeRecords[T any](path string, xs []T) (d history.FileDigest, err error) {
	f, err := os.Create(path)
	if err != nil {
		return history.FileDigest{}, err
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
			return history.FileDigest{}, fmt.Errorf("encode %s: %w", filepath.Base(path), err)
		}
	}
	if err := w.Flush(); err != nil {
		return history.FileDigest{}, err
	}
	return history.FileDigest{Records: len(xs), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// readRecords reads a file written by writeRecords, hashing the bytes as
// they are decoded. A file that ends in the middle of a record is not an
// error: the whole records before it are returned and the cut is reported.
// expect is how many records the manifest says the file holds: room for
// them is made at once (for no more than the file's size could hold, in
// case the manifest was changed).
func readRecords[T any](path string, expect int, limit int64) ([]T, scanned, error) {
	f, err := bounded.Open(path, limit)
	if err != nil {
		return nil, scanned{}, err
	}
	defer f.Close()
	if st, err := os.Stat(path); err == nil {
		expect = int(min(int64(expect), st.Size()/minRecordSize))
	}
	h := sha256.New()
	dec := json.NewDecoder(io.TeeReader(f, h))
	out := make([]T, 0, max(expect, 0))
	for {
		var x T
		err := dec.Decode(&x)
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			s := scanned{FileDigest: history.FileDigest{Records: len(out), SHA256: hex.EncodeToString(h.Sum(nil))}}
			s.cut = errors.Is(err, io.ErrUnexpectedEOF)
			return out, s, nil
		case errors.Is(err, bounded.ErrTooLarge):
			return nil, scanned{}, err
		case err != nil:
			return out, scanned{}, fmt.Errorf("record %d: %w", len(out)+1, err)
		}
		out = append(out, x)
	}
}

// minRecordSize is fewer bytes than any record line takes.
const minRecordSize = 16

// writeJSON writes v as indented JSON to path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// readJSON decodes the JSON file at path, of at most limit bytes, into v.
func readJSON(path string, v any, limit int64) error {
	b, err := bounded.ReadFile(path, limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w (%v)", path, ErrDamaged, err)
	}
	return nil
}

// ErrDamaged matches the error of Load when manifest.json or
// histograms.json is there but does not parse (empty, cut short, edited):
// the folder does not add up, which is not the same as a folder that is
// not one.
var ErrDamaged = errors.New("does not parse: the file changed after the run")

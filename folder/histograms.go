package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/latency"
)

// SaveHistograms writes the folder's histograms into dir, which must
// exist: all of them, encoded, as histograms.json (which Load reads back),
// and each run's phase that holds data as hgrm/<run>.<phase>.hgrm, the
// percentile distribution HdrHistogram's plotters read.
func (f *Folder) SaveHistograms(dir string) error {
	es, err := f.Latency.Encode()
	if err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, histogramsFile), es); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, hgrmDir), 0o755); err != nil {
		return err
	}
	for _, run := range f.Manifest.Runs {
		for _, p := range latency.Phases() {
			h := f.Latency.Histogram(run.Name, p)
			if h.TotalCount() == 0 {
				continue
			}
			if err := saveHgrm(filepath.Join(dir, filepath.FromSlash(hgrmFile(run.Name, p))), h); err != nil {
				return err
			}
		}
	}
	return nil
}

// saveHgrm writes h as a .hgrm file at path.
func saveHgrm(path string, h *hdrhistogram.Histogram) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := latency.WriteHgrm(f, h); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return f.Close()
}

// loadHistograms reads histograms.json from dir; nil, and no error, when
// the folder has none.
func loadHistograms(dir string) (*latency.Set, error) {
	var es []latency.Encoded
	err := readJSON(filepath.Join(dir, histogramsFile), &es, maxHistogramsSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return latency.Decode(es)
}

// observe records the phases of every attempt into a new set: what the
// workers record, rebuilt from the history, with the lock waits of the
// claims on a service's lock (which the coordinator records).
func observe(attempts []history.Attempt, claims []history.LockClaim) *latency.Set {
	s := latency.NewSet()
	for _, a := range attempts {
		s.Observe(a)
	}
	s.ObserveClaims(claims)
	return s
}

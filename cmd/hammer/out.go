package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// resultsDir is the results folder of a command, made and test-written
// before anything is started, so that a folder hammer cannot write fails
// the command at once instead of losing the evidence after the race.
type resultsDir struct {
	path    string
	created []string // the directories makeResultsDir made, outermost first
}

// makeResultsDir creates dir and its missing parents, and checks that it is
// empty (hammer never writes into a folder holding files it did not
// create) and writable.
func makeResultsDir(dir string) (*resultsDir, error) {
	if err := checkOut(dir); err != nil {
		return nil, err
	}
	r := &resultsDir{path: dir}
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, os.ErrNotExist) || d == filepath.Dir(d) {
			break
		}
		missing = append([]string{d}, missing...)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	r.created = missing
	probe := filepath.Join(dir, ".hammer-write-test")
	err := os.WriteFile(probe, nil, 0o644)
	if err == nil {
		err = os.Remove(probe)
	}
	if err != nil {
		r.discard()
		return nil, fmt.Errorf("--out %s is not writable: %w", dir, err)
	}
	return r, nil
}

// discard removes the directories makeResultsDir made, innermost first,
// as long as they are still empty: a command that ended before it had
// anything to save leaves no folder behind, and one that saved keeps it.
func (r *resultsDir) discard() {
	for i := len(r.created) - 1; i >= 0; i-- {
		if os.Remove(r.created[i]) != nil {
			return
		}
	}
}

// checkOut refuses a results folder that already holds files: hammer never
// overwrites what it did not create.
func checkOut(dir string) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("--out %s already holds files; choose an empty or new folder", dir)
	}
	return nil
}

package folder

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hammer-load/hammer/internal/bounded"
)

// TestLoadBounded: a file of a results folder past its size limit, or one
// that is no regular file, fails Load at once, naming the file, instead
// of being read without end (a FIFO would block Load for good).
func TestLoadBounded(t *testing.T) {
	tests := []struct {
		name string
		file string
		make func(path string) error // replaces the file
		want error
	}{
		{name: "history past its limit", file: HistoryFile, make: sparse(maxHistorySize + 1), want: bounded.ErrTooLarge},
		{name: "ledger past its limit", file: LedgerFile, make: sparse(maxLedgerSize + 1), want: bounded.ErrTooLarge},
		{name: "sectors past its limit", file: SectorsFile, make: sparse(maxSectorsSize + 1), want: bounded.ErrTooLarge},
		{name: "faults past its limit", file: FaultsFile, make: sparse(maxFaultsSize + 1), want: bounded.ErrTooLarge},
		{name: "manifest past its limit", file: ManifestFile, make: sparse(maxManifestSize + 1), want: bounded.ErrTooLarge},
		{name: "histograms past their limit", file: histogramsFile, make: sparse(maxHistogramsSize + 1), want: bounded.ErrTooLarge},
		{name: "history a fifo", file: HistoryFile, make: func(p string) error { return syscall.Mkfifo(p, 0o600) }, want: bounded.ErrNotRegular},
		{name: "ledger a link to /dev/zero", file: LedgerFile, make: func(p string) error { return os.Symlink("/dev/zero", p) }, want: bounded.ErrNotRegular},
		{name: "manifest a directory", file: ManifestFile, make: func(p string) error { return os.Mkdir(p, 0o755) }, want: bounded.ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := savedFolder(t)
			path := filepath.Join(dir, tt.file)
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if err := tt.make(path); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.file) {
				t.Errorf("Load: %v, want %v naming %s", err, tt.want, tt.file)
			}
		})
	}
}

// sparse makes a file of size bytes that takes no room on disk.
func sparse(size int64) func(path string) error {
	return func(path string) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Truncate(size)
	}
}

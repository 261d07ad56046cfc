package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/internal/target"
	"github.com/hammer-load/hammer/scenarios"
)

// TestBoundedInputFiles: a target file or matrix that is a device, a FIFO,
// a directory or larger than hammer reads of it is refused at once with
// one line and exit 2, before anything starts. Before the limit,
// `--target /dev/zero` grew without end and ignored the first Ctrl-C.
func TestBoundedInputFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	hugeTarget := sparseFile(t, filepath.Join(dir, "huge.yaml"), target.MaxFileSize+1)
	hugeMatrix := sparseFile(t, filepath.Join(dir, "huge.matrix"), scenarios.MaxMatrixSize+1)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "target /dev/zero", args: []string{"run", "--target", "/dev/zero", "--variant", "x"}, want: "target file: /dev/zero: is a character device, not a regular file (see hammer run -h)"},
		{name: "target fifo", args: []string{"run", "--target", fifo, "--variant", "x"}, want: "is a named pipe, not a regular file"},
		{name: "target directory", args: []string{"load", "--target", dir}, want: "is a directory, not a file"},
		{name: "target past its limit", args: []string{"gate", "--target", hugeTarget}, want: "huge.yaml: larger than 1 MiB, the most hammer reads of such a file"},
		{name: "matrix /dev/zero", args: []string{"gate", "--matrix", "/dev/zero"}, want: "hammer gate: /dev/zero: is a character device"},
		{name: "matrix fifo", args: []string{"gate", "--matrix", fifo}, want: "is a named pipe"},
		{name: "matrix past its limit", args: []string{"gate", "--matrix", hugeMatrix}, want: "huge.matrix: larger than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failsBeforeAnything(t, stacktest.Get(t), tt.args, exitUsage, tt.want)
		})
	}
}

// TestBoundedResultsFolder: verify and report refuse a results folder
// with a record file that is a FIFO (which blocked them for good), past
// its limit, or a manifest that does not parse: one line, exit 3, as for
// any folder whose outcome cannot be told.
func TestBoundedResultsFolder(t *testing.T) {
	tests := []struct {
		name, cmd, file string
		make            func(path string) error
		want            string
	}{
		{name: "verify fifo history", cmd: "verify", file: "history.jsonl", make: func(p string) error { return syscall.Mkfifo(p, 0o600) },
			want: "history.jsonl: is a named pipe, not a regular file"},
		{name: "report ledger of /dev/zero", cmd: "report", file: "ledger.jsonl", make: func(p string) error { return os.Symlink("/dev/zero", p) },
			want: "ledger.jsonl: is a character device, not a regular file"},
		{name: "verify huge history", cmd: "verify", file: "history.jsonl", make: func(p string) error { sparseFile(t, p, 5<<30); return nil },
			want: "history.jsonl: larger than 4 GiB, the most hammer reads of such a file"},
		{name: "verify huge manifest", cmd: "verify", file: "manifest.json", make: func(p string) error { sparseFile(t, p, 64<<20); return nil },
			want: "manifest.json: larger than 16 MiB, the most hammer reads of such a file"},
		{name: "verify empty manifest", cmd: "verify", file: "manifest.json", make: func(p string) error { return os.WriteFile(p, nil, 0o600) },
			want: "manifest.json: does not parse: the file changed after the run (unexpected end of JSON input)"},
		{name: "report manifest cut short", cmd: "report", file: "manifest.json", make: func(p string) error { return os.WriteFile(p, []byte(`{"schema": "hammer`), 0o600) },
			want: "manifest.json: does not parse: the file changed after the run (unexpected end of JSON input)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "folder")
			if err := os.CopyFS(dir, os.DirFS("testdata/none-only")); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tt.file)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := tt.make(path); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := hammer(t, tt.cmd, dir)
			want := "hammer " + tt.cmd + ": " + filepath.Join(dir, tt.want) + "\n"
			if code != exitInfra || stderr != want || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 3 and only %q", code, stdout, stderr, want)
			}
		})
	}
}

// sparseFile makes a file of size bytes at path that takes no room on
// disk, and returns path.
func sparseFile(t *testing.T, path string, size int64) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return path
}

package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		path  string
		limit int64
		want  error
		text  string
	}{
		{name: "within the limit", path: small, limit: 5},
		{name: "past the limit", path: small, limit: 4, want: ErrTooLarge, text: "larger than 4 bytes"},
		{name: "endless device", path: "/dev/zero", limit: 1 << 20, want: ErrNotRegular, text: "character device"},
		{name: "fifo without a writer", path: fifo, limit: 1 << 20, want: ErrNotRegular, text: "named pipe"},
		{name: "directory", path: dir, limit: 1 << 20, want: ErrNotRegular, text: "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ReadFile(tt.path, tt.limit)
			if !errors.Is(err, tt.want) || (err != nil && !strings.Contains(err.Error(), tt.text)) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.want, tt.text)
			}
			if err == nil && string(b) != "12345" {
				t.Errorf("read %q, want 12345", b)
			}
		})
	}
}

// TestGrowing: a file that grows past its limit after it was opened is
// still cut at the limit.
func TestGrowing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grows")
	if err := os.WriteFile(path, []byte("1234"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.WriteFile(path, []byte("123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	var got []byte
	for {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			break
		}
	}
	if len(got) > 4 {
		t.Errorf("read %d bytes past a limit of 4", len(got))
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 3 << 30: "3 GiB", 1536: "1536 bytes", 4096: "4 KiB", 7: "7 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

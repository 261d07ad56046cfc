// Package bounded opens and reads the files hammer is handed with a size
// limit: a file past its limit, or anything that is not a regular file
// (a device such as /dev/zero, a FIFO, a directory), is refused at once
// instead of being read without end.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge matches the error of a file larger than its limit.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular matches the error of a path that names no regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading when it names a regular file of at most
// limit bytes. It never waits for a writer: a FIFO is refused, not
// opened for good. The returned reader stops with an error matching
// ErrTooLarge once more than limit bytes were read, in case the file grows
// after the check.
func Open(path string, limit int64) (io.ReadCloser, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := check(path, st, limit); err != nil {
		f.Close()
		return nil, err
	}
	return &reader{f: f, path: path, limit: limit, left: limit}, nil
}

// ReadFile reads the whole regular file at path, refusing it when it holds
// more than limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	r, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// check refuses what is no regular file, or one over limit bytes.
func check(path string, st fs.FileInfo, limit int64) error {
	switch {
	case st.IsDir():
		return &refused{msg: path + ": is a directory, not a file", kind: ErrNotRegular}
	case !st.Mode().IsRegular():
		return &refused{msg: path + ": is a " + kind(st.Mode()) + ", not a regular file", kind: ErrNotRegular}
	case st.Size() > limit:
		return tooLarge(path, limit)
	}
	return nil
}

// kind names the type of a file that is not a regular one.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// tooLarge is the error of a file past its limit.
func tooLarge(path string, limit int64) error {
	return &refused{msg: fmt.Sprintf("%s: larger than %s, the most hammer reads of such a file", path, Size(limit)), kind: ErrTooLarge}
}

// refused is why a file was refused; it matches ErrTooLarge or
// ErrNotRegular.
type refused struct {
	msg  string
	kind error
}

func (e *refused) Error() string        { return e.msg }
func (e *refused) Is(target error) bool { return target == e.kind }

// reader reads a file and fails once more than left bytes came.
type reader struct {
	f     *os.File
	path  string
	limit int64
	left  int64 // bytes that may still be read
}

// Read reads from the file; past the limit it fails with ErrTooLarge.
func (r *reader) Read(p []byte) (int, error) {
	if int64(len(p)) > r.left+1 {
		p = p[:r.left+1]
	}
	n, err := r.f.Read(p)
	if int64(n) > r.left {
		return 0, tooLarge(r.path, r.limit)
	}
	r.left -= int64(n)
	return n, err
}

// Close closes the file.
func (r *reader) Close() error { return r.f.Close() }

// Size writes a limit in the largest binary unit that divides it: "1 MiB".
func Size(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

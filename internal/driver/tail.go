package driver

import (
	"io"
	"slices"
	"strings"
	"sync"
)

// tail keeps the last bytes a worker wrote to stderr, for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write keeps the last bytes of p.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = slices.Clone(t.buf[len(t.buf)-t.max:])
	}
	return len(p), nil
}

// last returns the last non-empty line written.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return lines[len(lines)-1]
}

func (t *tail) suffix() string {
	if l := t.last(); l != "" {
		return " (" + l + ")"
	}
	return ""
}

var _ io.Writer = (*tail)(nil)

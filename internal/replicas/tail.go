package replicas

import (
	"slices"
	"strings"
	"sync"
)

// tail keeps the last bytes a replica printed, for error messages.
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

// suffix is the last non-empty line printed, as " (line)", or "".
func (t *tail) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return ": " + l
	}
	return ""
}

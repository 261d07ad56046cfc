// Package tail keeps the last bytes a child process printed, so that an
// error about the process can quote what it said last.
package tail

import (
	"io"
	"slices"
	"strings"
	"sync"
)

// Buffer is an io.Writer that keeps the last Max bytes written to it.
type Buffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

var _ io.Writer = (*Buffer)(nil)

// New returns a Buffer that keeps the last max bytes.
func New(max int) *Buffer { return &Buffer{max: max} }

// Write keeps the last bytes of p.
func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = slices.Clone(t.buf[len(t.buf)-t.max:])
	}
	return len(p), nil
}

// Last returns the last non-empty line written, "" when there is none. A
// line of the Go runtime's scheduler trace, which a hammer worker can
// print at its start (see internal/sysmon), is not what a process said:
// it is passed over.
func (t *Buffer) Last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !schedTrace(l) {
			return l
		}
	}
	return ""
}

// schedTrace tells a line of the Go runtime's scheduler trace
// (GODEBUG=schedtrace): "SCHED 12ms: gomaxprocs=1 idleprocs=0 …".
func schedTrace(line string) bool {
	rest, ok := strings.CutPrefix(line, "SCHED ")
	return ok && strings.Contains(rest, "ms: gomaxprocs=")
}

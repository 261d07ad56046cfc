// Package proclog keeps what a process hammer started printed, within a
// size: the first bytes and the last, with a line between them saying how
// many were cut, so that a service that logs without end cannot fill the
// disk or hammer's memory; and it picks from the end the lines that say
// why the process failed, passing over the noise a runtime prints last.
package proclog

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// Log is an io.Writer that keeps the first Head and the last Tail bytes
// written to it.
type Log struct {
	mu         sync.Mutex
	head, tail int
	first      []byte // the first bytes, up to head
	last       []byte // the bytes after them, the last tail of them once trimmed
	written    int64  // every byte written
}

var _ io.Writer = (*Log)(nil)

// New returns a Log that keeps the first head and the last tail bytes.
func New(head, tail int) *Log { return &Log{head: head, tail: tail} }

// Write keeps p, as far as the limits allow.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written += int64(len(p))
	rest := p
	if n := min(l.head-len(l.first), len(rest)); n > 0 {
		l.first = append(l.first, rest[:n]...)
		rest = rest[n:]
	}
	l.last = append(l.last, rest...)
	// Trimmed only once twice the tail is held: a write costs amortized
	// O(len(p)).
	if len(l.last) > 2*l.tail {
		l.last = append([]byte(nil), l.last[len(l.last)-l.tail:]...)
	}
	return len(p), nil
}

// Note writes one line of hammer's own into the log (a replica started
// again, say), set apart from what the process printed by its prefix: the
// line is never taken for the process's last words.
func (l *Log) Note(format string, args ...any) {
	l.mu.Lock()
	sep := ""
	if b := l.lastBytes(); len(b) > 0 && b[len(b)-1] != '\n' {
		sep = "\n" // the process's line is not done: the note goes on its own
	}
	l.mu.Unlock()
	_, _ = fmt.Fprintf(l, sep+notePrefix+format+"\n", args...)
}

// lastBytes is what was written last: the tail, or the head while the
// tail is empty; l.mu is held.
func (l *Log) lastBytes() []byte {
	if len(l.last) > 0 {
		return l.last
	}
	return l.first
}

// notePrefix starts every line Note writes.
const notePrefix = "[hammer] "

// Written is how many bytes were written in all.
func (l *Log) Written() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written
}

// Bytes is the log as kept: everything written when it fit, otherwise the
// first bytes, a line saying how many were cut, and the last bytes from
// the start of a line; cut is how many bytes were left out.
func (l *Log) Bytes() (out []byte, cut int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	last := l.last
	if len(last) > l.tail {
		last = last[len(last)-l.tail:]
	}
	cut = l.written - int64(len(l.first)) - int64(len(last))
	if cut == 0 {
		return append(append([]byte(nil), l.first...), last...), 0
	}
	// The tail from the first whole line on.
	if i := bytes.IndexByte(last, '\n'); i >= 0 {
		cut += int64(i + 1)
		last = last[i+1:]
	}
	out = append([]byte(nil), l.first...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = fmt.Appendf(out, "%s%d bytes cut here: the log keeps the first %d and the last %d bytes\n", notePrefix, cut, l.head, l.tail)
	return append(out, last...), cut
}

// text is the end of the log as one string: all of it when nothing was
// cut, the kept tail otherwise.
func (l *Log) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written == int64(len(l.first)+len(l.last)) {
		return string(l.first) + string(l.last)
	}
	return string(l.last)
}

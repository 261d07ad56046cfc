package stack

import (
	"fmt"
	"strings"
)

// classified is an error that reads as its message alone but also matches a
// sentinel (ErrBadConfig or ErrUnavailable) under errors.Is, so the line a
// human sees says what went wrong rather than starting with the category.
type classified struct {
	sentinel error
	err      error
}

// Error returns the message on one line.
func (e *classified) Error() string { return oneLine(e.err.Error()) }

// Unwrap exposes both the sentinel and the cause to errors.Is and errors.As.
func (e *classified) Unwrap() []error { return []error{e.sentinel, e.err} }

// badConfigf returns an error matching ErrBadConfig; %w in format wraps.
func badConfigf(format string, args ...any) error {
	return &classified{sentinel: ErrBadConfig, err: fmt.Errorf(format, args...)}
}

// unavailablef returns an error matching ErrUnavailable; %w in format wraps.
func unavailablef(format string, args ...any) error {
	return &classified{sentinel: ErrUnavailable, err: fmt.Errorf(format, args...)}
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " | ")
}

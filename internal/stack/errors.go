package stack

import (
	"fmt"
	"net/url"
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

// scrub removes the password of rawURL from msg, best effort, so parse and
// connect errors that quote the URL never print it.
func scrub(msg, rawURL string) string {
	return maskPassword(msg, urlPassword(rawURL))
}

// maskPassword replaces pw, plain or escaped, in msg.
func maskPassword(msg, pw string) string {
	if pw == "" {
		return msg
	}
	for _, form := range []string{pw, url.QueryEscape(pw), url.PathEscape(pw)} {
		msg = strings.ReplaceAll(msg, form, "xxxxx")
	}
	return msg
}

// urlPassword returns the text between the first ':' after the scheme and
// the last '@' of rawURL, without needing rawURL to parse. On odd input it
// may return more than the password, which only masks more.
func urlPassword(rawURL string) string {
	_, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return ""
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(rest[:at], ":")
	return pw
}

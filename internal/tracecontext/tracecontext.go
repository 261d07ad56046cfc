// Package tracecontext makes the W3C Trace Context header, traceparent,
// that hammer sends with every attempt's request to a user's service, so
// that the service's own spans of a request land in a trace whose id
// hammer records with the attempt: version 00, a 16-byte trace id, the
// 8-byte id of hammer's span of the attempt as the parent, and the
// sampled flag.
package tracecontext

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// Header is the name of the header that carries a trace context.
const Header = "traceparent"

// IDs are the ids of one attempt's request in a trace.
type IDs struct {
	// Trace is the trace id, shared by every span of the trace.
	Trace [16]byte
	// Span is the id of hammer's span of the attempt: the parent of the
	// service's spans.
	Span [8]byte
}

// Source hands out the ids of a worker process's requests. Its key is
// random, drawn once: the trace id of a request is a keyed hash of its
// request id, so that the copies of one request (the duplicate fault
// sends two with the same id) share one trace, while the trace ids of
// distinct requests, of other processes and of other runs are as random
// as the key.
type Source struct {
	key [32]byte
}

// NewSource makes a Source with a random key.
func NewSource() *Source {
	s := &Source{}
	_, _ = rand.Read(s.key[:]) // crypto/rand.Read never fails
	return s
}

// New returns the ids of one request whose request id is requestID: the
// trace id of the request, and a random span id of its own.
func (s *Source) New(requestID string) IDs {
	h := sha256.New()
	h.Write(s.key[:])
	h.Write([]byte(requestID))
	var ids IDs
	copy(ids.Trace[:], h.Sum(nil))
	_, _ = rand.Read(ids.Span[:])
	// All zeros is no id (W3C): such a draw is replaced by a valid one.
	if ids.Trace == [16]byte{} {
		ids.Trace[15] = 1
	}
	if ids.Span == [8]byte{} {
		ids.Span[7] = 1
	}
	return ids
}

// TraceID is the trace id as 32 lower-case hex digits, as tracing tools
// show and search it.
func (ids IDs) TraceID() string { return hex.EncodeToString(ids.Trace[:]) }

// SpanID is the span id as 16 lower-case hex digits.
func (ids IDs) SpanID() string { return hex.EncodeToString(ids.Span[:]) }

// Value is the traceparent header's value: version 00, the trace id, the
// span id as the parent, and flags 01 (sampled), so that a service that
// samples by its parent's decision keeps the trace.
func (ids IDs) Value() string { return "00-" + ids.TraceID() + "-" + ids.SpanID() + "-01" }

// ParseTraceID reads a trace id written by TraceID: 32 lower-case hex
// digits, not all zeros.
func ParseTraceID(s string) ([16]byte, bool) {
	var id [16]byte
	return id, parseHex(id[:], s)
}

// ParseSpanID reads a span id written by SpanID: 16 lower-case hex
// digits, not all zeros.
func ParseSpanID(s string) ([8]byte, bool) {
	var id [8]byte
	return id, parseHex(id[:], s)
}

// parseHex decodes s into dst, which it must fill exactly, in lower-case
// hex (as W3C requires), with at least one byte not zero.
func parseHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	if _, err := hex.Decode(dst, []byte(s)); err != nil {
		return false
	}
	for _, b := range dst {
		if b != 0 {
			return true
		}
	}
	return false
}

// Parse reads a traceparent value of version 00 as Value writes it (any
// flags), and returns its ids.
func Parse(v string) (IDs, bool) {
	var ids IDs
	if len(v) != 55 || v[:3] != "00-" || v[35] != '-' || v[52] != '-' {
		return ids, false
	}
	var ok1, ok2 bool
	ids.Trace, ok1 = ParseTraceID(v[3:35])
	ids.Span, ok2 = ParseSpanID(v[36:52])
	var flags [1]byte
	return ids, ok1 && ok2 && parseHexAny(flags[:], v[53:])
}

// parseHexAny is parseHex that lets every byte be zero.
func parseHexAny(dst []byte, s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil && len(s) == 2*len(dst)
}

package tracecontext

import (
	"strings"
	"testing"
)

// TestValue: the header hammer sends is a W3C traceparent of version 00,
// sampled, that reads back to the ids it was made of.
func TestValue(t *testing.T) {
	s := NewSource()
	ids := s.New("p0-g1-a0")
	v := ids.Value()
	if !strings.HasPrefix(v, "00-") || !strings.HasSuffix(v, "-01") || len(v) != 55 {
		t.Fatalf("traceparent %q is not version 00, 55 characters, sampled", v)
	}
	got, ok := Parse(v)
	if !ok || got != ids {
		t.Fatalf("Parse(%q) = %v, %v; want %v", v, got, ok, ids)
	}
	if tr, ok := ParseTraceID(ids.TraceID()); !ok || tr != ids.Trace {
		t.Errorf("ParseTraceID(%q) = %x, %v", ids.TraceID(), tr, ok)
	}
	if sp, ok := ParseSpanID(ids.SpanID()); !ok || sp != ids.Span {
		t.Errorf("ParseSpanID(%q) = %x, %v", ids.SpanID(), sp, ok)
	}
}

// TestSource: copies of one request share its trace and have spans of
// their own; other requests, and the same request id in another process,
// get other traces.
func TestSource(t *testing.T) {
	a, b := NewSource(), NewSource()
	one, copy := a.New("p0-g1-a0"), a.New("p0-g1-a0")
	if one.Trace != copy.Trace {
		t.Errorf("the copies of one request have traces %s and %s, want one", one.TraceID(), copy.TraceID())
	}
	if one.Span == copy.Span {
		t.Errorf("the copies of one request share span %s", one.SpanID())
	}
	seen := map[[16]byte]string{}
	for _, c := range []struct {
		src *Source
		id  string
	}{{a, "p0-g1-a0"}, {a, "p0-g1-a1"}, {a, "p1-g1-a0"}, {b, "p0-g1-a0"}} {
		tr := c.src.New(c.id).Trace
		if prev, ok := seen[tr]; ok {
			t.Errorf("trace %x given to both %s and %s", tr, prev, c.id)
		}
		seen[tr] = c.id
	}
}

// TestParseRefuses: what is not a trace context of version 00 in lower
// case, or holds an all-zero id, does not parse.
func TestParseRefuses(t *testing.T) {
	for _, v := range []string{
		"",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz",
		"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	} {
		if ids, ok := Parse(v); ok {
			t.Errorf("Parse(%q) = %v, want refused", v, ids)
		}
	}
	if _, ok := Parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"); !ok {
		t.Error("the W3C specification's example does not parse")
	}
}

// BenchmarkNew is what a request's trace context costs its attempt: the
// ids and the header's value.
func BenchmarkNew(b *testing.B) {
	s := NewSource()
	for b.Loop() {
		ids := s.New("5e0c1f9a-p0-g12-a0")
		_ = ids.Value()
	}
}

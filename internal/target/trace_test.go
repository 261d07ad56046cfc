package target

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/tracecontext"
)

// TestAttemptSendsTraceparent: every attempt's request carries a W3C
// traceparent (replacing the file's own) whose ids the attempt records;
// the two copies of a duplicated request share their trace, and other
// requests get traces of their own.
func TestAttemptSendsTraceparent(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]string{} // request id → the traceparent headers it came with
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var res reservation
		if err := json.NewDecoder(r.Body).Decode(&res); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got[res.RequestID] = append(got[res.RequestID], r.Header.Values(tracecontext.Header)...)
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"seat": 1}`))
	}))
	defer srv.Close()
	req := exampleRequest(srv.URL)
	req.Headers["TraceParent"] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	c := connect(t, req, 2)
	var attempts []history.Attempt
	for _, a := range []history.Attempt{
		{Proc: 1, Goroutine: 0, RequestID: "p1-g0-a0"},
		{Proc: 1, Goroutine: 0, RequestID: "p1-g0-a0", Try: 1}, // the duplicate's copy
		{Proc: 1, Goroutine: 1, RequestID: "p1-g1-a0"},
	} {
		c.Attempt(context.Background(), &a, nil)
		if a.Outcome != history.Sold {
			t.Fatalf("%s: %s %s", a.RequestID, a.Outcome, a.Err)
		}
		attempts = append(attempts, a)
	}
	for i, a := range attempts {
		headers := got[req.IDPrefix+a.RequestID]
		if len(headers) != 1+map[string]int{"p1-g0-a0": 1}[a.RequestID] {
			t.Fatalf("request %s came with traceparent headers %q", a.RequestID, headers)
		}
		ids, ok := tracecontext.Parse(headers[min(a.Try, len(headers)-1)])
		if !ok {
			t.Fatalf("request %s: traceparent %q does not parse", a.RequestID, headers)
		}
		if ids.TraceID() != a.Trace {
			t.Errorf("attempt %d recorded trace %q, the request sent %s", i, a.Trace, ids.TraceID())
		}
		if ids.TraceID() == "4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Errorf("attempt %d sent the file's traceparent, not its own", i)
		}
	}
	if attempts[0].Trace != attempts[1].Trace || attempts[0].Span == attempts[1].Span {
		t.Errorf("the copies of one request have trace %s/%s and span %s/%s: want one trace, two spans",
			attempts[0].Trace, attempts[1].Trace, attempts[0].Span, attempts[1].Span)
	}
	if attempts[2].Trace == attempts[0].Trace {
		t.Errorf("two requests share trace %s", attempts[0].Trace)
	}
	for _, a := range attempts {
		sent := false
		for _, h := range got[req.IDPrefix+a.RequestID] {
			ids, _ := tracecontext.Parse(h)
			sent = sent || ids.SpanID() == a.Span
		}
		if !sent {
			t.Errorf("attempt %s try %d recorded span %s, which no request of it sent", a.RequestID, a.Try, a.Span)
		}
	}
}

package spans

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/spans/spanstest"
	"github.com/hammer-load/hammer/internal/tracecontext"
)

// folderOf is a folder of one run of the naive variant under duplicate
// with n attempts at a service, each with ids of its own, and one
// attempt of hammer's own strategies, which carries no trace.
func folderOf(n int) *history.Log {
	src := tracecontext.NewSource()
	log := &history.Log{Manifest: history.Manifest{Schema: history.ManifestSchema, RunID: "20261205-072000-abcdef",
		Env:  history.Env{Target: "examples/ticketd/target.yaml"},
		Runs: []history.Run{{Name: "naive/duplicate", Mode: "naive", Fault: "duplicate"}}}}
	for i := range n {
		ids := src.New(fmt.Sprintf("p0-g%d-a0", i))
		a := history.Attempt{Run: "naive/duplicate", Mode: "naive", RequestID: fmt.Sprintf("p0-g%d-a0", i),
			Invoke: int64(1_000_000_000 + i), Complete: int64(1_000_500_000 + i), Replica: "r1 127.0.0.1:4000",
			Trace: ids.TraceID(), Span: ids.SpanID(), Outcome: history.Sold, Seat: i + 1, Status: 201}
		if i == 1 {
			a.Outcome, a.Seat, a.Status, a.Err, a.Try = history.Unknown, 0, 0, "connection reset", 1
		}
		log.Attempts = append(log.Attempts, a)
	}
	log.Attempts = append(log.Attempts, history.Attempt{Run: "naive/duplicate", RequestID: "p1-g0-a0", Invoke: 5, Complete: 6})
	return log
}

// TestExport: every attempt that carries a trace reaches the collector
// as one span with the trace id and span id its request sent (so that
// the service's spans, children of that span id, join it), its times and
// its attributes; the spans come in batches.
func TestExport(t *testing.T) {
	c := spanstest.Start(t)
	endpoint, err := ParseEndpoint(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	log := folderOf(batch + 3)
	n, err := Export(context.Background(), endpoint, log)
	if err != nil || n != batch+3 {
		t.Fatalf("Export = %d, %v; want %d spans", n, err, batch+3)
	}
	got := c.Spans()
	if len(got) != batch+3 || c.Requests() != 2 {
		t.Fatalf("the collector got %d spans in %d requests, want %d in 2", len(got), c.Requests(), batch+3)
	}
	for i, s := range got {
		a := log.Attempts[i]
		if s.Trace != a.Trace || s.ID != a.Span || s.Parent != "" || s.Name != Name {
			t.Fatalf("span %d: trace %s id %s parent %q name %q; want the attempt's trace %s and span %s, a root named %s",
				i, s.Trace, s.ID, s.Parent, s.Name, a.Trace, a.Span, Name)
		}
		if s.Start != uint64(a.Invoke) || s.End != uint64(a.Complete) {
			t.Errorf("span %d runs %d to %d, the attempt %d to %d", i, s.Start, s.End, a.Invoke, a.Complete)
		}
		if s.Attrs["hammer.request_id"] != a.RequestID || s.Attrs["hammer.variant"] != "naive" ||
			s.Attrs["hammer.outcome"] != string(a.Outcome) || s.Attrs["hammer.fault"] != "duplicate" ||
			s.Attrs["hammer.replica"] != a.Replica {
			t.Errorf("span %d has attributes %v", i, s.Attrs)
		}
		if s.Resource["service.name"] != "hammer" || s.Resource["hammer.run_id"] != log.Manifest.RunID {
			t.Errorf("span %d comes from resource %v", i, s.Resource)
		}
	}
	if s := got[0]; s.Attrs["hammer.seat"] != "1" || s.Attrs["http.response.status_code"] != "201" || s.Failed {
		t.Errorf("the sale's span: attributes %v, failed %v", s.Attrs, s.Failed)
	}
	if s := got[1]; !s.Failed || s.Message != "connection reset" || s.Attrs["hammer.try"] != "1" || s.Attrs["hammer.seat"] != "" {
		t.Errorf("the unknown attempt's span: failed %v %q, attributes %v; want status Error with its error", s.Failed, s.Message, s.Attrs)
	}
}

// TestExportUnreachable: a collector that is not there is an error after
// the spans before it, never a hang.
func TestExportUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	n, err := Export(context.Background(), "http://"+addr+DefaultPath, folderOf(3))
	if err == nil || n != 0 {
		t.Fatalf("Export to a closed port = %d, %v; want 0 and an error", n, err)
	}
	if strings.ContainsAny(err.Error(), "\r\n") {
		t.Errorf("error %q is not one line", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces"},
		{"http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/traces"},
		{"https://tempo.example.com/otlp/v1/traces", "https://tempo.example.com/otlp/v1/traces"},
		{"http://[::1]:4318", "http://[::1]:4318/v1/traces"},
	} {
		if got, err := ParseEndpoint(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseEndpoint(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "127.0.0.1:4318", "grpc://127.0.0.1:4317", "http://", "http://:4318",
		"http://u:pw@host:4318", "http://u:pw@host:x", "u:pw@host:4318", "http://host:4318?x=1", "http://host:4318#f", "http://host:0", "http://host:99999",
		"http://host:x", "http://host:", "ftp://host", "http://ho st:4318"} {
		if got, err := ParseEndpoint(in); err == nil {
			t.Errorf("ParseEndpoint(%q) = %q, want an error", in, got)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("ParseEndpoint(%q): error %q quotes the password", in, err)
		}
	}
}

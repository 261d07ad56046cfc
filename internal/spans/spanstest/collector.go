// Package spanstest gives tests an OpenTelemetry collector in the test
// process: an OTLP/HTTP traces endpoint that decodes what it is sent
// (protobuf, gzip or not) and keeps every span.
package spanstest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracev1 "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is what the collector kept of one span.
type Span struct {
	Trace, ID, Parent string // hex ids; Parent is empty for a root span
	Name              string
	Start, End        uint64 // Unix ns
	// Attrs are the span's attributes, each as text (an int as its
	// digits).
	Attrs map[string]string
	// Resource are the attributes of the resource that made it.
	Resource map[string]string
	// Failed is set when the span's status is Error, Message is the
	// status's message.
	Failed  bool
	Message string
}

// Collector is an OTLP/HTTP traces endpoint served in the test process.
type Collector struct {
	// URL is its base URL; spans are posted to URL + "/v1/traces".
	URL string
	mu  sync.Mutex
	got []Span
	// requests counts the export requests it answered.
	requests int
}

// Start serves a Collector until the test ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	c := &Collector{}
	srv := httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

// Spans returns the spans received so far, in the order they came.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.got...)
}

// Requests is how many export requests it took.
func (c *Collector) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// serve takes one export request.
func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, fmt.Sprintf("want a POST of protobuf to /v1/traces, got %s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type")), http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(io.LimitReader(body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var spans []Span
	for _, rs := range req.GetResourceSpans() {
		res := map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			res[kv.GetKey()] = text(kv.GetValue().GetStringValue(), kv.GetValue().GetIntValue())
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{Trace: hex.EncodeToString(s.GetTraceId()), ID: hex.EncodeToString(s.GetSpanId()),
					Parent: hex.EncodeToString(s.GetParentSpanId()), Name: s.GetName(),
					Start: s.GetStartTimeUnixNano(), End: s.GetEndTimeUnixNano(), Attrs: map[string]string{}, Resource: res}
				for _, kv := range s.GetAttributes() {
					sp.Attrs[kv.GetKey()] = text(kv.GetValue().GetStringValue(), kv.GetValue().GetIntValue())
				}
				sp.Failed = s.GetStatus().GetCode() == tracev1.Status_STATUS_CODE_ERROR
				sp.Message = s.GetStatus().GetMessage()
				spans = append(spans, sp)
			}
		}
	}
	c.mu.Lock()
	c.got = append(c.got, spans...)
	c.requests++
	c.mu.Unlock()
	out, err := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// text is an attribute's value as text: the string, or else the integer.
func text(s string, i int64) string {
	if s != "" {
		return s
	}
	return fmt.Sprint(i)
}

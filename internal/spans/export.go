package spans

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/tracecontext"
)

// Timeout bounds each request to the collector; a collector that does
// not answer in time costs at most this once, as the export stops at its
// first failure.
const Timeout = 10 * time.Second

// batch is how many spans one request to the collector carries, the
// batch size of OpenTelemetry's own batch span processor.
const batch = 512

// Name is the name of every span: one attempt of hammer's at buying a seat.
const Name = "hammer.attempt"

// Export posts one span for every attempt of log that carries a trace
// (its request went to a user's service) to the OTLP/HTTP endpoint, a
// URL from ParseEndpoint, batch by batch. It returns how many spans the
// collector took: all of them, or those before the request that failed,
// with its error. Nothing is retried.
func Export(ctx context.Context, endpoint string, log *history.Log) (int, error) {
	exp, err := otlptracehttp.New(ctx,
		otlptracehttp.WithEndpointURL(endpoint),
		otlptracehttp.WithTimeout(Timeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
	)
	if err != nil {
		return 0, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = exp.Shutdown(sctx) // it holds no span: every batch was sent or failed
	}()
	m := newMaker(log.Manifest)
	sent := 0
	for rest := log.Attempts; len(rest) > 0; {
		n := min(batch, len(rest))
		spans := m.spans(rest[:n])
		rest = rest[n:]
		if len(spans) == 0 {
			continue
		}
		if err := exp.ExportSpans(ctx, spans); err != nil {
			return sent, err
		}
		sent += len(spans)
	}
	return sent, nil
}

// maker makes the spans of a folder's attempts.
type maker struct {
	runs   map[string]history.Run
	rec    *recorder
	tracer trace.Tracer
}

// newMaker makes the spans of the runs m lists, as made by hammer.
func newMaker(m history.Manifest) *maker {
	mk := &maker{runs: map[string]history.Run{}, rec: &recorder{}}
	for _, r := range m.Runs {
		mk.runs[r.Name] = r
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(mk.rec),
		sdktrace.WithIDGenerator(given{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(resourceOf(m)),
	)
	mk.tracer = tp.Tracer("github.com/hammer-load/hammer")
	return mk
}

// spans makes the span of every attempt that carries a valid trace and
// span id, in the order of the records: a client span from sending the
// request to reading the answer, with the ids its traceparent carried
// and the attempt's run, variant, fault, request id, replica, HTTP
// status, outcome and seat as attributes. An attempt whose outcome is
// unknown has the status Error, with its error text.
func (m *maker) spans(attempts []history.Attempt) []sdktrace.ReadOnlySpan {
	for _, a := range attempts {
		tr, ok1 := tracecontext.ParseTraceID(a.Trace)
		sp, ok2 := tracecontext.ParseSpanID(a.Span)
		if !ok1 || !ok2 || a.Invoke == 0 {
			continue
		}
		ctx := context.WithValue(context.Background(), idsKey{}, tracecontext.IDs{Trace: tr, Span: sp})
		_, span := m.tracer.Start(ctx, Name, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithTimestamp(time.Unix(0, a.Invoke)), trace.WithAttributes(attributes(a, m.runs[a.Run])...))
		if a.Outcome.Indeterminate() {
			span.SetStatus(codes.Error, a.Err)
		}
		span.End(trace.WithTimestamp(time.Unix(0, max(a.Complete, a.Invoke))))
	}
	return m.rec.take()
}

// attributes describe attempt a of run r.
func attributes(a history.Attempt, r history.Run) []attribute.KeyValue {
	out := []attribute.KeyValue{
		attribute.String("hammer.run", a.Run),
		attribute.String("hammer.variant", string(a.Mode)),
		attribute.String("hammer.request_id", a.RequestID),
		attribute.String("hammer.outcome", string(a.Outcome)),
		attribute.Int("hammer.process", a.Proc),
	}
	if r.Fault != "" {
		out = append(out, attribute.String("hammer.fault", string(r.Fault)))
	}
	if a.Try > 0 {
		out = append(out, attribute.Int("hammer.try", a.Try))
	}
	if a.Replica != "" {
		out = append(out, attribute.String("hammer.replica", a.Replica))
	}
	if a.Status != 0 {
		out = append(out, attribute.Int("http.response.status_code", a.Status))
	}
	if a.Outcome == history.Sold {
		out = append(out, attribute.Int("hammer.seat", a.Seat))
	}
	return out
}

// resourceOf names who made the spans: hammer, with the run id of the
// results folder and the target file.
func resourceOf(m history.Manifest) *resource.Resource {
	attrs := []attribute.KeyValue{attribute.String("service.name", "hammer"), attribute.String("hammer.run_id", m.RunID)}
	if m.Env.Target != "" {
		attrs = append(attrs, attribute.String("hammer.target", m.Env.Target))
	}
	if m.Env.Hammer != "" {
		attrs = append(attrs, attribute.String("service.version", m.Env.Hammer))
	}
	return resource.NewSchemaless(attrs...)
}

// idsKey is the context key under which Spans hands a span's ids to given.
type idsKey struct{}

// given is an IDGenerator that hands out the ids the context carries: a
// span's ids are the ones its request already sent, not new ones.
type given struct{}

var _ sdktrace.IDGenerator = given{}

// NewIDs returns the ids the context carries.
func (given) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	ids, _ := ctx.Value(idsKey{}).(tracecontext.IDs)
	return ids.Trace, ids.Span
}

// NewSpanID returns the span id the context carries.
func (given) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	ids, _ := ctx.Value(idsKey{}).(tracecontext.IDs)
	return ids.Span
}

// recorder is a span processor that keeps every ended span.
type recorder struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

var _ sdktrace.SpanProcessor = (*recorder)(nil)

// OnStart does nothing.
func (*recorder) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd keeps the span.
func (r *recorder) OnEnd(s sdktrace.ReadOnlySpan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spans = append(r.spans, s)
}

// take returns the spans kept so far and forgets them.
func (r *recorder) take() []sdktrace.ReadOnlySpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.spans
	r.spans = nil
	return out
}

// Shutdown does nothing: the spans are kept for Export.
func (*recorder) Shutdown(context.Context) error { return nil }

// ForceFlush does nothing.
func (*recorder) ForceFlush(context.Context) error { return nil }

package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/tracecontext"
	"github.com/hammer-load/hammer/internal/worker"
)

// maxBody is how much of a response body is read; a longer body is cut
// there, and its JSON no longer parses.
const maxBody = 1 << 20

// snippetLen is how much of a body an attempt's error quotes.
const snippetLen = 200

// contender makes attempts as HTTP requests to the replicas of a user's
// service; it is shared by the goroutines of one worker process.
type contender struct {
	req        Request
	replicas   []replica
	goroutines int
	client     *http.Client
	// traces hands out the trace context each request carries.
	traces *tracecontext.Source
}

var _ worker.Contender = (*contender)(nil)

// Connect is a worker.Connect: it decodes the Request the coordinator
// sent in s.Config and returns a contender that sends it, through one
// HTTP client whose keep-alive connections the process's goroutines
// share. close releases the connections.
func Connect(_ context.Context, s worker.Session) (worker.Contender, func(), error) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(s.Config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, nil, fmt.Errorf("target request: %w", err)
	}
	if err := req.check(); err != nil {
		return nil, nil, fmt.Errorf("target request: %w", err)
	}
	req = req.reachedFrom(s.Coordinator)
	reps, err := replicasOf(req)
	if err != nil {
		return nil, nil, fmt.Errorf("target request: %w", err)
	}
	t := newTransport(max(s.Goroutines, 1), len(reps))
	c := &contender{
		req: req, replicas: reps, goroutines: max(s.Goroutines, 1), traces: tracecontext.NewSource(),
		client: &http.Client{
			Transport: t,
			// A redirect is an answer for the rules, not a request to send.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	return c, t.CloseIdleConnections, nil
}

// newTransport makes a transport that keeps a connection open for every
// request goroutines can have in flight at one replica (two per goroutine
// under the duplicate fault), so that no request waits for another's
// connection. It goes to the replicas directly, never through a proxy.
func newTransport(goroutines, replicas int) *http.Transport {
	perHost := 2*goroutines + 2
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        perHost * replicas,
		MaxIdleConnsPerHost: perHost,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

// Warm opens a connection to every replica with a GET of the ready path
// (of "/" when there is none), so that the race's requests find them
// open. Any answer will do; it fails only when a replica is unreachable.
func (c *contender) Warm(ctx context.Context) error {
	path := c.req.Ready
	if path == "" {
		path = "/"
	}
	for _, r := range c.replicas {
		tctx, cancel := context.WithTimeout(ctx, c.req.Timeout)
		_, _, err := c.do(tctx, http.MethodGet, r.base+path, nil, nil)
		cancel()
		if err != nil {
			return fmt.Errorf("replica %s unreachable: %s", r.name, c.describe(ctx, err))
		}
	}
	return nil
}

// Attempt sends the attempt's request to its replica and records the
// outcome the rules give the response. A request that fails, times out
// or gets a response no rule matches may or may not have sold: its
// outcome is unknown. It never retries. The request carries a
// traceparent header (replacing one the target file sets), whose trace
// and span ids the attempt records.
func (c *contender) Attempt(ctx context.Context, a *history.Attempt, _ *rand.Rand) {
	r := c.replicas[c.pick(a)]
	a.Replica = r.name
	vals := map[string]string{
		VarRequestID: c.req.IDPrefix + a.RequestID,
		VarContender: fmt.Sprintf("p%d-g%d", a.Proc, a.Goroutine),
	}
	headers := make(map[string]string, len(c.req.Headers))
	for k, v := range c.req.Headers {
		headers[k] = Expand(v, vals)
	}
	ids := c.traces.New(vals[VarRequestID])
	a.Trace, a.Span = ids.TraceID(), ids.SpanID()
	setHeader(headers, tracecontext.Header, ids.Value())
	tctx, cancel := context.WithTimeout(ctx, c.req.Timeout)
	defer cancel()
	a.Invoke = time.Now().UnixNano()
	status, body, err := c.do(tctx, c.req.Method, r.base+Expand(c.req.Path, vals), headers, strings.NewReader(Expand(c.req.Body, vals)))
	a.Complete = time.Now().UnixNano()
	c.judge(ctx, a, status, body, err)
}

// setHeader sets header name in headers, replacing a value the target
// file gave it under any spelling.
func setHeader(headers map[string]string, name, value string) {
	for k := range headers {
		if strings.EqualFold(k, name) {
			delete(headers, k)
		}
	}
	headers[name] = value
}

// pick chooses the replica of an attempt, round-robin over the
// contenders: each goroutine keeps to one replica, the goroutines of all
// processes spread evenly over them, and the second copy of a duplicated
// request goes to the next replica.
func (c *contender) pick(a *history.Attempt) int {
	slot := a.Proc*c.goroutines + a.Goroutine + a.Try
	return (slot%len(c.replicas) + len(c.replicas)) % len(c.replicas)
}

// do sends one request and reads the response; status is zero when none
// came.
func (c *contender) do(ctx context.Context, method, target string, headers map[string]string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return 0, nil, err
	}
	// Without GetBody the transport never sends the request again.
	req.GetBody = nil
	for k, v := range headers {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	return resp.StatusCode, b, err
}

// judge records the outcome of an attempt from its response, or from the
// error that left it without one.
func (c *contender) judge(ctx context.Context, a *history.Attempt, status int, body []byte, err error) {
	switch {
	case err != nil && status == 0:
		a.Outcome, a.Err = history.Unknown, c.describe(ctx, err)
	case err != nil:
		a.Outcome, a.Err = history.Unknown, fmt.Sprintf("status %d, body cut short: %s", status, c.describe(ctx, err))
	default:
		a.Status = status
		outcome, seat, ok := c.req.Rules.Match(status, body)
		if !ok {
			why := c.req.Rules.Miss(status, body)
			if why != "" {
				why = " (" + why + ")"
			}
			a.Outcome, a.Err = history.Unknown, fmt.Sprintf("status %d matched no response rule%s: %s", status, why, snippet(body))
			return
		}
		a.Outcome, a.Seat = outcome, seat
	}
}

// describe says in one short line what err did to a request: a timeout,
// a refused, reset or closed connection, or the error itself.
func (c *contender) describe(ctx context.Context, err error) string {
	var uerr *url.Error
	switch {
	case ctx.Err() != nil:
		return "cancelled: " + context.Cause(ctx).Error()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("timeout after %v", c.req.Timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed by the server"
	case errors.As(err, &uerr):
		return uerr.Err.Error()
	}
	return err.Error()
}

// snippet quotes a body in one line of at most snippetLen bytes.
func snippet(body []byte) string {
	if len(body) == 0 {
		return "(empty body)"
	}
	s := strings.Join(strings.FieldsFunc(strings.ToValidUTF8(string(body), "\uFFFD"), unicode.IsSpace), " ")
	if len(s) <= snippetLen {
		return s
	}
	cut := snippetLen
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// utf8Start reports whether b starts a UTF-8 character.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

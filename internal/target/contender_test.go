package target

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/worker"
)

// exampleRequest is the Request of the example service against replicas.
func exampleRequest(replicas ...string) Request {
	return Request{
		Replicas: replicas,
		Method:   http.MethodPost,
		Path:     "/sectors/1/reservations",
		Headers:  map[string]string{"Content-Type": "application/json", "X-Contender": "{{contender}}"},
		Body:     `{"request_id": "{{request_id}}", "contender": "{{contender}}"}`,
		Timeout:  2 * time.Second,
		Ready:    "/healthz",
		Rules:    exampleRules(),
		IDPrefix: "0badcafe-",
	}
}

// connect connects a contender for req, as a worker process of
// goroutines goroutines would.
func connect(t *testing.T, req Request, goroutines int) worker.Contender {
	t.Helper()
	cfg, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	c, closeAll, err := Connect(context.Background(), worker.Session{Proc: 1, Goroutines: goroutines, Config: cfg})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(closeAll)
	return c
}

// reservation is the body the example service reads.
type reservation struct {
	RequestID string `json:"request_id"`
	Contender string `json:"contender"`
}

// answer is a handler that checks the request is the example's, filled in
// for the attempt, then writes status and body.
func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var res reservation
		if err := json.NewDecoder(r.Body).Decode(&res); err != nil || r.Method != http.MethodPost ||
			r.URL.Path != "/sectors/1/reservations" || res.RequestID != "0badcafe-p1-g2-a0" || res.Contender != "p1-g2" ||
			r.Header.Get("X-Contender") != "p1-g2" {
			http.Error(w, fmt.Sprintf("unexpected request %s %s %+v", r.Method, r.URL.Path, res), http.StatusBadRequest)
			return
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestAttempt(t *testing.T) {
	long := `{"error": "` + strings.Repeat("x", 500) + `"}`
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    history.Outcome
		seat    int
		err     string // the attempt's error starts with it
	}{
		{name: "sold", handler: answer(201, `{"seat": 7}`), want: history.Sold, seat: 7},
		{name: "sold out", handler: answer(409, `{"error": "sold_out"}`), want: history.SoldOut},
		{name: "duplicate", handler: answer(409, `{"error": "duplicate"}`), want: history.Rejected},
		{name: "server error", handler: answer(500, `{"error":"boom"}`), want: history.Unknown, err: `status 500 matched no response rule: {"error":"boom"}`},
		{name: "lock timeout", handler: answer(503, `{"error": "lock_timeout"}`), want: history.LockTimeout},
		{name: "other 503", handler: answer(503, "{\"error\":\n \"overloaded\"}\n"), want: history.Unknown, err: `status 503 matched no response rule: {"error": "overloaded"}`},
		{name: "empty body", handler: answer(500, ""), want: history.Unknown, err: "status 500 matched no response rule: (empty body)"},
		{name: "long body is cut", handler: answer(500, long), want: history.Unknown, err: `status 500 matched no response rule: {"error": "xxx`},
		{name: "sold with a seat that is no number", handler: answer(201, `{"seat": "A7"}`), want: history.Unknown,
			err: `status 201 matched no response rule (the sold rule's seat /seat is "A7", not a positive integer): {"seat": "A7"}`},
		{name: "sold without a seat", handler: answer(201, `{"place": 7}`), want: history.Unknown,
			err: `status 201 matched no response rule (the sold rule's seat /seat is not in the body): {"place": 7}`},
		{name: "redirect is not followed", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusSeeOther)
		}, want: history.Unknown, err: "status 303 matched no response rule"},
		{name: "timeout", handler: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // then the server sees the client hang up
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, want: history.Unknown, err: "timeout after 200ms"},
		{name: "closed connection", handler: func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, want: history.Unknown, err: "connection closed by the server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			req := exampleRequest(srv.URL)
			req.Timeout = 200 * time.Millisecond
			a := history.Attempt{Proc: 1, Goroutine: 2, RequestID: "p1-g2-a0"}
			connect(t, req, 4).Attempt(context.Background(), &a, nil)
			if a.Outcome != tt.want || a.Seat != tt.seat || !strings.HasPrefix(a.Err, tt.err) {
				t.Errorf("attempt = %s seat %d error %q; want %s seat %d error %q", a.Outcome, a.Seat, a.Err, tt.want, tt.seat, tt.err)
			}
			if tt.err == "" && a.Err != "" {
				t.Errorf("error %q, want none", a.Err)
			}
			if len(a.Err) > 260 || strings.Contains(a.Err, "\n") {
				t.Errorf("error %q is not one short line", a.Err)
			}
			if want := "r0 " + srv.Listener.Addr().String(); a.Replica != want {
				t.Errorf("replica %q, want %q", a.Replica, want)
			}
			if a.Invoke == 0 || a.Complete < a.Invoke {
				t.Errorf("invoke %d, complete %d", a.Invoke, a.Complete)
			}
		})
	}
}

func TestAttemptRefused(t *testing.T) {
	srv := httptest.NewServer(answer(201, `{"seat": 1}`))
	c := connect(t, exampleRequest(srv.URL), 1)
	srv.Close()
	a := history.Attempt{Proc: 1, Goroutine: 2, RequestID: "p1-g2-a0"}
	c.Attempt(context.Background(), &a, nil)
	if a.Outcome != history.Unknown || a.Err != "connection refused" {
		t.Errorf("attempt = %s %q; want unknown, connection refused", a.Outcome, a.Err)
	}
}

// TestSpread makes the attempts of two worker processes at once against
// three replicas: every replica gets its share, each record names the
// replica that answered it, and the copies of a duplicated request go to
// different replicas.
func TestSpread(t *testing.T) {
	const procs, goroutines = 2, 6
	var hits [3]atomic.Int64
	var urls []string
	for i := range hits {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits[i].Add(1)
			fmt.Fprintf(w, `{"seat": %d}`, i+1)
		}))
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	req := exampleRequest(urls...)
	req.Rules = Rules{{Status: 200, Outcome: history.Sold, Seat: "/seat"}}
	var wg sync.WaitGroup
	attempts := make([]history.Attempt, procs*goroutines*2)
	for p := range procs {
		cfg, _ := json.Marshal(req)
		c, closeAll, err := Connect(context.Background(), worker.Session{Proc: p, Goroutines: goroutines, Config: cfg})
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		defer closeAll()
		for g := range goroutines {
			for try := range 2 {
				a := &attempts[(p*goroutines+g)*2+try]
				*a = history.Attempt{Proc: p, Goroutine: g, Try: try, RequestID: fmt.Sprintf("p%d-g%d-a0", p, g)}
				wg.Go(func() { c.Attempt(context.Background(), a, nil) })
			}
		}
	}
	wg.Wait()
	for i := range hits {
		if got, want := hits[i].Load(), int64(len(attempts)/len(hits)); got != want {
			t.Errorf("replica %d got %d requests, want %d", i, got, want)
		}
	}
	for i := 0; i < len(attempts); i += 2 {
		first, second := attempts[i], attempts[i+1]
		for _, a := range []history.Attempt{first, second} {
			if want := fmt.Sprintf("r%d %s", a.Seat-1, strings.TrimPrefix(urls[a.Seat-1], "http://")); a.Outcome != history.Sold || a.Replica != want {
				t.Errorf("attempt %s#%d: %s on %q, want sold on %q", a.RequestID, a.Try, a.Outcome, a.Replica, want)
			}
		}
		if first.Replica == second.Replica {
			t.Errorf("both copies of %s went to %s", first.RequestID, first.Replica)
		}
	}
}

func TestWarm(t *testing.T) {
	var ready atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			ready.Add(1)
		}
		w.WriteHeader(http.StatusServiceUnavailable) // any answer will do
	}))
	defer up.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	tests := []struct {
		name     string
		replicas []string
		err      string
	}{
		{name: "all up", replicas: []string{up.URL, up.URL}},
		{name: "one down", replicas: []string{up.URL, down.URL}, err: "replica r1 " + strings.TrimPrefix(down.URL, "http://") + " unreachable: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ready.Store(0)
			err := connect(t, exampleRequest(tt.replicas...), 2).Warm(context.Background())
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || err.Error() != tt.err) {
				t.Fatalf("Warm: %v, want %q", err, tt.err)
			}
			if ready.Load() == 0 {
				t.Errorf("the ready path was never asked")
			}
		})
	}
}

func TestConnectRefuses(t *testing.T) {
	good := exampleRequest("http://127.0.0.1:1")
	tests := []struct {
		name   string
		config string
		err    string
	}{
		{name: "not json", config: `{`, err: "target request"},
		{name: "unknown field", config: `{"replicas": ["http://a:1"], "retries": 3}`, err: `unknown field "retries"`},
		{name: "no replicas", config: mustJSON(t, func(r *Request) { r.Replicas = nil }, good), err: "no replica"},
		{name: "bad replica", config: mustJSON(t, func(r *Request) { r.Replicas = []string{"127.0.0.1:80"} }, good), err: "replica 0"},
		{name: "no timeout", config: mustJSON(t, func(r *Request) { r.Timeout = 0 }, good), err: "timeout"},
		{name: "sold without seat", config: mustJSON(t, func(r *Request) { r.Rules = Rules{{Status: 201, Outcome: history.Sold}} }, good), err: "response rule 0: seat"},
		{name: "no rules", config: mustJSON(t, func(r *Request) { r.Rules = nil }, good), err: "no response rule"},
		{name: "relays for other replicas", config: mustJSON(t, func(r *Request) { r.Relays = []int{4001, 4002} }, good), err: "2 relays for 1 replicas"},
		{name: "relay port out of range", config: mustJSON(t, func(r *Request) { r.Relays = []int{70000} }, good), err: "relay port 70000 is not a port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Connect(context.Background(), worker.Session{Goroutines: 1, Config: json.RawMessage(tt.config)})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Connect: %v, want an error with %q", err, tt.err)
			}
		})
	}
}

// mustJSON encodes r changed by change.
func mustJSON(t *testing.T, change func(*Request), r Request) string {
	t.Helper()
	change(&r)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReplicaNames(t *testing.T) {
	got, err := replicasOf(Request{Replicas: []string{"http://user:pw@127.0.0.1:8080", "https://shop.example", "http://[::1]:9000"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"r0 127.0.0.1:8080", "r1 shop.example:443", "r2 [::1]:9000"}
	for i, r := range got {
		if r.name != want[i] {
			t.Errorf("replica %d named %q, want %q (no userinfo, always a port)", i, r.name, want[i])
		}
	}
}

func TestResolve(t *testing.T) {
	f, err := Load(write(t, base))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	vals := map[string]string{VarSector: "1", VarSeats: "50", VarRequestID: "never"}
	r := f.Resolve([]string{"http://127.0.0.1:8080/"}, vals)
	switch {
	case r.Path != "/sectors/1/reservations",
		r.Body != `{"request_id": "{{request_id}}", "contender": "{{contender}}"}`,
		r.Replicas[0] != "http://127.0.0.1:8080", r.Ready != "/healthz", r.Timeout != 10*time.Second, len(r.Rules) != 3:
		t.Errorf("Resolve = %+v", r)
	}
	if err := r.check(); err != nil {
		t.Errorf("check: %v", err)
	}
}

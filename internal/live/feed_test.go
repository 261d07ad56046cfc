package live

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/scenarios"
)

// newTestFeed is a feed with a hub and metrics of its own, ticking fast.
func newTestFeed(t *testing.T) (*Feed, *Hub, *Metrics) {
	t.Helper()
	var hub *Hub
	m := NewMetrics(func() int { return hub.Clients() })
	hub = NewHub(1024, m.Dropped)
	return NewFeed(FeedOptions{Hub: hub, Metrics: m, Tick: 5 * time.Millisecond,
		Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2", "xxxxx") }}), hub, m
}

// holder is a lock holder of run r that waited from invoke, had the lock
// at acq and sent its release at rel (ms).
func holder(r string, invoke, acq, rel int64, o history.Outcome) history.Attempt {
	ms := int64(time.Millisecond)
	base := int64(1e18)
	return history.Attempt{Run: r, Invoke: base + invoke*ms, LockAcquired: base + acq*ms, DBStart: base + acq*ms,
		DBEnd: base + rel*ms, LockReleasing: base + rel*ms, LockReleased: base + rel*ms + ms/10, Complete: base + rel*ms + ms/10, Outcome: o}
}

// TestFeedMetrics: a race's records and fault events become the metrics
// Prometheus scrapes, named by its conventions, and the verdict a
// labelled gauge.
func TestFeedMetrics(t *testing.T) {
	f, _, m := newTestFeed(t)
	o := driver.Options{Scenario: scenarios.Scenario{Name: "lock-only", Mode: scenarios.LockOnly, Fault: scenarios.Pause},
		Procs: 1, Goroutines: 4, Attempts: 1, Seats: 2}
	h := f.Track(o)
	h.Go(int64(1e18))
	// Three holders in a row, each waiting for the one before: two handoffs;
	// they arrive out of order, as two workers' batches would.
	h.Attempt(holder("lock-only", 0, 2, 3, history.Sold))
	h.Attempt(holder("lock-only", 0, 5, 6, history.SoldOut))
	h.Attempt(holder("lock-only", 0, 3, 4, history.Sold))
	h.Attempt(history.Attempt{Run: "lock-only", Invoke: 1e18, Complete: 1e18 + 9e6, Outcome: history.LockTimeout})
	h.Fault(history.FaultEvent{Fault: scenarios.Pause, Start: 1e18 + 3e6, End: 1e18 + 5e6, Detail: "SIGSTOP of worker 0, password hunter2"})
	h.Done()
	f.Verdict(VerdictEvent{Runs: []RunVerdict{{Run: "lock-only", Verdict: "invalid"}}, ExitCode: 1})

	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"sold attempts", testutil.ToFloat64(m.attempts.WithLabelValues("lock-only", "sold")), 2},
		{"sold_out attempts", testutil.ToFloat64(m.attempts.WithLabelValues("lock-only", "sold_out")), 1},
		{"lock_timeout attempts", testutil.ToFloat64(m.attempts.WithLabelValues("lock-only", "lock_timeout")), 1},
		{"seats sold", testutil.ToFloat64(m.sold.WithLabelValues("lock-only")), 2},
		{"handoffs", testutil.ToFloat64(m.handoffs.WithLabelValues("lock-only")), 2},
		{"pause strikes", testutil.ToFloat64(m.strikes.WithLabelValues("pause")), 1},
		{"in flight after the race", testutil.ToFloat64(m.inFlight), 0},
		{"verdict", testutil.ToFloat64(m.verdict.WithLabelValues("lock-only", "invalid")), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Every phase the report measures has its histogram; the handoffs' are
	// two gaps, of 0 and 1 ms.
	text, err := testutil.GatherAndFormat(m.Registry(), expfmt.TypeTextPlain, "hammer_phase_duration_seconds")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`hammer_phase_duration_seconds_count{phase="handoff"} 2`,
		`hammer_phase_duration_seconds_count{phase="attempt"} 4`,
		`hammer_phase_duration_seconds_count{phase="lock_wait"} 4`,
		`hammer_phase_duration_seconds_count{phase="critical"} 3`,
		`hammer_phase_duration_seconds_sum{phase="handoff"} 0.001`,
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
	problems, err := testutil.GatherAndLint(m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("metric %s: %s", p.Metric, p.Text)
	}
}

// TestFeedStream: the hub sees the race, its ticks with the counts, the
// fault (its secret masked) and the end of the race, then the verdict
// and the end as the final messages.
func TestFeedStream(t *testing.T) {
	f, hub, _ := newTestFeed(t)
	c, _, _ := hub.Subscribe()
	o := driver.Options{Scenario: scenarios.Scenario{Name: "none", Mode: scenarios.None}, Procs: 1, Goroutines: 3, Attempts: 1, Seats: 1}
	h := f.Track(o)
	goAt := time.Now().UnixNano()
	h.Go(goAt)
	h.Attempt(history.Attempt{Run: "none", Outcome: history.Sold, Complete: goAt + 5e6})
	time.Sleep(30 * time.Millisecond) // a few ticks
	h.Strike(history.FaultEvent{Fault: scenarios.Pause, Proc: 0, RequestID: "p0-r1", Start: goAt + 1e6})
	h.Fault(history.FaultEvent{Fault: scenarios.Pause, Detail: "dial redis://:hunter2@x"})
	h.Attempt(history.Attempt{Run: "none", Outcome: history.Sold, Complete: goAt + 25e6})
	h.Done()
	f.Verdict(VerdictEvent{Runs: []RunVerdict{{Run: "none", Verdict: "invalid", Oversold: 1}}, ExitCode: 0})
	f.End("done", time.Second)

	var types []string
	var last TickEvent
	var fault FaultEvent
	var curve CurveEvent
	for m := range c.C() {
		types = append(types, m.Type)
		switch m.Type {
		case TypeTick:
			if err := json.Unmarshal(m.Data, &last); err != nil {
				t.Fatal(err)
			}
		case TypeFault:
			_ = json.Unmarshal(m.Data, &fault)
		case TypeCurve:
			_ = json.Unmarshal(m.Data, &curve)
		}
	}
	got := strings.Join(types, " ")
	if !strings.HasPrefix(got, "race tick") || !strings.HasSuffix(got, "tick curve done") || !strings.Contains(got, "strike fault") {
		t.Errorf("messages %q, want race, ticks, a strike and its fault, a last tick, the curve and done", got)
	}
	// 1 ms buckets: the sale at 5 ms is in by 6 ms, the one at 25 ms by 26 ms.
	if n := len(curve.T); n != 27 || curve.T[n-1] != 0.026 || curve.Sold[5] != 0 || curve.Sold[6] != 1 || curve.Sold[n-1] != 2 || curve.Answered[n-1] != 2 {
		t.Errorf("curve %+v, want 0 to 2 sold by 26 ms, the first by 6 ms", curve)
	}
	if last.Attempts != 2 || last.Sold != 2 || last.InFlight != 0 || last.Outcomes["sold"] != 2 {
		t.Errorf("last tick %+v, want 2 attempts, 2 sold, none in flight", last)
	}
	if strings.Contains(fault.Detail, "hunter2") {
		t.Errorf("the fault's detail was sent unmasked: %q", fault.Detail)
	}
	final := hub.Final()
	if len(final) != 2 || final[0].Type != TypeVerdict || final[1].Type != TypeEnd {
		t.Errorf("final messages %v, want the verdict then the end", final)
	}
}

// TestFeedInFlight: attempts in flight are those due and not answered
// inFlightLag before the instant asked about, whatever order their
// records arrived in; an answer that arrives after its instant was read
// still counts for later ones.
func TestFeedInFlight(t *testing.T) {
	r := &race{total: 4}
	goAt := int64(1e18)
	r.goAt.Store(goAt)
	lag := inFlightLag.Seconds()
	answer := func(at float64) { r.answers.add(int64(at*1e9), false) }
	answer(2.0)
	answer(0.5)
	for _, c := range []struct {
		t    float64
		want int64
	}{{0.2, 0}, {lag + 0.1, 4}, {lag + 0.6, 3}, {lag + 2.5, 2}} {
		if got := r.inFlight(c.t); got != c.want {
			t.Errorf("inFlight(%.2f) = %d, want %d", c.t, got, c.want)
		}
	}
	answer(1.0) // late: its instant was read
	answer(9.0)
	if got := r.inFlight(lag + 3); got != 1 {
		t.Errorf("after a late answer, inFlight = %d, want 1", got)
	}
	if got := r.inFlight(lag + 9.5); got != 0 {
		t.Errorf("after every answer, inFlight = %d, want 0", got)
	}
}

// TestFeedOpenModelInFlight: in the open model, only the attempts whose
// intended start passed are due.
func TestFeedOpenModelInFlight(t *testing.T) {
	r := &race{total: 100, rate: 10}
	for _, c := range []struct {
		t    float64
		want int64
	}{{0, 1}, {0.5, 6}, {2.05, 21}, {50, 100}} {
		if got := r.due(c.t); got != c.want {
			t.Errorf("due(%v) = %d, want %d", c.t, got, c.want)
		}
	}
	closed := &race{total: 40}
	if got := closed.due(0.1); got != 40 {
		t.Errorf("closed model due = %d, want every contender, 40", got)
	}
}

// TestCurve: a race's curve counts answers and sales by when they were
// given, ends at the totals, and keeps to maxCurvePoints steps however
// long the race.
func TestCurve(t *testing.T) {
	var a answered
	const n = 100_000
	for i := range n {
		a.add(int64(i)*int64(time.Millisecond), i%3 == 0) // one answer a millisecond for 100 s
	}
	c := a.curve("r")
	if len(c.T) > maxCurvePoints+1 || len(c.T) != len(c.Sold) || len(c.T) != len(c.Answered) {
		t.Fatalf("%d, %d, %d points, want equal and at most %d", len(c.T), len(c.Sold), len(c.Answered), maxCurvePoints+1)
	}
	last := len(c.T) - 1
	if c.Answered[last] != n || c.Sold[last] != (n+2)/3 || c.T[last] < 99.9 || c.T[last] > 100.1 {
		t.Errorf("curve ends at %v s with %d answered, %d sold; want 100 s, %d, %d", c.T[last], c.Answered[last], c.Sold[last], n, (n+2)/3)
	}
	for i := 1; i < len(c.T); i++ {
		if c.T[i] <= c.T[i-1] || c.Answered[i] < c.Answered[i-1] || c.Sold[i] < c.Sold[i-1] {
			t.Fatalf("curve goes back at point %d", i)
		}
	}
	mid := c.Answered[len(c.T)/2]
	if mid < n/2-1000 || mid > n/2+1000 {
		t.Errorf("half way, %d answered; want about %d", mid, n/2)
	}
}

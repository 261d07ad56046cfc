package live

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the race's numbers in Prometheus's terms, on a registry
// of their own (nothing global): what Grafana beside a long open-model
// run scrapes from /metrics. Names follow Prometheus's conventions:
// counters end in _total, durations are in seconds.
type Metrics struct {
	reg      *prometheus.Registry
	attempts *prometheus.CounterVec   // run, outcome
	sold     *prometheus.CounterVec   // run
	inFlight prometheus.Gauge         // of the race running
	phases   *prometheus.HistogramVec // phase
	strikes  *prometheus.CounterVec   // fault
	handoffs *prometheus.CounterVec   // run
	dropped  prometheus.Counter
	clients  prometheus.GaugeFunc
	verdict  *prometheus.GaugeVec // run, verdict
}

// phaseBuckets are the latency buckets, in seconds: 100 µs to about
// 100 s, doubling, which covers a handoff (tens of µs land in the
// first) and a contender that waited a minute for the lock.
func phaseBuckets() []float64 { return prometheus.ExponentialBuckets(0.0001, 2, 21) }

// NewMetrics returns the metrics on a new registry; clients, if set, is
// read at every scrape for the number of live-page streams.
func NewMetrics(clients func() int) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hammer_attempts_total", Help: "Attempts whose records arrived, by race and outcome (sold, sold_out, lock_timeout, rejected, error, unknown).",
		}, []string{"run", "outcome"}),
		sold: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hammer_seats_sold_total", Help: "Attempts told they got a seat, by race (the ledger, read after the race, is what the verdict counts).",
		}, []string{"run"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hammer_in_flight", Help: "Attempts of the race running that were in flight 1.25 s ago: due (started, or due in the open model) and not yet answered then; workers send their records about once a second.",
		}),
		phases: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hammer_phase_duration_seconds", Help: "How long the phases of attempts took: lock_wait, handoff, critical, release, attempt (as in report.md).",
			Buckets: phaseBuckets(),
		}, []string{"phase"}),
		strikes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hammer_fault_strikes_total", Help: "Fault events recorded (a strike on a lock holder, a fault window), by fault.",
		}, []string{"fault"}),
		handoffs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hammer_lock_handoffs_total", Help: "Times the lock passed from a holder to a waiter by a release, by race.",
		}, []string{"run"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hammer_live_events_dropped_total", Help: "Live-page events not sent to a browser that was too slow to take them.",
		}),
		verdict: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "hammer_verdict", Help: "1 for each race's verdict (valid, invalid, unknown) once judged.",
		}, []string{"run", "verdict"}),
	}
	if clients == nil {
		clients = func() int { return 0 }
	}
	m.clients = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hammer_live_clients", Help: "Browsers following the live page's event stream.",
	}, func() float64 { return float64(clients()) })
	m.reg.MustRegister(m.attempts, m.sold, m.inFlight, m.phases, m.strikes, m.handoffs, m.dropped, m.clients, m.verdict)
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Registry is the metrics' registry, for tests to gather.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Dropped counts one event a browser lost.
func (m *Metrics) Dropped() { m.dropped.Inc() }

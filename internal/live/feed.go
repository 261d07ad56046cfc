package live

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/latency"
)

// DefaultTick is how often a Feed sends a race's counters while they
// change (and once a second while they do not).
const DefaultTick = 250 * time.Millisecond

// Feed turns the race's progress stream into the hub's messages and the
// metrics. Its Track is a driver.Plan's Track (beside the progress
// bars'); the hooks it returns only count, with atomics, and never wait:
// a goroutine per race sends the counters every tick.
type Feed struct {
	hub    *Hub
	m      *Metrics
	redact func(string) string
	every  time.Duration
	phases map[latency.Phase]prometheus.Observer

	mu      sync.Mutex
	races   int      // races tracked so far
	verdict *Message // the verdict, once given
}

// FeedOptions configure a Feed.
type FeedOptions struct {
	Hub     *Hub
	Metrics *Metrics
	// Redact masks secrets in text that came from outside (fault
	// details quote errors); nil leaves text as it is.
	Redact func(string) string
	// Tick is how often counters are sent (DefaultTick when zero).
	Tick time.Duration
}

// NewFeed returns a feed into o's hub and metrics.
func NewFeed(o FeedOptions) *Feed {
	f := &Feed{hub: o.Hub, m: o.Metrics, redact: o.Redact, every: o.Tick, phases: map[latency.Phase]prometheus.Observer{}}
	if f.redact == nil {
		f.redact = func(s string) string { return s }
	}
	if f.every <= 0 {
		f.every = DefaultTick
	}
	for _, p := range latency.Phases() {
		f.phases[p] = f.m.phases.WithLabelValues(string(p))
	}
	return f
}

// Track starts following race o; it is a driver.Plan's Track.
func (f *Feed) Track(o driver.Options) driver.Hooks {
	f.mu.Lock()
	index := f.races
	f.races++
	f.mu.Unlock()
	r := &race{
		feed: f, name: o.Scenario.Name, total: int64(o.Contenders()), rate: o.Rate,
		counters: map[history.Outcome]prometheus.Counter{},
		sold:     f.m.sold.WithLabelValues(o.Scenario.Name),
		handoffC: f.m.handoffs.WithLabelValues(o.Scenario.Name),
		stop:     make(chan struct{}), stopped: make(chan struct{}),
	}
	ev := RaceEvent{Run: r.name, Index: index, Mode: string(o.Scenario.Mode), Fault: string(o.Scenario.Fault),
		Lock: string(o.Scenario.LockName()), Seats: o.Seats, Contenders: int(r.total), Rate: o.Rate, Duration: o.Duration.Seconds()}
	f.hub.Publish(newMessage(TypeRace, ev), r.name)
	go r.run()
	return driver.Hooks{Go: r.goSignal, Attempt: r.attempt, Fault: r.fault, Strike: r.strike, Done: r.done}
}

// race is one race being followed.
type race struct {
	feed  *Feed
	name  string
	total int64
	rate  float64

	goAt                    atomic.Int64 // Unix ns, 0 before the go signal
	attempts, soldN, faults atomic.Int64
	outcomes                [nOutcomes]atomic.Int64
	handoffs                atomic.Int64
	counters                map[history.Outcome]prometheus.Counter // the Attempt hook's goroutine only
	sold, handoffC          prometheus.Counter
	holders                 pendingHolders
	answers                 answered
	stop, stopped           chan struct{}
	lastSent                TickEvent
	lastSentAt              time.Time
}

// nOutcomes is how many outcomes a tick counts (outcomeNames).
const nOutcomes = 6

// outcomeNames are the outcomes a tick counts, in a fixed order.
func outcomeNames() [nOutcomes]history.Outcome {
	return [nOutcomes]history.Outcome{history.Sold, history.SoldOut, history.LockTimeout, history.Rejected, history.Error, history.Unknown}
}

// goSignal notes the go signal's instant.
func (r *race) goSignal(goAt int64) { r.goAt.Store(goAt) }

// attempt counts one record; called from the race's collector only.
func (r *race) attempt(a history.Attempt) {
	r.attempts.Add(1)
	for i, o := range outcomeNames() {
		if a.Outcome == o {
			r.outcomes[i].Add(1)
			break
		}
	}
	c, ok := r.counters[a.Outcome]
	if !ok {
		c = r.feed.m.attempts.WithLabelValues(r.name, string(a.Outcome))
		r.counters[a.Outcome] = c
	}
	c.Inc()
	if a.Outcome == history.Sold {
		r.soldN.Add(1)
		r.sold.Inc()
	}
	latency.Durations(a, func(p latency.Phase, d time.Duration) { r.feed.phases[p].Observe(d.Seconds()) })
	if a.LockAcquired > 0 {
		r.holders.add(a)
	}
	if goAt := r.goAt.Load(); goAt > 0 && a.Complete > 0 {
		r.answers.add(a.Complete-goAt, a.Outcome == history.Sold)
	}
}

// inFlight is how many attempts were in flight inFlightLag before t
// (seconds after the go signal): due by then and not yet answered.
func (r *race) inFlight(t float64) int64 {
	at := time.Duration(t*float64(time.Second)) - inFlightLag
	if at < 0 {
		return 0
	}
	return max(0, r.due(at.Seconds())-r.answers.by(at))
}

// fault sends one fault event at once; called from any goroutine.
func (r *race) fault(ev history.FaultEvent) {
	r.faults.Add(1)
	r.feed.m.strikes.WithLabelValues(string(ev.Fault)).Inc()
	fe := FaultEvent{Run: r.name, Fault: string(ev.Fault), Lasted: time.Duration(ev.End - ev.Start).Seconds(),
		Detail: r.feed.redact(ev.Detail), Failed: r.feed.redact(ev.Failed), Unmet: r.feed.redact(ev.Unmet)}
	if goAt := r.goAt.Load(); goAt > 0 {
		fe.T = time.Duration(ev.Start - goAt).Seconds()
	}
	r.feed.hub.Publish(newMessage(TypeFault, fe), r.name)
}

// strike sends a strike as it begins; called from any goroutine.
func (r *race) strike(ev history.FaultEvent) {
	se := StrikeEvent{Run: r.name, Fault: string(ev.Fault), Proc: ev.Proc, RequestID: r.feed.redact(ev.RequestID)}
	if goAt := r.goAt.Load(); goAt > 0 {
		se.T = time.Duration(ev.Start - goAt).Seconds()
	}
	r.feed.hub.Publish(newMessage(TypeStrike, se), r.name)
}

// done stops the race's ticks, after a last one with every handoff.
func (r *race) done() {
	close(r.stop)
	<-r.stopped
}

// run sends the race's counters every tick until done.
func (r *race) run() {
	defer close(r.stopped)
	tk := time.NewTicker(r.feed.every)
	defer tk.Stop()
	for {
		select {
		case <-r.stop:
			r.countHandoffs(true)
			r.send(true)
			r.feed.m.inFlight.Set(0)
			ev := DoneEvent{Run: r.name}
			if goAt := r.goAt.Load(); goAt > 0 {
				ev.Elapsed = time.Duration(time.Now().UnixNano() - goAt).Seconds()
			}
			if goAt := r.goAt.Load(); goAt > 0 {
				r.feed.hub.Publish(newMessage(TypeCurve, r.answers.curve(r.name)), r.name)
			}
			r.feed.hub.Publish(newMessage(TypeDone, ev), r.name)
			return
		case <-tk.C:
			r.countHandoffs(false)
			r.send(false)
		}
	}
}

// countHandoffs counts the handoffs among the lock holders that
// arrived, those settled (all of them at the end).
func (r *race) countHandoffs(final bool) {
	r.holders.settle(final, func(gap time.Duration) {
		r.handoffs.Add(1)
		r.handoffC.Inc()
		r.feed.phases[latency.Handoff].Observe(gap.Seconds())
	})
}

// send publishes the race's counters when they changed since the last
// tick sent, or a second passed, or force.
func (r *race) send(force bool) {
	now := time.Now()
	ev := TickEvent{Run: r.name, Attempts: r.attempts.Load(), Sold: r.soldN.Load(), Handoffs: r.handoffs.Load(),
		Faults: r.faults.Load(), Outcomes: map[string]int{}}
	goAt := r.goAt.Load()
	if goAt > 0 {
		ev.T = time.Duration(now.UnixNano() - goAt).Seconds()
		ev.InFlight = r.inFlight(ev.T)
	}
	if force {
		ev.InFlight = 0
	}
	for i, o := range outcomeNames() {
		if n := r.outcomes[i].Load(); n > 0 {
			ev.Outcomes[string(o)] = int(n)
		}
	}
	r.feed.m.inFlight.Set(float64(ev.InFlight))
	same := ev.Attempts == r.lastSent.Attempts && ev.InFlight == r.lastSent.InFlight &&
		ev.Handoffs == r.lastSent.Handoffs && ev.Faults == r.lastSent.Faults
	if !force && same && now.Sub(r.lastSentAt) < time.Second {
		return
	}
	r.lastSent, r.lastSentAt = ev, now
	r.feed.hub.Publish(newMessage(TypeTick, ev), r.name)
}

// due is how many attempts were due t seconds after the go signal: all
// of them in the closed model, those whose intended start passed in the
// open one.
func (r *race) due(t float64) int64 {
	if r.rate <= 0 {
		return r.total
	}
	return min(r.total, int64(t*r.rate)+1)
}

// Hello is the message every stream of a command's page opens with.
func Hello(command, runID string, buffer int) Message {
	return newMessage(TypeHello, HelloEvent{Command: command, RunID: runID, Buffer: buffer})
}

// Verdict sets each race's verdict gauge and keeps the verdict for End
// to send, so that no slow browser can lose it.
func (f *Feed) Verdict(ev VerdictEvent) {
	for _, r := range ev.Runs {
		f.m.verdict.WithLabelValues(r.Run, r.Verdict).Set(1)
	}
	m := newMessage(TypeVerdict, ev)
	f.mu.Lock()
	f.verdict = &m
	f.mu.Unlock()
}

// End ends every stream: the verdict, if one was given, then an end
// event saying why and how long the server stays up (grace).
func (f *Feed) End(why string, grace time.Duration) {
	f.mu.Lock()
	var final []Message
	if f.verdict != nil {
		final = append(final, *f.verdict)
	}
	f.mu.Unlock()
	final = append(final, newMessage(TypeEnd, EndEvent{Why: why, Grace: grace.Seconds()}))
	f.hub.Close(final...)
}

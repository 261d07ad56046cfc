// Package worker is the body of a worker process of a race: the hammer
// binary re-executed as a hidden worker by the coordinator (internal/driver)
// or by an agent. Main reads the worker's configuration, connects its
// contenders (the built-in strategies, or a kind its Kit offers) and the
// lock, hand-off and Redis nodes they need, holds them at the start
// barrier until the go signal, injects the race's fault where it strikes
// inside the process, and streams the attempt records and histograms back.
// It speaks to the coordinator only through the messages of internal/wire.
package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/redis/go-redis/v9/logging"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/realtime"
	"github.com/hammer-load/hammer/internal/wire"
	"github.com/hammer-load/hammer/latency"
)

// Main is the body of a worker process: it reads its configuration
// from in, connects, reports ready, waits for the go signal, runs its
// contenders and sends one record per attempt to out (see outbox). kit
// holds the contenders of other kinds than the built-in strategies, and
// the broken variants a test binary offers. It returns the process exit
// code. It sets the process's GOMAXPROCS to the worker's share of its
// host's CPUs when the configuration says others share it (shareCPUs).
func Main(ctx context.Context, in io.Reader, out io.Writer, kit Kit) int {
	logging.Disable() // failures reach the coordinator in the attempt records, not on stderr
	dec := json.NewDecoder(bufio.NewReader(in))
	w := newReporter(out, int64(kit.ClockOffset))
	var cfg wire.Config
	if err := dec.Decode(&cfg); err != nil {
		w.send(wire.Message{Fatal: fmt.Sprintf("read worker config: %v", err)})
		return 2
	}
	if err := kit.check(cfg); err != nil {
		w.send(wire.Message{Fatal: err.Error()})
		return 2
	}
	shareCPUs(cfg.HostWorkers)
	res := newResumes()
	c, closeAll, err := kit.connect(ctx, cfg, w, res)
	if err != nil {
		w.send(wire.Message{Fatal: err.Error()})
		return 3
	}
	defer closeAll()

	ob := &outbox{rep: w, live: cfg.Fault.StopsProcesses(), every: shipEvery, lat: latency.NewSet()}
	if !ob.live && cfg.Rate == 0 {
		// Room for every record of the closed model, which a short race
		// (one that ends before the first ship) fills without outgrown
		// copies; after a ship the records grow again from nothing.
		ob.held = make([]*history.Attempt, 0, cfg.Goroutines*cfg.Attempts*cfg.Fault.Copies())
	}
	rt := cfg.Realtime && realtime.Supported()
	fl := newFlash(&cfg, c, ob)
	var start *barrier
	var done *sync.WaitGroup
	jobs := make(chan job)
	if fl != nil {
		start, done = newBarrier(0, 0, rt), &fl.done
		start.room(cfg.Goroutines)
	} else {
		start = newBarrier(cfg.Goroutines, stackFor(&cfg), rt)
		if done, err = startContenders(ctx, cfg, c, ob, start, jobs); err != nil {
			w.send(wire.Message{Fatal: err.Error()})
			return 3
		}
	}
	start.hold()
	defer start.release()
	w.send(wire.Message{Ready: true, Realtime: rt, GoMaxProcs: runtime.GOMAXPROCS(0)})

	var sig wire.GoSignal
	if err := dec.Decode(&sig); err != nil {
		// The coordinator went away before the start: nothing was attempted.
		return 3
	}
	// The finish line: a worker whose attempts have all ended waits until
	// every worker's have (the coordinator's wrap), a stopped race asks
	// for its records or the coordinator goes away. Sending the rest of
	// its records and its histograms, closing its connections (their
	// server processes exit) and exiting would otherwise take CPU from
	// the workers still racing on the cores they share, and make the
	// race's wall longer by it.
	finish, cross := context.WithCancel(ctx)
	defer cross()
	go res.listen(dec, func() {
		ob.ship()
		w.send(wire.Message{Shipped: true})
	}, cross)
	at := sig.At - w.shift // on the real clock
	stopShipping := ob.shipping()
	start.openAt(at)
	if fl != nil {
		fl.begin(ctx)
		start.release()
	}
	if cfg.Rate > 0 {
		dispatch(ctx, cfg, at, jobs)
	}
	done.Wait()
	w.send(wire.Message{Finished: true})
	<-finish.Done()
	stopShipping()
	ob.histograms()
	w.send(wire.Message{Done: true, Realtime: start.burst != nil})
	return 0
}

// startContenders starts the worker's goroutines, each of which readies
// what it alone uses (Contender.Warm) and then waits for start. It returns
// once all are warm, or with the first warm-up error.
func startContenders(ctx context.Context, cfg wire.Config, c Contender,
	ob *outbox, start *barrier, jobs <-chan job) (*sync.WaitGroup, error) {
	var warm sync.WaitGroup
	done := &sync.WaitGroup{}
	warmErrs := make(chan error, cfg.Goroutines)
	copies := cfg.Fault.Copies()
	for g := range cfg.Goroutines {
		warm.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			err := c.Warm(ctx)
			if err != nil {
				warmErrs <- err // before warm.Done, so that it is seen
				warm.Done()
				return
			}
			warm.Done()
			rngs := newRNGs(&cfg, g, copies)
			if cfg.Rate > 0 {
				start.wait(g)
				serve(ctx, &cfg, c, g, rngs, jobs, ob)
			} else {
				contend(ctx, &cfg, c, g, rngs, start, ob)
			}
		}()
	}
	warm.Wait()
	select {
	case err := <-warmErrs:
		return nil, err
	default:
		return done, nil
	}
}

// contend makes goroutine g's attempts one after the other (the closed
// model: every contender fires at the go signal). It builds its first
// request before start is closed, so that what happens after the go
// signal is the attempt itself.
func contend(ctx context.Context, cfg *wire.Config, c Contender, g int, rngs []*rand.Rand, start *barrier, out *outbox) {
	a := newAttempt(cfg, g, wire.RequestID(cfg.Proc, g, 0))
	start.wait(g)
	for k := range cfg.Attempts {
		if k > 0 {
			a = newAttempt(cfg, g, wire.RequestID(cfg.Proc, g, k))
		}
		request(ctx, c, a, rngs, out)
	}
}

// job is one request of the open model and when it should start.
type job struct {
	n        int
	intended int64
}

// dispatch issues the worker's share of the open model's requests at their
// intended times. When every goroutine is busy it falls behind, but the
// intended times stay: the wait counts in the latency (no coordinated
// omission).
func dispatch(ctx context.Context, cfg wire.Config, goAt int64, jobs chan<- job) {
	defer close(jobs)
	interval := float64(time.Second) / cfg.Rate
	for n := range cfg.Requests {
		at := goAt + int64(cfg.Offset) + int64(float64(n)*interval)
		time.Sleep(time.Until(time.Unix(0, at)))
		select {
		case jobs <- job{n: n, intended: at}:
		case <-ctx.Done():
			return
		}
	}
}

// serve makes the open model's requests that goroutine g picks up.
func serve(ctx context.Context, cfg *wire.Config, c Contender, g int, rngs []*rand.Rand, jobs <-chan job, out *outbox) {
	for j := range jobs {
		a := newAttempt(cfg, g, wire.OpenRequestID(cfg.Proc, j.n))
		a.Intended = j.intended
		request(ctx, c, a, rngs, out)
	}
}

// newAttempt is the record of a request of goroutine g, with what every
// attempt of the worker carries. It lives on the heap, not in the frame of
// the goroutine's loop, which waits under every attempt.
func newAttempt(cfg *wire.Config, g int, requestID string) *history.Attempt {
	return &history.Attempt{Run: cfg.Run, Mode: cfg.Mode, Proc: cfg.Proc, Goroutine: g, RequestID: requestID}
}

// request makes one request: attempt a, in the calling goroutine, or under
// the duplicate fault two copies of it at once with the same request id.
func request(ctx context.Context, c Contender, a *history.Attempt, rngs []*rand.Rand, out *outbox) {
	if len(rngs) == 1 {
		c.Attempt(ctx, a, rngs[0])
		out.attempt(a)
		return
	}
	var wg sync.WaitGroup
	for try := range rngs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cp := *a
			cp.Try = try
			c.Attempt(ctx, &cp, rngs[try])
			out.attempt(&cp)
		}()
	}
	wg.Wait()
}

// newRNGs seeds one random source per copy of a request goroutine g sends.
func newRNGs(cfg *wire.Config, g, copies int) []*rand.Rand {
	rngs := make([]*rand.Rand, copies)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.Proc)<<32|uint64(g)<<1|uint64(i)))
	}
	return rngs
}

// outbox records each finished attempt in the worker's histograms and
// keeps its record for the coordinator. Records are shipped in batches —
// every shipEvery while attempts run, and once they are all done — so that
// encoding, writing and reading them takes no CPU from a short race on a
// small host, where the servers and the contenders share the cores. A
// live outbox (a race whose fault stops or kills processes) sends each
// record the moment its attempt ends, so that a stopped or killed worker
// loses none.
type outbox struct {
	rep   *reporter
	live  bool
	every time.Duration // how often shipping ships: shipEvery
	mu    sync.Mutex
	lat   *latency.Set
	held  []*history.Attempt
	// shipMu is held from taking the records to having sent them, so that
	// a ship returns only once every record taken before it was sent.
	shipMu sync.Mutex
}

// shipEvery is how often an outbox that is not live ships what it holds:
// a worker lost without being asked for its records (its agent lost, or
// not answering a stopped race: see shipping) loses at most this much of
// them, and progress is shown at this pace.
const shipEvery = time.Second

// attempt records the finished attempt a, which the outbox keeps: the
// caller no longer touches it.
func (o *outbox) attempt(a *history.Attempt) {
	o.mu.Lock()
	o.lat.Observe(*a)
	if !o.live {
		o.held = append(o.held, a)
		o.mu.Unlock()
		return
	}
	o.mu.Unlock()
	o.rep.send(wire.Message{Attempt: a})
}

// ship sends the records held so far, and returns once they, and any a
// concurrent ship took, are sent.
func (o *outbox) ship() {
	o.shipMu.Lock()
	defer o.shipMu.Unlock()
	o.mu.Lock()
	held := o.held
	o.held = nil
	o.mu.Unlock()
	ms := make([]wire.Message, len(held))
	for i := range held {
		ms[i] = wire.Message{Attempt: held[i]}
	}
	o.rep.send(ms...)
}

// shipping ships what the outbox holds every o.every until the returned
// stop is called; stop ships the rest.
func (o *outbox) shipping() (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(o.every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				o.ship()
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		o.ship()
	}
}

// histograms ships the worker's histograms, once every attempt is done.
func (o *outbox) histograms() {
	o.mu.Lock()
	defer o.mu.Unlock()
	enc, err := o.lat.Encode()
	if err != nil {
		// The coordinator records this worker's attempts itself instead.
		return
	}
	o.rep.send(wire.Message{Histograms: enc})
}

// reporter serialises messages from many goroutines onto one stream.
type reporter struct {
	mu   sync.Mutex
	out  *bufio.Writer
	line bytes.Buffer  // the message being encoded
	enc  *json.Encoder // encodes into line
	// shift moves every instant sent onto the clock of a host played by
	// a test (Kit.ClockOffset); zero in real use.
	shift int64
}

// newReporter is a reporter writing to out, in writes of up to a pipe's
// capacity.
func newReporter(out io.Writer, shift int64) *reporter {
	r := &reporter{out: bufio.NewWriterSize(out, 64<<10), shift: shift}
	r.enc = json.NewEncoder(&r.line)
	return r
}

// send writes ms, one line each, in as few writes as whole lines allow: a
// write never ends inside a line, so a worker killed between two writes
// leaves no half line.
func (r *reporter) send(ms ...wire.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range ms {
		if r.shift != 0 {
			m = m.Copied()
			m.Shift(r.shift)
		}
		r.line.Reset()
		if r.enc.Encode(m) != nil {
			continue
		}
		if r.line.Len() > r.out.Available() {
			// A failed write means the coordinator is gone; it will count
			// the missing records as unknown, so there is nobody left to
			// tell.
			_ = r.out.Flush()
		}
		_, _ = r.out.Write(r.line.Bytes())
	}
	_ = r.out.Flush()
}

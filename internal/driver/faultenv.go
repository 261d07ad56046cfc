package driver

import (
	"context"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/health"
	"github.com/hammer-load/hammer/internal/wire"
)

// faultEnv is the race's fault on the coordinator's side: what its set-up
// started, the servers the workers reach, and its window.
type faultEnv struct {
	fault   fault.Injector
	servers fault.Servers
	window  chan history.FaultEvent // the window's event, once it ended
	// closeWatch closes the watch's clients; nil before watch.
	closeWatch func()
}

// setUpFaults prepares the race's fault and points the workers (through
// cfg) at the servers it says; the coordinator keeps its direct URLs for
// set-up, read-back and clean-up.
func setUpFaults(ctx context.Context, o Options, cfg *wire.Config) (*faultEnv, error) {
	f, err := fault.New(o.Scenario.Fault)
	if err != nil {
		return nil, err
	}
	servers, err := f.SetUp(ctx, fault.Race{RedisURL: o.RedisURL, PGURL: o.PGURL, Managed: o.Managed, LockTTL: o.LockTTL})
	if err != nil {
		return nil, err
	}
	cfg.RedisURL, cfg.PGURL = servers.RedisURL, servers.PGURL
	return &faultEnv{fault: f, servers: servers}, nil
}

// coordinator is what the fault may use in the coordinator while ws race
// as cfg says.
func (e *faultEnv) coordinator(o Options, ws *fleet, cfg wire.Config) *fault.Coordinator {
	return &fault.Coordinator{
		PauseFor: o.PauseFor, LockTTL: o.LockTTL, LockKey: cfg.LockKey, StockKey: cfg.StockKey, Seats: o.Seats,
		HolderKey: cfg.FaultKey,
		RedisURL:  o.RedisURL, WatchRedisURL: e.servers.WatchRedisURL, RedisPeers: o.RedisPeers, Managed: o.Managed, Procs: ws,
	}
}

// watch starts watching the servers the race depends on, as the workers
// reach them but for a proxy that cuts on purpose.
func (e *faultEnv) watch(o Options) (*health.Watcher, error) {
	targets, closeTargets, err := health.Targets(e.servers.WatchRedisURL, o.PGURL)
	if err != nil {
		return nil, err
	}
	e.closeWatch = closeTargets
	return health.Watch(targets, health.DefaultTiming()), nil
}

// setUpWatch watches the servers while a race sets up.
type setUpWatch struct {
	w *health.Watcher
	// done ends the watch and closes its clients.
	done func()
}

// watchSetUp starts watching the servers while the workers set up, so
// that one that stops answering then ends the set-up within seconds. Its
// outages are not the race's (the race watches from its go signal on).
func (e *faultEnv) watchSetUp(o Options) (*setUpWatch, error) {
	targets, closeTargets, err := health.Targets(e.servers.WatchRedisURL, o.PGURL)
	if err != nil {
		return nil, err
	}
	w := health.Watch(targets, health.DefaultTiming())
	return &setUpWatch{w: w, done: func() { w.Stop(); closeTargets() }}, nil
}

// stop ends the watch of a set-up that failed without waiting for it: a
// ping to a server that does not answer may take its full timeout. A
// set-up that went through calls done instead.
func (s *setUpWatch) stop() { go s.done() }

// startWindow starts the fault's window shortly after the go signal, if
// the fault has one.
func (e *faultEnv) startWindow(ctx context.Context, o Options, goAt int64) {
	if !o.Scenario.Fault.Proxied() {
		return
	}
	e.window = make(chan history.FaultEvent, 1)
	start := time.Unix(0, goAt).Add(windowDelay(o.Seed))
	go func() {
		fault.Sleep(ctx, time.Until(start))
		ev := history.FaultEvent{Run: o.Scenario.Name, Fault: o.Scenario.Fault, Proc: -1, Goroutine: -1, Start: time.Now().UnixNano()}
		detail, err := e.fault.Window(ctx, o.PauseFor)
		ev.Detail, ev.End = detail, time.Now().UnixNano()
		if err != nil {
			ev.Failed = err.Error()
		}
		e.window <- ev
	}()
}

// windowDelay is when, after the go signal, a fault's window starts: a
// millisecond or a few in, with the first sales in flight, varied by the
// seed. Not later: with the lock passed from holder to waiter in one round
// trip, a gate-sized race (20 seats) can sell out within 10 ms, and a
// window that opens after the last sale sees no contention.
func windowDelay(seed uint64) time.Duration {
	return time.Millisecond + time.Duration(seed%5)*time.Millisecond
}

// windowEvents waits for the fault's window to end and returns its event
// (none without a window).
func (e *faultEnv) windowEvents() []history.FaultEvent {
	if e.window == nil {
		return nil
	}
	return []history.FaultEvent{<-e.window}
}

// tearDown closes the watch and removes what the fault set up.
func (e *faultEnv) tearDown(ctx context.Context) {
	if e.closeWatch != nil {
		e.closeWatch()
	}
	e.fault.TearDown(ctx)
}

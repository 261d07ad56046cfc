package driver

import (
	"context"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/health"
	"github.com/hammer-load/hammer/scenarios"
)

// faultEnv is what a fault needs around the race: a failover set-up or the
// network proxies, and the fault window those proxies run.
type faultEnv struct {
	failover *failover
	proxies  *netProxies
	window   chan history.FaultEvent // the network fault's event, once it ended
	// redisURL is the Redis the workers reach, bypassing the network
	// fault's proxy: what the coordinator watches.
	redisURL   string
	closeWatch func() // closes the watch's clients; nil before watch
}

// setUpFaults prepares the race's fault and points the workers (through
// cfg) at the proxies it puts in front of the servers; the coordinator
// keeps its direct URLs for set-up, read-back and clean-up.
func setUpFaults(ctx context.Context, o Options, cfg *workerConfig) (*faultEnv, error) {
	env := &faultEnv{redisURL: o.RedisURL}
	var err error
	switch f := o.Scenario.Fault; {
	case f == scenarios.Failover:
		// Workers follow the virtual IP to the promoted replica; so does the watch.
		env.failover, cfg.RedisURL, err = startFailover(ctx, o.Managed, o.RedisURL, 10*o.LockTTL)
		env.redisURL = cfg.RedisURL
	case f.Proxied():
		env.proxies, cfg.RedisURL, cfg.PGURL, err = startProxies(o.RedisURL, o.PGURL)
	}
	if err != nil {
		return nil, err
	}
	return env, nil
}

// watch starts watching the servers the race depends on, as the workers
// reach them but for the network fault's proxy, which cuts on purpose.
func (e *faultEnv) watch(o Options) (*health.Watcher, error) {
	targets, closeTargets, err := health.Targets(e.redisURL, o.PGURL)
	if err != nil {
		return nil, err
	}
	e.closeWatch = closeTargets
	return health.Watch(targets, health.DefaultTiming()), nil
}

// startWindow starts the network fault's window shortly after the go
// signal, if the fault has one.
func (e *faultEnv) startWindow(ctx context.Context, o Options, goAt int64) {
	if e.proxies == nil {
		return
	}
	e.window = make(chan history.FaultEvent, 1)
	start := time.Unix(0, goAt).Add(netFaultDelay(o.Seed))
	go func() { e.window <- e.proxies.window(ctx, o.Scenario.Name, o.Scenario.Fault, start, o.PauseFor) }()
}

// windowEvents waits for the network fault's window to end and returns its
// event (none without a window).
func (e *faultEnv) windowEvents() []history.FaultEvent {
	if e.window == nil {
		return nil
	}
	return []history.FaultEvent{<-e.window}
}

// tearDown removes proxies and replicas and restores the servers.
func (e *faultEnv) tearDown(ctx context.Context) {
	if e.closeWatch != nil {
		e.closeWatch()
	}
	if e.failover != nil {
		// The next race gets a fresh primary either way; a failed clean-up
		// here shows as that race's set-up error.
		_ = e.failover.stop(ctx)
	}
	if e.proxies != nil {
		e.proxies.stop()
	}
}

package health

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
)

// Target is a server Watch pings.
type Target struct {
	Server string // Redis or PostgreSQL
	Ping   func(ctx context.Context) error
}

// Timing says how Watch pings: every Interval, each ping allowed Timeout;
// a server that failed every ping for DownAfter is reported down.
type Timing struct {
	Interval, Timeout, DownAfter time.Duration
}

// DefaultTiming notices a server that stopped answering within about four
// seconds (a failed ping after at most Interval+Timeout, then DownAfter of
// failures), while a host too busy to answer one ping in time is not taken
// for a dead server.
func DefaultTiming() Timing {
	return Timing{Interval: 250 * time.Millisecond, Timeout: time.Second, DownAfter: 3 * time.Second}
}

// Watcher pings servers until Stop and records when they did not answer.
type Watcher struct {
	timing  Timing
	down    chan history.Outage
	quit    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	outages []history.Outage
}

// Watch starts pinging every target.
func Watch(targets []Target, t Timing) *Watcher {
	w := &Watcher{timing: t, down: make(chan history.Outage, len(targets)), quit: make(chan struct{})}
	for _, target := range targets {
		w.wg.Add(1)
		go w.watch(target)
	}
	return w
}

// Down delivers an outage (To unset) as soon as its server has failed
// every ping for DownAfter; once per outage.
func (w *Watcher) Down() <-chan history.Outage { return w.down }

// Stop ends the watch and returns every outage seen, in the order they
// began; an outage still going on has To unset.
func (w *Watcher) Stop() []history.Outage {
	close(w.quit)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	slices.SortFunc(w.outages, func(a, b history.Outage) int { return cmp.Compare(a.From, b.From) })
	return w.outages
}

// watch pings one target until quit. A server still failing then gets
// one last ping, so that an outage that just ended is not recorded as
// going on.
func (w *Watcher) watch(t Target) {
	defer w.wg.Done()
	tick := time.NewTicker(w.timing.Interval)
	defer tick.Stop()
	var cur *history.Outage
	reported := false
	for quit := false; ; {
		start := time.Now()
		err := w.ping(t)
		switch {
		case err == nil && cur != nil:
			cur.To = start.UnixNano()
			w.record(*cur)
			cur, reported = nil, false
		case err != nil && cur == nil:
			cur = &history.Outage{Server: t.Server, From: start.UnixNano(), Err: err.Error()}
		case err != nil && !reported && time.Since(time.Unix(0, cur.From)) >= w.timing.DownAfter:
			reported = true
			select {
			case w.down <- *cur:
			default: // an earlier report is still unread: one is enough to stop a race
			}
		}
		if quit {
			if cur != nil {
				w.record(*cur)
			}
			return
		}
		select {
		case <-w.quit:
			if cur == nil {
				return
			}
			quit = true // one last ping
		case <-tick.C:
		}
	}
}

// ping makes one check of t within the timeout.
func (w *Watcher) ping(t Target) error {
	ctx, cancel := context.WithTimeout(context.Background(), w.timing.Timeout)
	defer cancel()
	return t.Ping(ctx)
}

func (w *Watcher) record(o history.Outage) {
	w.mu.Lock()
	w.outages = append(w.outages, o)
	w.mu.Unlock()
}

// Targets connects one ping client to each server (at most one connection
// each, opened lazily) and returns the targets and a function that closes
// the clients.
func Targets(redisURL, pgURL string) ([]Target, func(), error) {
	ropt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("watch redis: %w", err)
	}
	ropt.PoolSize, ropt.MaxRetries, ropt.DialTimeout = 1, -1, time.Second
	ropt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(ropt)
	pcfg, err := pgxpool.ParseConfig(pgURL)
	if err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("watch postgresql: %w", err)
	}
	pcfg.MaxConns, pcfg.MinConns = 1, 0
	pcfg.ConnConfig.ConnectTimeout = time.Second
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("watch postgresql: %w", err)
	}
	targets := []Target{
		{Server: Redis, Ping: func(ctx context.Context) error { return rdb.Ping(ctx).Err() }},
		{Server: PostgreSQL, Ping: func(ctx context.Context) error {
			_, err := pool.Exec(ctx, "SELECT 1")
			return err
		}},
	}
	return targets, func() { pool.Close(); rdb.Close() }, nil
}

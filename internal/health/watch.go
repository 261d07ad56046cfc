package health

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
)

// Target is a server Watch pings.
type Target struct {
	Server string // history.ServerRedis or history.ServerPostgreSQL
	// Ping checks that the server answers and returns what identifies the
	// server process (Redis's run_id, PostgreSQL's start time): when it
	// changes, the server was restarted or another one took its place.
	Ping func(ctx context.Context) (string, error)
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

// Watcher pings servers until Stop and records when they did not answer
// and when they came back as another process.
type Watcher struct {
	timing Timing
	down   chan history.Outage
	quit   chan struct{}
	// stopping ends when Stop is called: it cuts the ping of a server
	// already reported down, which Stop need not wait out.
	stopping context.Context
	stop     context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	outages  []history.Outage
}

// Watch starts pinging every target.
func Watch(targets []Target, t Timing) *Watcher {
	w := &Watcher{timing: t, down: make(chan history.Outage, len(targets)), quit: make(chan struct{})}
	w.stopping, w.stop = context.WithCancel(context.Background())
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
	w.stop()
	close(w.quit)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	slices.SortFunc(w.outages, func(a, b history.Outage) int { return cmp.Compare(a.From, b.From) })
	return w.outages
}

// watcher is the state of the watch of one target.
type watcher struct {
	t        Target
	id       string          // the server process last seen answering
	lastGood int64           // when that answer was asked for (Unix ns)
	cur      *history.Outage // the outage going on, if any
	reported bool            // cur was sent on Down
}

// watch pings one target until quit. A server still failing then gets
// one last ping, so that an outage that just ended is not recorded as
// going on; but not one already reported down (its race was stopped for
// it), whose ping in flight is cut too: a frozen server would hold Stop
// for a ping timeout or two.
func (w *Watcher) watch(t Target) {
	defer w.wg.Done()
	tick := time.NewTicker(w.timing.Interval)
	defer tick.Stop()
	s := &watcher{t: t}
	for quit := false; ; {
		start := time.Now()
		id, err := w.ping(t, s.reported)
		if err != nil && s.reported && w.stopping.Err() != nil {
			w.record(*s.cur)
			return
		}
		w.observe(s, start.UnixNano(), id, err)
		if quit {
			if s.cur != nil {
				w.record(*s.cur)
			}
			return
		}
		select {
		case <-w.quit:
			switch {
			case s.cur == nil:
				return
			case s.reported:
				w.record(*s.cur)
				return
			}
			quit = true // one last ping
		case <-tick.C:
		}
	}
}

// ping pings t once, within the timing's timeout; the ping of a server
// already reported down gives up as soon as Stop is called (a client may
// not heed a cancelled context while it reads, so it is left to end on
// its own).
func (w *Watcher) ping(t Target, reported bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), w.timing.Timeout)
	if !reported {
		defer cancel()
		return t.Ping(ctx)
	}
	type answer struct {
		id  string
		err error
	}
	got := make(chan answer, 1)
	go func() {
		defer cancel()
		id, err := t.Ping(ctx)
		got <- answer{id, err}
	}()
	select {
	case a := <-got:
		return a.id, a.err
	case <-w.stopping.Done():
		return "", w.stopping.Err()
	}
}

// observe takes in one ping asked for at start.
func (w *Watcher) observe(s *watcher, start int64, id string, err error) {
	switch {
	case err == nil:
		restarted := s.id != "" && id != s.id
		if restarted && s.cur == nil {
			// Back as another process between two pings: an outage too
			// short to fail one.
			s.cur = &history.Outage{Server: s.t.Server, From: s.lastGood, Err: "answered as another process"}
		}
		if s.cur != nil {
			s.cur.To, s.cur.Restarted = start, restarted
			w.record(*s.cur)
		}
		s.id, s.lastGood, s.cur, s.reported = id, start, nil, false
	case s.cur == nil:
		s.cur = &history.Outage{Server: s.t.Server, From: start, Err: err.Error()}
	case !s.reported && time.Since(time.Unix(0, s.cur.From)) >= w.timing.DownAfter:
		s.reported = true
		select {
		case w.down <- *s.cur:
		default: // an earlier report is still unread: one is enough to stop a race
		}
	}
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
		{Server: history.ServerRedis, Ping: func(ctx context.Context) (string, error) {
			info, err := rdb.Info(ctx, "server").Result()
			return infoField(info, "run_id"), err
		}},
		{Server: history.ServerPostgreSQL, Ping: func(ctx context.Context) (string, error) {
			var started time.Time
			err := pool.QueryRow(ctx, "SELECT pg_postmaster_start_time()").Scan(&started)
			return started.String(), err
		}},
	}
	return targets, func() { pool.Close(); rdb.Close() }, nil
}

// infoField returns the value of one "name:value" line of an INFO reply.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

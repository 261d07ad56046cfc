package driver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/redisstock"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/wire"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/scenarios"
)

// Backend is what a race's contenders sell from, as the coordinator sees
// it: hammer's own inventory for the built-in strategies, or a user's
// service and its database. Race calls Create, then Start once the fault
// set up the servers, and after the race ReadBack and Stop.
type Backend interface {
	// Create makes the race's data in its own schema, reaching PostgreSQL
	// directly.
	Create(ctx context.Context, r BackendRace) error
	// Start starts what serves the race, reaching Redis and PostgreSQL as
	// the workers do (through a fault's proxies), and returns the
	// settings every worker's contender gets.
	Start(ctx context.Context, r BackendRace, servers fault.Servers) (json.RawMessage, error)
	// LockKey is the Redis key of the lock the contenders take, if any,
	// under the race's key prefix.
	LockKey(prefix string) string
	// ReadBack reads the ledger and the sector row after the race, trying
	// again for up to wait while PostgreSQL fails.
	ReadBack(ctx context.Context, r BackendRace, wait time.Duration) seatdb.ReadBack
	// Stop stops what Start started and says what went wrong with it
	// during the race (a replica that died), if anything.
	Stop() []string
}

// ErrBackendSetUp matches an error of a Backend's Start that the user's
// set-up of what it starts caused, not the host: a service that listens
// on a port of its own, or exits by itself before it is ready. In a plan's
// first race, RaceAll stops at it and returns it, a configuration error
// (exit 2); Race no longer says it when the world failed meanwhile.
var ErrBackendSetUp = errors.New("the backend as set up cannot start")

// Stager is a Backend whose start takes a while (a user's replicas): it
// says what it starts, for the progress shown until the go signal.
type Stager interface {
	// Starting says what Start starts, e.g. "3 replicas of ticketd"; ""
	// when it starts nothing.
	Starting() string
}

// Logs is a Backend that runs processes of its own (a user's replicas)
// and keeps what they printed, for the results folder.
type Logs interface {
	// Logs is what each process printed during the race; called once
	// Stop returned, or once Start failed (what they printed until then).
	Logs() []history.ReplicaLog
}

// BackendRace is what a Backend knows of its race.
type BackendRace struct {
	// Run names the race; Schema and KeyPrefix are its own, removed after
	// the race.
	Run, Schema, KeyPrefix string
	// PGURL is PostgreSQL as the coordinator reaches it.
	PGURL   string
	Seats   int
	LockTTL time.Duration
	// Ledger is where ReadBack stops reading the ledger: at
	// seatdb.LedgerLimit of the race's seats and attempts rows, or
	// once the rows hold more than the seats of the request ids of the
	// race's attempts (Ours is set for the read-back, once the history
	// is in).
	Ledger seatdb.Bound
}

// Holders is a Backend whose processes a fault strikes instead of the
// workers' (a user's replicas): it reports each new holder of the lock,
// as the process that took it, and acts on those processes.
type Holders interface {
	fault.Procs
	// WatchHolders starts calling held with the number of each new
	// holder of the lock (from 1) and the process that holds it, as it
	// takes the lock, until ctx ends; it returns once the watch is live,
	// with what waits for its end and returns every claim on the lock the
	// watch saw (their Run left empty).
	WatchHolders(ctx context.Context, lockKey string, held func(n int64, proc int, token string)) (wait func() ([]history.LockClaim, error), err error)
	// Sale says where the sale of the holder with token on process proc
	// stands (see fault.SaleState).
	Sale(ctx context.Context, proc int, token string) (fault.SaleState, error)
	// CatchWriter stops the next process whose sale has written and not
	// committed, and returns it (see fault.Coordinator).
	CatchWriter(ctx context.Context) (int, error)
}

// builtinBackend is hammer's own inventory: the sectors, seats and sales
// tables of internal/seatdb, and the stock counter in Redis of the modes
// that admit through one.
type builtinBackend struct {
	mode     scenarios.Mode
	redisURL string // Redis as the coordinator reaches it
}

var _ Backend = builtinBackend{}

// Create makes the inventory's tables and the sector row, the seat rows of
// a mode that takes one, and seeds the stock counter of a mode that admits
// through one. What it made before it failed it removes.
func (b builtinBackend) Create(ctx context.Context, r BackendRace) error {
	sector := history.Sector{Run: r.Run, ID: sectorID, Capacity: r.Seats, Available: r.Seats}
	create := seatdb.Create
	if b.mode.SeatRows() {
		create = seatdb.CreateSeated
	}
	if err := create(ctx, r.PGURL, r.Schema, sector); err != nil {
		return err
	}
	key := stockKey(b, r.KeyPrefix)
	if key == "" {
		return nil
	}
	if err := redisstock.SeedAt(ctx, b.redisURL, key, r.Seats); err != nil {
		return errors.Join(err, seatdb.Drop(context.WithoutCancel(ctx), r.PGURL, r.Schema),
			hammerlock.DeleteAll(context.WithoutCancel(ctx), b.redisURL, r.KeyPrefix))
	}
	return nil
}

// stockKey is the stock counter under the race's prefix when hammer's own
// strategies race in a mode that admits through one; "" otherwise (a
// user's service keeps its own state).
func stockKey(b Backend, prefix string) string {
	if bb, ok := b.(builtinBackend); !ok || !bb.mode.UsesStock() {
		return ""
	}
	return prefix + "stock:sector:" + strconv.Itoa(sectorID)
}

// Start starts nothing: the workers reach the servers themselves.
func (builtinBackend) Start(context.Context, BackendRace, fault.Servers) (json.RawMessage, error) {
	return nil, nil
}

// LockKey is the sector's lock.
func (builtinBackend) LockKey(prefix string) string { return prefix + "lock:sector:1" }

// ReadBack reads the inventory's ledger and sector row; a mode whose stock
// PostgreSQL does not count (counter-only) has no sector count to read.
func (b builtinBackend) ReadBack(ctx context.Context, r BackendRace, wait time.Duration) seatdb.ReadBack {
	back := seatdb.ReadBackAll(ctx, r.PGURL, r.Schema, r.Run, sectorID, r.Ledger, wait)
	if !b.mode.CountsInDB() {
		back.Sector, back.SectorErr, back.NoCounter = nil, nil, true
	}
	return back
}

// Stop has nothing to stop.
func (builtinBackend) Stop() []string { return nil }

// serving is a started Backend during one race.
type serving struct {
	b       Backend
	stopped bool
	sched   []int64
}

// startBackend starts o's backend on the servers the fault set up and
// hands what it returns to the workers (through cfg).
func startBackend(ctx context.Context, o Options, br BackendRace, env *faultEnv, cfg *wire.Config) (*serving, error) {
	var stage Stage
	if s, ok := o.Backend.(Stager); ok && o.OnStage != nil && s.Starting() != "" {
		stage.What = "starting " + s.Starting()
		o.OnStage(stage)
	}
	began := time.Now()
	settings, err := o.Backend.Start(ctx, br, env.servers)
	if err != nil {
		return nil, err
	}
	if stage.What != "" {
		stage.Done, stage.Took = true, time.Since(began)
		o.OnStage(stage)
	}
	if settings != nil {
		cfg.ContenderConfig = settings
	}
	return &serving{b: o.Backend, sched: cfg.Schedule}, nil
}

// logs is what the backend's processes printed, if it keeps that; call it
// after stop.
func (s *serving) logs() []history.ReplicaLog {
	if l, ok := s.b.(Logs); ok {
		return l.Logs()
	}
	return nil
}

// stop stops the backend once and returns what went wrong with it.
func (s *serving) stop() []string {
	if s.stopped {
		return nil
	}
	s.stopped = true
	return s.b.Stop()
}

// strikeHolders, for a backend whose processes the fault strikes, watches
// the lock's holders from before the go signal and has the scheduled ones
// struck; the workers' contenders then ask for no strike themselves. The
// watch runs in every race of such a backend with a lock, faults or not:
// it also records the claims on the lock (history.LockClaim), which what
// it returns hands back once it ended the watch. A watch that fails is a
// failed strike in a race with a schedule, a warning in one without.
func (s *serving) strikeHolders(ctx context.Context, st *striker, cfg wire.Config, warn func(string)) func() []history.LockClaim {
	h, ok := s.b.(Holders)
	if !ok || cfg.LockKey == "" {
		return func() []history.LockClaim { return nil }
	}
	failed := func(err error) {
		if len(s.sched) == 0 {
			warn("the lock was not followed in Redis's MONITOR stream, so the report shows no lock waits or holders: " + err.Error())
			return
		}
		st.record(history.FaultEvent{Detail: "watching the lock's holders", Failed: err.Error()})
	}
	if len(s.sched) > 0 {
		st.coord.Procs, st.coord.Sale, st.coord.CatchWriter = h, h.Sale, h.CatchWriter
	}
	var again atomic.Int64 // strikes that missed, to make on later holders
	st.onMiss = func() { again.Add(1) }
	watchCtx, cancel := context.WithCancel(ctx)
	wait, err := h.WatchHolders(watchCtx, cfg.LockKey, func(n int64, proc int, token string) {
		if slices.Contains(s.sched, n) || takeOne(&again) {
			st.handle(ctx, fault.Target{Proc: proc, Goroutine: -1, RequestID: h.Name(proc), Watched: true, Token: token})
		}
	})
	if err != nil {
		cancel()
		failed(err)
		return func() []history.LockClaim { return nil }
	}
	var claims []history.LockClaim
	done := make(chan struct{})
	go func() {
		defer close(done)
		var err error
		if claims, err = wait(); err != nil {
			failed(err)
		}
	}()
	return func() []history.LockClaim { cancel(); <-done; return claims }
}

// takeOne takes one from n if it is positive.
func takeOne(n *atomic.Int64) bool {
	for {
		v := n.Load()
		if v <= 0 {
			return false
		}
		if n.CompareAndSwap(v, v-1) {
			return true
		}
	}
}

// lockClaims names the claims on a service's lock the watch saw after
// their run, and records their lock waits and handoffs in lat, as the
// workers record those of hammer's own lock.
func lockClaims(claims []history.LockClaim, run string, lat *latency.Set) []history.LockClaim {
	for i := range claims {
		claims[i].Run = run
	}
	if lat != nil {
		lat.ObserveClaims(claims)
	}
	return claims
}

// Stage is what a race does before its go signal that takes a while.
type Stage struct {
	// What it does: "starting 3 replicas of ticketd".
	What string
	// Done is set once it is done, Took how long it took then.
	Done bool
	Took time.Duration
}

// String is the stage as a progress line says it: "starting 3 replicas of
// ticketd …", then "starting 3 replicas of ticketd … ready in 1.2s".
func (s Stage) String() string {
	if !s.Done {
		return s.What + " …"
	}
	return s.What + " … ready in " + Roughly(s.Took)
}

// Roughly renders a duration as people read it in a progress line: to
// the millisecond under a second ("340ms"), to the tenth of a second
// above ("1.2s").
func Roughly(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

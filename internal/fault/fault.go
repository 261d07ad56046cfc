// Package fault holds what each fault does during a race, one file per
// fault, behind one interface: its set-up before the workers start, what
// a worker does when a struck contender reaches a point of its attempt,
// what the coordinator does when it is asked to strike, the window of a
// fault that acts over time, and its tear-down. What is known of a fault
// before the race (how many holders it strikes, whether it needs a proxy,
// …) is its row of the fault table in package scenarios.
//
// Adding a fault is one file here, one row of that table and one line of
// registry; the race engine knows no fault by name.
package fault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/scenarios"
)

// Injector is the behaviour of one fault in one race. The coordinator and
// every worker process each make their own with New; the coordinator's
// keeps what its set-up started until TearDown. Embed Base for the parts a
// fault does not need.
type Injector interface {
	// SetUp prepares the race before the workers start and says which
	// servers the workers reach (a proxy in front of one, say).
	SetUp(ctx context.Context, r Race) (Servers, error)
	// CountsAt reports whether holders are numbered at point p, so that
	// the scheduled numbers fall on holders that reach the fault's point.
	CountsAt(p strategy.Point, usesLock bool) bool
	// At is the worker's side: what it does when a numbered holder
	// reaches point p of its attempt.
	At(ctx context.Context, w *Worker, h Hit) error
	// Strike is the coordinator's side: what it does when a struck
	// contender asks it to act. It resumes the contender when done (a
	// contender killed never resumes) and says in words what it did; it
	// updates t when it struck another process than the one that asked.
	Strike(ctx context.Context, c *Coordinator, t *Target) (string, error)
	// Window acts on every connection from now, for a time its fault
	// reckons from d (d for partition, 2d for net-delay), and says in
	// words what it did: the faults whose row says Proxied.
	Window(ctx context.Context, d time.Duration) (string, error)
	// TearDown removes what SetUp started and restores the servers.
	TearDown(ctx context.Context)
}

// New returns the behaviour of fault f for one race: nothing at all for
// NoFault.
func New(f scenarios.Fault) (Injector, error) {
	if f == scenarios.NoFault {
		return Base{}, nil
	}
	mk, ok := registry()[f]
	if !ok {
		return nil, fmt.Errorf("fault %q has no behaviour", f)
	}
	return mk(), nil
}

// registry is every fault's behaviour, by name.
func registry() map[scenarios.Fault]func() Injector {
	return map[scenarios.Fault]func() Injector{
		scenarios.Pause:       func() Injector { return &pause{} },
		scenarios.PauseStop:   func() Injector { return &pauseStop{} },
		scenarios.ShortTTL:    func() Injector { return &shortTTL{} },
		scenarios.LockLoss:    func() Injector { return &lockLoss{} },
		scenarios.Failover:    func() Injector { return &failover{} },
		scenarios.Crash:       func() Injector { return &crash{} },
		scenarios.Duplicate:   func() Injector { return &duplicate{} },
		scenarios.SlowRelease: func() Injector { return &slowRelease{} },
		scenarios.NetDelay:    func() Injector { return &netDelay{} },
		scenarios.Partition:   func() Injector { return &partition{} },
		scenarios.NodeRestart: func() Injector { return &nodeRestart{} },
		scenarios.ClockJump:   func() Injector { return &clockJump{} },
	}
}

// Race is what a fault's set-up knows of the race.
type Race struct {
	// RedisURL and PGURL are the servers as the coordinator reaches them.
	RedisURL, PGURL string
	// Managed is the stack when hammer started the servers itself, nil
	// otherwise.
	Managed *stack.Stack
	// LockTTL is the race's lock TTL.
	LockTTL time.Duration
}

// Servers are the URLs the workers of a race use, and the Redis the
// coordinator watches and reads lock holders from: the one the workers
// reach, but bypassing a proxy that cuts on purpose.
type Servers struct {
	RedisURL, PGURL string
	WatchRedisURL   string
}

// Worker is what a fault can use in a worker process.
type Worker struct {
	// PauseFor is how long a pause, a stop or injected latency lasts.
	PauseFor time.Duration
	// LockTTL is the race's lock TTL, LockKey its lock, Locker the
	// process's client of it.
	LockTTL time.Duration
	LockKey string
	Locker  *hammerlock.Locker
	// World is held for writing while the process is paused; heartbeats
	// hold it for reading.
	World *sync.RWMutex
	// Strike asks the coordinator to strike the contender and waits until
	// it is resumed.
	Strike func(ctx context.Context, a *history.Attempt) error
	// Event records a fault the worker injected itself, from start to now.
	Event func(a *history.Attempt, start time.Time, detail string)
	// Begin, if set, tells the coordinator at once that the worker
	// begins to inject a fault itself on a's contender (Event follows).
	Begin func(a *history.Attempt, start time.Time)
	// Numbered says how many holders (across all processes) have been
	// numbered so far: a holder numbered after Hit.Number took the lock
	// after the hit's holder.
	Numbered func(ctx context.Context) (int64, error)
}

// begin calls Begin, if set.
func (w *Worker) begin(a *history.Attempt, start time.Time) {
	if w.Begin != nil {
		w.Begin(a, start)
	}
}

// Hit is a numbered holder at a point of its attempt.
type Hit struct {
	Attempt *history.Attempt
	Point   strategy.Point
	// Struck: the holder's number is one the fault was scheduled to
	// strike; AfterStruck: the number before it was.
	Struck, AfterStruck bool
	// Number is the holder's number among all holders of the run.
	Number int64
	// Query runs statements in the sale's transaction at MidWrite; nil
	// elsewhere.
	Query seatdb.Querier
}

// Coordinator is what a fault can use in the coordinator.
type Coordinator struct {
	// PauseFor is how long a stop lasts; LockTTL and LockKey are the
	// race's lock.
	PauseFor, LockTTL time.Duration
	LockKey           string
	// StockKey is the stock counter of a mode that admits through one
	// (empty otherwise), seeded with Seats.
	StockKey string
	Seats    int
	// HolderKey counts the holders (or sales) as they reach the point
	// where the fault numbers them (CountsAt).
	HolderKey string
	// RedisURL is Redis as the coordinator reaches it; WatchRedisURL as
	// the workers do (see Servers).
	RedisURL, WatchRedisURL string
	// RedisPeers are the other nodes of a lock taken as a Redlock (nodes
	// 1 to N-1, node 0 being RedisURL), as everyone reaches them; empty
	// for a lock on one Redis.
	RedisPeers []string
	// Managed is the stack when hammer started the servers, nil otherwise.
	Managed *stack.Stack
	// Procs are the race's worker processes.
	Procs Procs
	// Sale, when a watch follows the holders, says where the sale of the
	// holder with token on process proc stands; nil otherwise.
	Sale func(ctx context.Context, proc int, token string) (SaleState, error)
	// CatchWriter, when a watch follows the holders, waits until some
	// process's sale has written and not committed, stops that process
	// there and returns it; ErrMissed when none did before ctx ended.
	CatchWriter func(ctx context.Context) (proc int, err error)
}

// Procs are the worker processes of a race, as faults act on them.
type Procs interface {
	// Name names process proc in words: "worker 1", "replica 1".
	Name(proc int) string
	// Signal sends sig to process proc and returns its pid.
	Signal(proc int, sig syscall.Signal) (int, error)
	// Crashed marks process proc as killed on purpose, before it is.
	Crashed(proc int)
	// Resume lets the struck contender t go on.
	Resume(t Target)
}

// Target is a struck contender.
type Target struct {
	// Proc and Goroutine say where the contender runs, RequestID which
	// request it makes.
	Proc, Goroutine int
	RequestID       string
	// Key names the contender's attempt to its worker, to resume it.
	Key string
	// Watched: the process was found holding the lock by a watch from
	// outside (a user's replica), not stopped at a point of an attempt;
	// Token is then the lock's value it set.
	Watched bool
	Token   string
}

// Base does nothing at every step; faults embed it for the steps they do
// not need.
type Base struct{}

// SetUp leaves the workers on the race's own servers.
func (Base) SetUp(_ context.Context, r Race) (Servers, error) {
	return Servers{RedisURL: r.RedisURL, PGURL: r.PGURL, WatchRedisURL: r.RedisURL}, nil
}

// CountsAt numbers holders as they reach MidWrite, where most faults
// strike: as many holders get there as seats are sold, so every number
// scheduled in the first half of the sale is reached.
func (Base) CountsAt(p strategy.Point, _ bool) bool { return p == strategy.MidWrite }

// At does nothing.
func (Base) At(context.Context, *Worker, Hit) error { return nil }

// Strike resumes the contender and fails: the fault has no coordinator
// action.
func (Base) Strike(_ context.Context, c *Coordinator, t *Target) (string, error) {
	c.Procs.Resume(*t)
	return "", errNoStrike
}

// Window fails: the fault has no window.
func (Base) Window(context.Context, time.Duration) (string, error) { return "", errNoWindow }

// TearDown does nothing.
func (Base) TearDown(context.Context) {}

var (
	errNoStrike = errors.New("the fault has no coordinator action")
	errNoWindow = errors.New("the fault has no window")
)

// strikeAt asks the coordinator to strike a struck holder that reaches one
// of points, and waits until it is resumed.
func strikeAt(ctx context.Context, w *Worker, h Hit, points ...strategy.Point) error {
	if !h.Struck || !slices.Contains(points, h.Point) {
		return nil
	}
	return w.Strike(ctx, h.Attempt)
}

// Sleep waits for d or until ctx ends, and reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

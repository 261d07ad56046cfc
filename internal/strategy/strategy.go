// Package strategy is what one contender does in each mode: take the lock if
// the mode has one, try to take a seat, release the lock, and stamp every
// phase of the attempt on its history record. Faults hook in at named
// points of an attempt.
package strategy

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/health"
	"github.com/hammer-load/hammer/internal/redisstock"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/scenarios"
)

// Point names a moment of an attempt where a fault can strike.
type Point string

// The points of an attempt, in the order an attempt reaches them.
const (
	// AcquireGap is inside a lock acquisition made of several commands
	// (only planted, broken locks have one).
	AcquireGap Point = "acquire-gap"
	// Holding is right after the lock was taken, or right before the sale
	// of a mode without a lock.
	Holding Point = "holding"
	// MidWrite is between the read and the write of a read-then-write, or
	// inside the transaction after the UPDATE of an atomic sale.
	MidWrite Point = "mid-write"
	// AfterWrite is after the sale was decided, before the lock is released.
	AfterWrite Point = "after-write"
)

// Faults injects failures at the points of an attempt. q runs statements in
// the sale's transaction at MidWrite and is nil elsewhere.
type Faults interface {
	At(ctx context.Context, a *history.Attempt, p Point, q seatdb.Querier) error
	// Done is told when the attempt is over, whatever happened to it.
	Done(a *history.Attempt)
}

// Lock is the per-sector lock of a mode.
type Lock interface {
	// Acquire takes the lock, waiting as the lock's policy says. A lock
	// made of several commands calls gap between them.
	Acquire(ctx context.Context, rng *rand.Rand, gap func(context.Context) error) (hammerlock.Lease, error)
	// Release gives the lock back; false means it was no longer ours.
	Release(ctx context.Context, l hammerlock.Lease) (bool, error)
	// Extend resets the lock's TTL; false means it was no longer ours.
	Extend(ctx context.Context, l hammerlock.Lease) (bool, error)
}

// Contender holds what every attempt of one mode needs.
type Contender struct {
	Mode   scenarios.Mode
	Lock   Lock // nil for modes without a lock
	Sell   func(context.Context, seatdb.Request) (seatdb.Result, error)
	Sector int
	// Faults is nil when nothing is injected.
	Faults Faults
	// ExtendEvery, if positive, extends the lock's TTL at this interval
	// while the holder works (the heartbeat lock tutorials recommend).
	ExtendEvery time.Duration
	// World is held for writing while the process is paused; heartbeats
	// hold it for reading, so a pause stops them as it would stop a
	// process. Nil when nothing pauses.
	World *sync.RWMutex
	// SoldOut spares lock waiters a sold-out sector; nil when off, and
	// for modes without a lock.
	SoldOut *SoldOutHint
	// lined is the lock whose line the hint dismisses (hammer's own, with
	// handoff); any other lock's wait, a library's or one a plant put in
	// its place, the hint ends through its context (see acquireBound).
	lined Lock
	// home ends the attempts of Begin that were sent home.
	home homecoming
}

// Deps are what New wires a contender from.
type Deps struct {
	Redis    redis.Cmdable
	Locker   *hammerlock.Locker
	Store    *seatdb.Store
	Sector   int
	LockKey  string
	FenceKey string
	// StockKey is the stock counter of the modes that admit through one.
	StockKey string
	LockTTL  time.Duration
	LockWait time.Duration
	Extend   bool
	Faults   Faults
	World    *sync.RWMutex
	// SoldOut is the sector's sold-out hint; nil turns it off. Only the
	// modes with a lock use it.
	SoldOut *SoldOutHint

	// Nodes are the clients of every Redis node the lock is taken on,
	// node 0 (Redis) first: one for the lock on one Redis, N for a lock
	// over N nodes (--redis-nodes). A lock library that takes a client
	// per node takes them all (redsync.New with goredis.NewPool of each);
	// hammer's own lock has them in Locker.
	Nodes []redis.UniversalClient

	// Lock, if set, is the lock of the modes with a lock: a lock library
	// (internal/locks) instead of hammer's own. Mode fenced takes
	// hammer's own whatever is given: only it hands out fencing tokens
	// (scenarios.Lock.CheckMode refuses a library there).
	Lock Lock
}

// New returns the contender of a mode.
func New(mode scenarios.Mode, d Deps) *Contender {
	c := &Contender{Mode: mode, Sector: d.Sector, Faults: d.Faults, World: d.World}
	own := &RedisLock{Locker: d.Locker, Key: d.LockKey, TTL: d.LockTTL, Wait: d.LockWait}
	var lock Lock = own
	if d.Lock != nil {
		lock = d.Lock
	}
	switch mode {
	case scenarios.None:
		c.Sell = d.Store.SellReadWrite
	case scenarios.LockOnly:
		c.Lock, c.Sell = lock, d.Store.SellReadWrite
	case scenarios.UpdateOnly:
		c.Sell = d.Store.SellAtomic
	case scenarios.LockPlusUpdate:
		c.Lock, c.Sell = lock, d.Store.SellAtomic
	case scenarios.Fenced:
		own.FenceKey = d.FenceKey
		c.Lock, c.Sell = own, d.Store.SellFenced
	case scenarios.SkipLocked:
		c.Sell = d.Store.SellSkipLocked
	case scenarios.RedisGate:
		c.Sell = Gated(redisstock.New(d.Redis, d.StockKey), d.Store.SellAtomic)
	case scenarios.CounterOnly:
		c.Sell = Gated(redisstock.New(d.Redis, d.StockKey), d.Store.SellCounted)
	}
	if d.Extend && c.Lock != nil {
		c.ExtendEvery = d.LockTTL / 3
	}
	if c.Lock != nil && d.SoldOut != nil {
		c.SoldOut, own.SoldOut = d.SoldOut, d.SoldOut
		if c.Lock == Lock(own) && d.Locker != nil && d.Locker.Handoff(d.LockKey) {
			// hammer's own lock sends its whole line home at once.
			c.lined = own
			d.SoldOut.whenKnown(func() { d.Locker.Dismiss(d.LockKey, ErrHintedSoldOut) })
		}
	}
	return c
}

// Attempt makes one purchase and fills in a: its timestamps, outcome, seat
// and error. a must carry the run, mode, process, goroutine and request id.
//
// Its frame, acquire's and the lock's are kept small: in a race of many
// contenders that is not started with Begin (a fault's, say) tens of
// thousands of them may wait in them for the lock, each on a small
// goroutine stack (the sale runs in sell, on the stacks of the few that
// got the lock).
func (c *Contender) Attempt(ctx context.Context, a *history.Attempt, rng *rand.Rand) {
	a.Invoke = now()
	if c.Lock == nil {
		c.sell(ctx, a)
	} else if lease, ok := c.acquire(ctx, a, rng); ok {
		c.sellHolding(ctx, a, lease)
	}
	c.finish(a)
}

// finish stamps the end of attempt a and tells the faults it is over.
func (c *Contender) finish(a *history.Attempt) {
	a.Complete = now()
	if c.Faults != nil {
		c.Faults.Done(a)
	}
}

// sellHolding sells holding lease, keeps the lock alive while it does (see
// heartbeat) and releases it.
func (c *Contender) sellHolding(ctx context.Context, a *history.Attempt, lease hammerlock.Lease) {
	a.LockAcquired, a.Token = now(), lease.Fence
	if !lease.Sent.IsZero() {
		a.LockSent = lease.Sent.UnixNano()
	}
	stop := c.heartbeat(ctx, lease)
	defer func() {
		a.Extended, a.ExtendFailed = stop()
		c.release(ctx, a, lease)
	}()
	c.sell(ctx, a)
}

// sell tries to take a seat, with the lock held if the mode has one, and
// says the outcome in a.
func (c *Contender) sell(ctx context.Context, a *history.Attempt) {
	if err := c.at(ctx, a, Holding, nil); err != nil {
		// The fault counter at this point lives in Redis.
		a.Outcome, a.Err, a.Infra = history.Error, err.Error(), failed(history.ServerRedis, err)
		return
	}
	req := seatdb.Request{
		Sector:    c.Sector,
		RequestID: a.RequestID,
		Worker:    WorkerName(a.Proc, a.Goroutine),
		StartedAt: time.Unix(0, a.Invoke),
		Token:     a.Token,
		MidWrite: func(ctx context.Context, q seatdb.Querier) error {
			return c.at(ctx, a, MidWrite, q)
		},
	}
	a.DBStart = now()
	res, err := c.Sell(ctx, req)
	a.DBEnd = now()
	if res.Read != nil {
		a.ReadAt, a.ReadAvailable = res.ReadAt.UnixNano(), res.Read
	}
	switch {
	case err == nil:
		a.Outcome, a.Seat = history.Sold, res.Seat
	case errors.Is(err, seatdb.ErrSoldOut):
		a.Outcome = history.SoldOut
		if c.SoldOut != nil {
			_ = c.SoldOut.Set(ctx) // a hint that failed to spread only costs others a wait
		}
	case errors.Is(err, seatdb.ErrFenced), errors.Is(err, seatdb.ErrDuplicate):
		a.Outcome, a.Err = history.Rejected, err.Error()
	default:
		a.Outcome, a.Err, a.Infra = history.Error, err.Error(), failed(saleServer(err), err)
	}
	if err := c.at(ctx, a, AfterWrite, nil); err != nil && a.Err == "" {
		a.Err = err.Error()
	}
}

// acquire takes the lock for attempt a; ok is false when it did not, with
// a's outcome said. A contender that learns from the sold-out hint that the
// sector sold out answers "sold out" without the lock: before it waits, or
// while it does (the hint dismisses the line of hammer's own lock, and
// ends the wait's context of a lock library).
func (c *Contender) acquire(ctx context.Context, a *history.Attempt, rng *rand.Rand) (hammerlock.Lease, bool) {
	if c.SoldOut != nil && c.SoldOut.Known() {
		a.Outcome, a.Hinted = history.SoldOut, true
		return hammerlock.Lease{}, false
	}
	if c.SoldOut != nil && c.Lock != c.lined {
		// A library's waiters learn of it from the contender alone:
		// before they try, and while they wait.
		return c.acquireBound(ctx, a, rng)
	}
	lease, err := c.Lock.Acquire(ctx, rng, c.gap(a))
	return lease, c.acquired(ctx, ctx, a, err)
}

// acquireBound is acquire with the wait's context ended by the sold-out
// hint.
func (c *Contender) acquireBound(ctx context.Context, a *history.Attempt, rng *rand.Rand) (hammerlock.Lease, bool) {
	actx, stop := c.SoldOut.Bind(ctx)
	defer stop()
	lease, err := c.Lock.Acquire(actx, rng, c.gap(a))
	return lease, c.acquired(ctx, actx, a, err)
}

// gap is the fault point inside a lock acquisition of several commands;
// without faults, one that does nothing and costs the attempt nothing.
func (c *Contender) gap(a *history.Attempt) func(context.Context) error {
	if c.Faults == nil {
		return noGap
	}
	return func(ctx context.Context) error { return c.at(ctx, a, AcquireGap, nil) }
}

// noGap is the gap of a contender without faults.
func noGap(context.Context) error { return nil }

// acquired says whether the lock was taken (err nil), and otherwise says
// why not in a's outcome; actx is the wait's context, bound to the hint
// or ctx itself.
func (c *Contender) acquired(ctx, actx context.Context, a *history.Attempt, err error) bool {
	hinted := errors.Is(err, ErrHintedSoldOut) || errors.Is(context.Cause(actx), ErrHintedSoldOut)
	switch {
	case err == nil:
		return true
	case hinted && ctx.Err() == nil:
		a.Outcome, a.Hinted = history.SoldOut, true
	case errors.Is(err, hammerlock.ErrTimeout):
		a.Outcome = history.LockTimeout
	default:
		a.Outcome, a.Err, a.Infra = history.Error, err.Error(), failed(history.ServerRedis, err)
	}
	return false
}

// failed names server when err is an infrastructure failure, else "".
func failed(server string, err error) string {
	if health.Failure(err) {
		return server
	}
	return ""
}

func (c *Contender) at(ctx context.Context, a *history.Attempt, p Point, q seatdb.Querier) error {
	if c.Faults == nil {
		return nil
	}
	return c.Faults.At(ctx, a, p, q)
}

// heartbeat extends the lock every ExtendEvery until the returned stop is
// called; stop says when the last extension succeeded and when the first
// one failed (0: never), so that a lock lost despite its heartbeat can be
// told from a heartbeat that never ran. Without ExtendEvery it does
// nothing.
func (c *Contender) heartbeat(ctx context.Context, lease hammerlock.Lease) (stop func() (extended, failed int64)) {
	if c.ExtendEvery <= 0 {
		return func() (int64, int64) { return 0, 0 }
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	var extended, failedAt int64 // the goroutine's until finished is closed
	go func() {
		defer close(finished)
		t := time.NewTicker(c.ExtendEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if c.World != nil {
					c.World.RLock()
				}
				at := now()
				ours, err := c.Lock.Extend(ctx, lease)
				if c.World != nil {
					c.World.RUnlock()
				}
				switch {
				case err == nil && ours:
					extended = at
				case failedAt == 0:
					failedAt = at
				}
				if err == nil && !ours {
					return // lost: nothing left to extend
				}
			}
		}
	}()
	return func() (int64, int64) {
		close(done)
		<-finished
		return extended, failedAt
	}
}

// release gives the lock back. A failed release does not change the
// attempt's outcome (the sale is decided by then) but is recorded.
func (c *Contender) release(ctx context.Context, a *history.Attempt, lease hammerlock.Lease) {
	a.LockReleasing = now()
	ours, err := c.Lock.Release(context.WithoutCancel(ctx), lease)
	a.LockReleased = now()
	switch {
	case err != nil && a.Err == "":
		a.Err = err.Error()
	case err == nil && !ours:
		a.LockLost = true
	}
}

// WorkerName names a contender in the ledger: process and goroutine.
func WorkerName(proc, goroutine int) string {
	return "p" + strconv.Itoa(proc) + "-g" + strconv.Itoa(goroutine)
}

func now() int64 { return time.Now().UnixNano() }

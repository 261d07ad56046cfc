// Package strategy is what one contender does in each mode: take the lock if
// the mode has one, try to take a seat, release the lock, and stamp every
// phase of the attempt on its history record.
package strategy

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/inventory"
	"github.com/hammer-load/hammer/internal/redislock"
	"github.com/hammer-load/hammer/scenarios"
)

// Contender holds what every attempt of one mode needs.
type Contender struct {
	Mode     scenarios.Mode
	Locker   *redislock.Locker
	Store    *inventory.Store
	Sector   int
	LockKey  string
	LockTTL  time.Duration
	LockWait time.Duration
}

// Attempt makes one purchase and fills in a: its timestamps, outcome, seat
// and error. a must carry the run, mode, process, goroutine and request id.
func (c *Contender) Attempt(ctx context.Context, a *history.Attempt, rng *rand.Rand) {
	a.Invoke = now()
	defer func() { a.Complete = now() }()
	if c.Mode.UsesLock() {
		lease, err := c.Locker.Acquire(ctx, c.LockKey, c.LockTTL, c.LockWait, rng)
		if err != nil {
			if errors.Is(err, redislock.ErrTimeout) {
				a.Outcome = history.LockTimeout
			} else {
				a.Outcome, a.Err = history.Error, err.Error()
			}
			return
		}
		a.LockAcquired = now()
		defer c.release(ctx, a, lease)
	}
	req := inventory.Request{
		Sector:    c.Sector,
		RequestID: a.RequestID,
		Worker:    WorkerName(a.Proc, a.Goroutine),
		StartedAt: time.Unix(0, a.Invoke),
	}
	sell := c.Store.SellAtomic
	if c.Mode == scenarios.None || c.Mode == scenarios.LockOnly {
		sell = c.Store.SellReadWrite
	}
	a.DBStart = now()
	seat, err := sell(ctx, req)
	a.DBEnd = now()
	switch {
	case err == nil:
		a.Outcome, a.Seat = history.Sold, seat
	case errors.Is(err, inventory.ErrSoldOut):
		a.Outcome = history.SoldOut
	default:
		a.Outcome, a.Err = history.Error, err.Error()
	}
}

// release gives the lock back. A failed release does not change the
// attempt's outcome (the sale is decided by then) but is recorded.
func (c *Contender) release(ctx context.Context, a *history.Attempt, lease redislock.Lease) {
	ours, err := c.Locker.Release(context.WithoutCancel(ctx), lease)
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

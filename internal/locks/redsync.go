package locks

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/strategy"
)

// Redsync is github.com/go-redsync/redsync/v4: one Mutex per acquisition,
// with the library's defaults (32 tries, a random 50–250 ms delay between
// them, its drift and per-try timeout factors of the expiry) and the
// race's TTL as its expiry. A contender gives up when redsync does, after
// its tries, or when the lock wait ends, whichever comes first. Its delays
// come from redsync's own random source, not from the race's seed.
type Redsync struct {
	rs *redsync.Redsync
	s  Settings
}

var _ strategy.Lock = (*Redsync)(nil)

// NewRedsync returns redsync over the Redis nodes, one pool each.
func NewRedsync(nodes []redis.UniversalClient, s Settings) *Redsync {
	pools := make([]redsyncredis.Pool, len(nodes))
	for i, n := range nodes {
		pools[i] = goredis.NewPool(n)
	}
	return &Redsync{rs: redsync.New(pools...), s: s}
}

// Acquire locks a new Mutex on the race's key with LockContext, bounded
// by the lock wait. Redsync giving up is hammerlock.ErrTimeout: its tries
// spent with the lock still taken, or its last try out of the time
// redsync gives each try (5% of the expiry: 25 ms for a 500 ms TTL, spent
// waiting for a connection of the worker's pool as much as on Redis), a
// timeout of redsync's own while Redis answers, not a failing Redis (a
// Redis that stops answering is seen by the race's health watch). The rng
// and the gap are not used: the library has its own random delays and
// one command per try.
func (l *Redsync) Acquire(ctx context.Context, _ *rand.Rand, _ func(context.Context) error) (hammerlock.Lease, error) {
	m := l.rs.NewMutex(l.s.Key, redsync.WithExpiry(l.s.TTL))
	wctx, cancel := context.WithTimeout(ctx, l.s.Wait)
	defer cancel()
	err := m.LockContext(wctx)
	switch {
	case err == nil:
		// redsync dates the lock from the start of the try that took it:
		// Until is that start plus the expiry less its drift allowance, so
		// Until less the expiry is no later than the try was sent.
		return hammerlock.Lease{Key: l.s.Key, Token: m.Value(), Held: m, Sent: m.Until().Add(-l.s.TTL)}, nil
	case ctx.Err() != nil:
		return hammerlock.Lease{}, ctx.Err()
	case wctx.Err() != nil, gaveUp(err):
		return hammerlock.Lease{}, fmt.Errorf("redsync gave up: %w (%v)", hammerlock.ErrTimeout, err)
	}
	return hammerlock.Lease{}, fmt.Errorf("redsync lock: %w", err)
}

// Release unlocks the lease's Mutex with UnlockContext; false when the key
// held another token, or none.
func (l *Redsync) Release(ctx context.Context, lease hammerlock.Lease) (bool, error) {
	m, err := mutex(lease)
	if err != nil {
		return false, err
	}
	ours, err := m.UnlockContext(ctx)
	return held("unlock", ours, err)
}

// Extend resets the lease's expiry with the Mutex's ExtendContext; false
// when the key held another token, or none.
func (l *Redsync) Extend(ctx context.Context, lease hammerlock.Lease) (bool, error) {
	m, err := mutex(lease)
	if err != nil {
		return false, err
	}
	ours, err := m.ExtendContext(ctx)
	return held("extend", ours, err)
}

// held maps what UnlockContext or ExtendContext said onto Release's and
// Extend's answer: true when done, false when the key held another token
// or none, else the error, named after op.
func held(op string, ours bool, err error) (bool, error) {
	switch {
	case ours:
		return true, nil
	case notOurs(err):
		return false, nil
	}
	return false, fmt.Errorf("redsync %s: %w", op, err)
}

// mutex is the Mutex a lease of Redsync holds.
func mutex(lease hammerlock.Lease) (*redsync.Mutex, error) {
	m, ok := lease.Held.(*redsync.Mutex)
	if !ok {
		return nil, fmt.Errorf("redsync: the lease of %s was not handed out by redsync", lease.Key)
	}
	return m, nil
}

// gaveUp reports whether redsync's LockContext gave up on a lock others
// held (ErrFailed, or ErrTaken from its last try) or its last try ran out
// of its own time (a node's context.DeadlineExceeded).
func gaveUp(err error) bool {
	return errors.Is(err, redsync.ErrFailed) || taken(err) || errors.Is(err, context.DeadlineExceeded)
}

// taken reports whether redsync found the lock held by others on a quorum
// of nodes.
func taken(err error) bool {
	var t *redsync.ErrTaken
	return errors.As(err, &t)
}

// notOurs reports whether a failed unlock or extension means the lock was
// no longer ours: a quorum of nodes held another token, or the key was
// gone with no node failing. A node that failed makes it an error.
func notOurs(err error) bool {
	var failed *redsync.RedisError
	switch {
	case err == nil, taken(err):
		return true
	case errors.As(err, &failed):
		return false
	}
	return errors.Is(err, redsync.ErrLockAlreadyExpired)
}

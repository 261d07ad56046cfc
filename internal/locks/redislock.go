package locks

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	bsmlock "github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/strategy"
)

// RedislockRetry is the pause between two tries of bsm/redislock. Its
// default is to try once and give up: a race of many contenders for one
// sector would then be a race for the first free instant of the lock,
// nearly everyone would give up at once, the sector would not sell out
// and no waiter would be there to take the lock from a paused holder, so
// the faults would show nothing. It gets the linear retry of its
// examples, at 10 ms (hammer's own waiters back off between 1 and 16 ms),
// bounded by the race's lock wait as its context deadline, as in the
// bench (internal/bench): only the retry policy differs from hammer's.
const RedislockRetry = 10 * time.Millisecond

// Redislock is github.com/bsm/redislock: Obtain with a linear
// RedislockRetry for up to the lock wait, the race's TTL, and the lock's
// own Release and Refresh.
type Redislock struct {
	client *bsmlock.Client
	s      Settings
}

var _ strategy.Lock = (*Redislock)(nil)

// NewRedislock returns bsm/redislock over one Redis node.
func NewRedislock(rdb redis.UniversalClient, s Settings) *Redislock {
	return &Redislock{client: bsmlock.New(rdb), s: s}
}

// Acquire obtains the lock on the race's key, one try of the library's
// Obtain every RedislockRetry until the lock wait ends
// (hammerlock.ErrTimeout): the library's linear retry, looped here so that
// the try that took the lock is dated (Lease.Sent). The library gives up
// at the first error of a try, which is returned as it is; the rng and
// the gap are not used.
func (l *Redislock) Acquire(ctx context.Context, _ *rand.Rand, _ func(context.Context) error) (hammerlock.Lease, error) {
	wctx, cancel := context.WithTimeout(ctx, l.s.Wait)
	defer cancel()
	pause := time.NewTimer(0)
	defer pause.Stop()
	for {
		sent := time.Now()
		lock, err := l.client.Obtain(wctx, l.s.Key, l.s.TTL, nil) // nil: one try
		switch {
		case err == nil:
			return hammerlock.Lease{Key: l.s.Key, Token: lock.Token(), Held: lock, Sent: sent}, nil
		case ctx.Err() != nil:
			return hammerlock.Lease{}, ctx.Err()
		case wctx.Err() != nil:
			return hammerlock.Lease{}, fmt.Errorf("redislock gave up: %w (%v)", hammerlock.ErrTimeout, err)
		case !errors.Is(err, bsmlock.ErrNotObtained):
			return hammerlock.Lease{}, fmt.Errorf("redislock obtain: %w", err)
		}
		pause.Reset(RedislockRetry)
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return hammerlock.Lease{}, ctx.Err()
			}
			return hammerlock.Lease{}, fmt.Errorf("redislock gave up: %w (%v)", hammerlock.ErrTimeout, bsmlock.ErrNotObtained)
		case <-pause.C:
		}
	}
}

// Release releases the lease's lock; false when the key held another
// token, or none (ErrLockNotHeld).
func (l *Redislock) Release(ctx context.Context, lease hammerlock.Lease) (bool, error) {
	lock, err := bsmLock(lease)
	if err != nil {
		return false, err
	}
	return answered("release", lock.Release(ctx), bsmlock.ErrLockNotHeld)
}

// Extend refreshes the lease's lock to the race's TTL; false when the key
// held another token, or none (ErrNotObtained).
func (l *Redislock) Extend(ctx context.Context, lease hammerlock.Lease) (bool, error) {
	lock, err := bsmLock(lease)
	if err != nil {
		return false, err
	}
	return answered("refresh", lock.Refresh(ctx, l.s.TTL, nil), bsmlock.ErrNotObtained)
}

// answered maps what bsm/redislock's op said onto Release's and Extend's
// answer: true when done, false when it answered notOurs (the key held
// another token, or none), else the error, named after op.
func answered(op string, err, notOurs error) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, notOurs):
		return false, nil
	}
	return false, fmt.Errorf("redislock %s: %w", op, err)
}

// bsmLock is the lock a lease of Redislock holds.
func bsmLock(lease hammerlock.Lease) (*bsmlock.Lock, error) {
	lock, ok := lease.Held.(*bsmlock.Lock)
	if !ok {
		return nil, fmt.Errorf("redislock: the lease of %s was not handed out by bsm/redislock", lease.Key)
	}
	return lock, nil
}

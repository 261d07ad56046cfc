package strategy

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/hammer-load/hammer/internal/hammerlock"
)

// RedisLock is the lock under test: SET NX PX with a random token, released
// by the owner-checked script, optionally handing out fencing tokens.
type RedisLock struct {
	Locker *hammerlock.Locker
	Key    string
	// FenceKey, if set, makes the lock fenced: every acquisition also
	// increments this counter and the lease carries the new value.
	FenceKey string
	TTL      time.Duration
	Wait     time.Duration
	// SoldOut, if set, is read when the head of the line's first try
	// found the lock taken: a sold-out sector dismisses the line (see
	// New), which ends this wait too.
	SoldOut *SoldOutHint
}

var _ Lock = (*RedisLock)(nil)

// Acquire takes the lock, retrying for up to Wait.
func (l *RedisLock) Acquire(ctx context.Context, rng *rand.Rand, _ func(context.Context) error) (hammerlock.Lease, error) {
	return l.Locker.Retry(ctx, l.Key, l.Wait, rng, l.claim(), l.tries(ctx))
}

// Join puts a waiter for the lock in its line without a goroutine waiting
// there (hammerlock.Locker.Join); false when the lock has no line.
func (l *RedisLock) Join(ctx context.Context, turn func(hammerlock.Ticket)) bool {
	return l.Locker.Join(ctx, l.Key, l.Wait, l.claim(), turn)
}

// Resume takes the lock for the waiter of t, whose turn came, as Acquire
// does once it has waited (hammerlock.Locker.Resume).
func (l *RedisLock) Resume(ctx context.Context, t hammerlock.Ticket, rng *rand.Rand) (hammerlock.Lease, error) {
	return l.Locker.Resume(ctx, t, rng, l.tries(ctx))
}

// claim is how a releasing holder takes the lock for a waiter of this
// lock (hammerlock.Claim).
func (l *RedisLock) claim() *hammerlock.Claim {
	return &hammerlock.Claim{TTL: l.TTL, FenceKey: l.FenceKey}
}

// tries is one waiter's try at the lock, for Retry or Resume to repeat.
func (l *RedisLock) tries(ctx context.Context) func() (hammerlock.Lease, bool, error) {
	tries := 0
	return func() (hammerlock.Lease, bool, error) {
		if tries > 0 && l.SoldOut != nil && l.SoldOut.Known() {
			// Sold out: the line is about to be dismissed; no need to take the lock.
			return hammerlock.Lease{}, false, nil
		}
		lease, ok, err := l.try(ctx)
		if tries++; tries == 1 && !ok && err == nil && l.SoldOut != nil {
			l.SoldOut.Seen(ctx) // if sold out, the line is dismissed and the wait ends
		}
		return lease, ok, err
	}
}

// try makes one attempt at the lock, fenced or not.
func (l *RedisLock) try(ctx context.Context) (hammerlock.Lease, bool, error) {
	if l.FenceKey != "" {
		return l.Locker.TryAcquireFenced(ctx, l.Key, l.FenceKey, l.TTL)
	}
	return l.Locker.TryAcquire(ctx, l.Key, l.TTL)
}

// Release deletes the lock if it is still ours.
func (l *RedisLock) Release(ctx context.Context, lease hammerlock.Lease) (bool, error) {
	return l.Locker.Release(ctx, lease)
}

// Extend resets the TTL if the lock is still ours.
func (l *RedisLock) Extend(ctx context.Context, lease hammerlock.Lease) (bool, error) {
	return l.Locker.Extend(ctx, lease, l.TTL)
}

// Package redislock is the single-instance Redis lock hammer puts under test:
// acquire with SET key token NX PX ttl, release with a Lua script that deletes
// the key only while it still holds the caller's token.
//
// The lock is contention management, not a correctness guarantee: a holder
// that pauses past its TTL, or a Redis that loses the key, lets a second
// holder in. hammer exists to show exactly that.
package redislock

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/fixtures"
)

// ErrTimeout is returned by Acquire when the lock stayed taken for the whole wait.
var ErrTimeout = errors.New("lock wait timed out")

// Backoff bounds the sleep between two tries of a contended lock.
type Backoff struct {
	Min, Max time.Duration
}

// DefaultBackoff starts at one millisecond and doubles up to 16 ms, which
// keeps a thousand waiters from flooding a local Redis.
func DefaultBackoff() Backoff {
	return Backoff{Min: time.Millisecond, Max: 16 * time.Millisecond}
}

// Locker takes and releases locks on one Redis.
type Locker struct {
	rdb     redis.Cmdable
	release *redis.Script
	backoff Backoff
}

// New returns a Locker over rdb that waits with the given backoff.
func New(rdb redis.Cmdable, b Backoff) *Locker {
	return &Locker{rdb: rdb, release: redis.NewScript(fixtures.ReleaseScript()), backoff: b}
}

// Ping checks that Redis answers, opening a connection if none is idle.
func (l *Locker) Ping(ctx context.Context) error { return l.rdb.Ping(ctx).Err() }

// Lease is a held lock: the key and the token that proves ownership.
type Lease struct {
	Key   string
	Token string
}

// TryAcquire makes one SET NX PX attempt. ok is false when someone else holds the key.
func (l *Locker) TryAcquire(ctx context.Context, key string, ttl time.Duration) (Lease, bool, error) {
	token, err := newToken()
	if err != nil {
		return Lease{}, false, err
	}
	err = l.rdb.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return Lease{}, false, nil
	case err != nil:
		return Lease{}, false, fmt.Errorf("acquire %s: %w", key, err)
	}
	return Lease{Key: key, Token: token}, true, nil
}

// Acquire retries TryAcquire with jittered exponential backoff until it gets
// the lock, wait has passed (ErrTimeout), or ctx ends. rng supplies the
// jitter so that a seeded run backs off the same way every time.
func (l *Locker) Acquire(ctx context.Context, key string, ttl, wait time.Duration, rng *rand.Rand) (Lease, error) {
	deadline := time.Now().Add(wait)
	sleep := l.backoff.Min
	for {
		lease, ok, err := l.TryAcquire(ctx, key, ttl)
		if err != nil || ok {
			return lease, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return Lease{}, ErrTimeout
		}
		t := time.NewTimer(min(jitter(sleep, rng), left))
		select {
		case <-ctx.Done():
			t.Stop()
			return Lease{}, ctx.Err()
		case <-t.C:
		}
		sleep = min(sleep*2, l.backoff.Max)
	}
}

// Release deletes the lock only if it still holds the lease's token. It
// reports whether the key was ours; false means the lock had expired and
// may have been taken by someone else meanwhile.
func (l *Locker) Release(ctx context.Context, lease Lease) (bool, error) {
	n, err := l.release.Run(ctx, l.rdb, []string{lease.Key}, lease.Token).Int()
	if err != nil {
		return false, fmt.Errorf("release %s: %w", lease.Key, err)
	}
	return n == 1, nil
}

// jitter returns a duration in [d/2, d], so waiters that collided once spread out.
func jitter(d time.Duration, rng *rand.Rand) time.Duration {
	half := int64(d / 2)
	if rng == nil {
		return time.Duration(half + rand.Int64N(half+1))
	}
	return time.Duration(half + rng.Int64N(half+1))
}

func newToken() (string, error) {
	var b [16]byte
	if _, err := cryptorand.Read(b[:]); err != nil {
		return "", fmt.Errorf("lock token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

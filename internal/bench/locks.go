package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/locks"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/scenarios"
)

// The settings of the lock libraries in the bench's races, through the
// adapters hammer races them with (internal/locks): redsync keeps its
// defaults, its 8 s expiry included (32 tries, a random 50–250 ms delay
// between them); bsm/redislock gets its linear retry (locks.RedislockRetry),
// hammer's lock TTL and hammer's lock wait, so that it waits as long as
// hammer's contenders do and only its retry policy differs. redsync's
// tries end long before the wait does.
const (
	redsyncExpiry = 8 * time.Second
	bsmTTL        = scenarios.StallProofTTL
	libraryWait   = time.Minute // hammer's default --lock-wait
)

// libraryLock is a lock library as a bench contender uses it.
type libraryLock struct {
	name string
	lock strategy.Lock
}

// newRedsync is the lockFactory of redsync.
func newRedsync(rdb *redis.Client, key string) raceLock {
	s := locks.Settings{Key: key, TTL: redsyncExpiry, Wait: libraryWait}
	return libraryLock{name: "redsync", lock: locks.NewRedsync([]redis.UniversalClient{rdb}, s)}
}

// newBSM is the lockFactory of bsm/redislock.
func newBSM(rdb *redis.Client, key string) raceLock {
	s := locks.Settings{Key: key, TTL: bsmTTL, Wait: libraryWait}
	return libraryLock{name: "bsm/redislock", lock: locks.NewRedislock(rdb, s)}
}

// acquire takes the lock, or says that the library gave up (errGaveUp).
func (l libraryLock) acquire(ctx context.Context) (func(context.Context) error, error) {
	lease, err := l.lock.Acquire(ctx, nil, nil)
	switch {
	case errors.Is(err, hammerlock.ErrTimeout):
		return nil, fmt.Errorf("%s: %w", l.name, errGaveUp)
	case err != nil:
		return nil, fmt.Errorf("%s lock: %w", l.name, err)
	}
	return func(ctx context.Context) error {
		ours, err := l.lock.Release(ctx, lease)
		if err == nil && !ours {
			err = fmt.Errorf("%s unlock: lock no longer ours", l.name)
		}
		return err
	}, nil
}

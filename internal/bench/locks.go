package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	bsmlock "github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/scenarios"
)

// redsyncLock is redsync with its defaults: 32 tries, a random 50–250 ms
// delay between them, an 8 s expiry.
type redsyncLock struct {
	rs  *redsync.Redsync
	key string
}

// newRedsync is the lockFactory of redsync.
func newRedsync(rdb *redis.Client, key string) raceLock {
	return redsyncLock{rs: redsync.New(goredis.NewPool(rdb)), key: key}
}

func (l redsyncLock) acquire(ctx context.Context) (func(context.Context) error, error) {
	m := l.rs.NewMutex(l.key)
	if err := m.LockContext(ctx); err != nil {
		var taken *redsync.ErrTaken
		var nodeTaken *redsync.ErrNodeTaken
		if errors.Is(err, redsync.ErrFailed) || errors.As(err, &taken) || errors.As(err, &nodeTaken) {
			return nil, fmt.Errorf("redsync: %w", errGaveUp)
		}
		return nil, fmt.Errorf("redsync lock: %w", err)
	}
	return func(ctx context.Context) error {
		ok, err := m.UnlockContext(ctx)
		if err == nil && !ok {
			err = errors.New("redsync unlock: lock no longer ours")
		}
		return err
	}, nil
}

// bsmRetry and bsmWait are bsm/redislock's settings: its default is to
// try once and give up, which turns a race for 100 seats into a race for
// the first free moment of the lock, so the sector would not sell out.
// It gets the linear 10 ms retry of its own examples and hammer's lock wait
// and TTL, so that it waits as long as hammer's contenders do.
const (
	bsmRetry = 10 * time.Millisecond
	bsmWait  = time.Minute // hammer's default --lock-wait
	bsmTTL   = scenarios.StallProofTTL
)

// bsmLock is bsm/redislock with a linear 10 ms retry for up to bsmWait.
type bsmLock struct {
	client *bsmlock.Client
	key    string
}

// newBSM is the lockFactory of bsm/redislock.
func newBSM(rdb *redis.Client, key string) raceLock {
	return bsmLock{client: bsmlock.New(rdb), key: key}
}

func (l bsmLock) acquire(ctx context.Context) (func(context.Context) error, error) {
	wctx, cancel := context.WithTimeout(ctx, bsmWait)
	defer cancel()
	lock, err := l.client.Obtain(wctx, l.key, bsmTTL, &bsmlock.Options{RetryStrategy: bsmlock.LinearBackoff(bsmRetry)})
	switch {
	case errors.Is(err, bsmlock.ErrNotObtained), ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("bsm/redislock: %w", errGaveUp)
	case err != nil:
		return nil, fmt.Errorf("bsm/redislock obtain: %w", err)
	}
	return lock.Release, nil
}

// Package redisstock is the Redis stock counter of the modes that admit
// contenders through one (redis-gate, counter-only): a key under the run's
// prefix, seeded with the seats at set-up, from which each contender takes
// one seat with an atomic decrement-if-positive.
package redisstock

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/fixtures"
)

// ErrMissing means the counter's key does not exist (Redis lost it): it
// admits nobody until it is seeded again.
var ErrMissing = errors.New("stock counter missing")

// Counter is one stock counter on one Redis.
type Counter struct {
	rdb  redis.Cmdable
	key  string
	take *redis.Script
}

// New returns the counter at key on rdb.
func New(rdb redis.Cmdable, key string) *Counter {
	return &Counter{rdb: rdb, key: key, take: redis.NewScript(fixtures.StockTakeScript())}
}

// Key is the counter's Redis key.
func (c *Counter) Key() string { return c.key }

// Seed sets the counter to seats, whatever it held.
func (c *Counter) Seed(ctx context.Context, seats int) error {
	if err := c.rdb.Set(ctx, c.key, seats, 0).Err(); err != nil {
		return fmt.Errorf("seed stock counter: %w", err)
	}
	return nil
}

// Left reads what the counter holds; ErrMissing when its key is gone.
func (c *Counter) Left(ctx context.Context) (int64, error) {
	n, err := c.rdb.Get(ctx, c.key).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		return 0, ErrMissing
	case err != nil:
		return 0, fmt.Errorf("read stock counter: %w", err)
	}
	return n, nil
}

// Take takes one seat if one is left. ok is false when none was; left is
// what the counter holds after the take (so the take handed out seat
// seats-left of a counter seeded with seats).
func (c *Counter) Take(ctx context.Context) (left int64, ok bool, err error) {
	n, err := c.take.Run(ctx, c.rdb, []string{c.key}).Int64()
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("take from stock counter: %w", err)
	case n == -2:
		return 0, false, ErrMissing
	case n < 0:
		return 0, false, nil
	}
	return n, true, nil
}

// SeedAt seeds the counter at key on the Redis at redisURL with seats,
// over a connection of its own.
func SeedAt(ctx context.Context, redisURL, key string, seats int) error {
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return fmt.Errorf("redis url: %w", err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	return New(rdb, key).Seed(ctx, seats)
}

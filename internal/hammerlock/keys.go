package hammerlock

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// DeleteAll removes every key under prefix from the Redis at rawURL, and
// nothing else: the clean-up of a run's locks, fencing counters and fault
// counters. What it could not remove it reports, naming it. A Redis that
// does not answer is waited for until ctx ends.
func DeleteAll(ctx context.Context, rawURL, prefix string) error {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return err
	}
	opt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	var errs []error
	iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		if err := rdb.Del(ctx, iter.Val()).Err(); err != nil {
			errs = append(errs, fmt.Errorf("clean-up left key %s: %w", iter.Val(), err))
		}
	}
	if err := iter.Err(); err != nil {
		errs = append(errs, fmt.Errorf("clean-up could not list keys %s*: %w", prefix, err))
	}
	return errors.Join(errs...)
}

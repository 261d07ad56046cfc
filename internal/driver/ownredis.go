package driver

import (
	"context"
	"fmt"

	"github.com/hammer-load/hammer/internal/stack"
)

// ownRedis gives the race a Redis of its own when o asks for one
// (Options.OwnRedis): a throw-away redis-server that the race's clients,
// faults and clean-up use instead of the stack's, managed (lock-loss
// restarts it for real). It returns the options pointed at it and what
// stops it, which the caller runs on every exit path; without OwnRedis, o
// unchanged and a stop that does nothing.
func ownRedis(ctx context.Context, o Options) (Options, func() error, error) {
	if !o.OwnRedis {
		return o, func() error { return nil }, nil
	}
	own, err := stack.StartRedis(ctx, nil)
	if err != nil {
		return o, nil, fmt.Errorf("start the race's own Redis: %w", err)
	}
	o.RedisURL, o.RedisPeers, o.Managed = own.RedisURL, nil, own
	return o, func() error {
		if err := own.Close(); err != nil {
			return fmt.Errorf("stop the race's own Redis: %w", err)
		}
		return nil
	}, nil
}

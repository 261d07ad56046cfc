// Package locks puts published Redis lock libraries behind hammer's lock
// interface (strategy.Lock), so that the same modes, faults and verifier
// judge them as they judge hammer's own lock: a lock is chosen by name
// (scenarios.Lock) and built from the worker's Redis client.
//
// Each library is used the way its documentation shows, with its own
// defaults for everything that does not depend on the race's lock TTL;
// the race gives it the lock key (so the faults find the holder), the TTL
// and the lock wait. What the library says maps onto hammer's outcomes:
// a lock it gave up on is hammerlock.ErrTimeout (the lock_timeout outcome),
// a lock that was no longer ours on release or extension is false, and
// anything else is an error (a failing Redis is the world's failure, as
// for hammer's lock).
//
// hammer's own lock is not built here: strategy.New builds it when
// strategy.Deps.Lock is nil, with the handoff line and fencing tokens the
// libraries do not have.
package locks

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/scenarios"
)

// Settings are what a library lock takes from the race.
type Settings struct {
	// Key is the race's lock key: the library keeps its holder's token
	// under it, where the faults look for the holder.
	Key string
	// TTL is the lock's time to live (the race's --lock-ttl).
	TTL time.Duration
	// Wait bounds how long a contender waits for the lock before giving up
	// (the race's --lock-wait); a library may give up sooner on its own.
	Wait time.Duration
}

// New returns the lock library named l over the Redis nodes, one client
// each, node 0 first: redsync takes the lock on a majority of them (its
// Redlock), bsm/redislock works on one Redis only.
func New(l scenarios.Lock, nodes []redis.UniversalClient, s Settings) (strategy.Lock, error) {
	switch {
	case len(nodes) == 0:
		return nil, fmt.Errorf("lock %s: no Redis node", l)
	case l == scenarios.Redsync:
		return NewRedsync(nodes, s), nil
	case l == scenarios.Redislock && len(nodes) != 1:
		return nil, fmt.Errorf("lock %s works on one Redis node, got %d", l, len(nodes))
	case l == scenarios.Redislock:
		return NewRedislock(nodes[0], s), nil
	}
	return nil, fmt.Errorf("lock %q is not a lock library (want %s or %s)", l, scenarios.Redsync, scenarios.Redislock)
}

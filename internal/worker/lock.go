package worker

import (
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/locks"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/internal/wire"
)

// newLocker is the worker's client of hammer's own lock: in the modes
// with a lock, unless a lock library takes its place, its waiters wait in
// line and wake when the lock is released; with peers, the lock is a
// Redlock over rdb (node 0) and them.
func newLocker(cfg wire.Config, rdb *redis.Client, peers []*redis.Client) *hammerlock.Locker {
	l := hammerlock.New(rdb, hammerlock.DefaultBackoff()).WithPeers(cmdables(peers)...)
	if handoff(cfg) {
		return l.WithHandoff(cfg.LockKey)
	}
	return l
}

// handoff reports whether the race's waiters wait in line for hammer's
// own lock and are woken by its releases: a lock library's waiters poll
// the way the library does.
func handoff(cfg wire.Config) bool { return cfg.Lock.Handoff(cfg.Mode) }

// newLock is the lock library the race names, over the worker's Redis
// client of every node (node 0 first); nil for hammer's own lock, which strategy.New builds.
func newLock(cfg wire.Config, nodes []redis.UniversalClient) (strategy.Lock, error) {
	if err := cfg.Lock.CheckMode(cfg.Mode); err != nil || !cfg.Lock.Library() {
		return nil, err
	}
	return locks.New(cfg.Lock, nodes, locks.Settings{Key: cfg.LockKey, TTL: cfg.LockTTL, Wait: cfg.LockWait})
}

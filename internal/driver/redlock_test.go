package driver_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/redislock"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

// TestRedlockNodeRestart races hammer's lock over five Redis nodes at the
// gate's sizes while a node of a holder's majority restarts without
// persistence: lock-only is caught (a second holder won a majority while
// the first still worked), lock-plus-update stays safe behind its
// conditional UPDATE. The fault says which nodes held the key, and the
// race leaves no key on any node.
func TestRedlockNodeRestart(t *testing.T) {
	for _, cell := range []scenarios.Scenario{
		{Mode: scenarios.LockOnly, Fault: scenarios.NodeRestart, Nodes: 5, Expected: scenarios.Unsafe},
		{Mode: scenarios.LockPlusUpdate, Fault: scenarios.NodeRestart, Nodes: 5, Expected: scenarios.Safe},
	} {
		cell = cell.Named()
		t.Run(cell.Name, func(t *testing.T) { raceRedlock(t, cell, "") })
	}
}

// TestRedsyncNodeRestart races redsync over the same five nodes instead
// of hammer's lock (planted into the workers of this test binary, as
// part 1's --lock redsync would wire it): the same timeline catches it.
func TestRedsyncNodeRestart(t *testing.T) {
	cell := scenarios.Scenario{Mode: scenarios.LockOnly, Fault: scenarios.NodeRestart, Nodes: 5, Expected: scenarios.Unsafe}.Named()
	raceRedlock(t, cell, "redsync")
}

// raceRedlock races cell over its Redis nodes, with plant in the workers
// if given, and checks its expectation, the fault's story and that no key
// is left on any node.
func raceRedlock(t *testing.T, cell scenarios.Scenario, plant string) {
	t.Helper()
	st := stacktest.Redlock(t, cell.Nodes)
	o := gateOptions(t, cell)
	if o.Managed == nil {
		t.Skip("node-restart restarts a Redis node: it needs the local stack")
	}
	o.RedisPeers, o.Plant = st.RedisPeers[:cell.Nodes-1], plant
	res, err := driver.Race(context.Background(), o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	v := check(res)
	if ok, reason := verify.Expect(v, cell.Expected); !ok {
		t.Errorf("%s", reason)
	}
	if len(res.Faults) != 1 || !strings.Contains(res.Faults[0].Detail, "restarted without persistence") ||
		!strings.Contains(res.Faults[0].Detail, "another contender took the lock on a majority") {
		t.Errorf("faults %+v; want one node restart and a new holder on a majority", res.Faults)
	}
	if res.Run.RedisNodes != cell.Nodes {
		t.Errorf("run records %d Redis nodes, want %d", res.Run.RedisNodes, cell.Nodes)
	}
	for i, u := range append([]string{o.RedisURL}, o.RedisPeers...) {
		opt, err := redis.ParseURL(u)
		if err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(opt)
		if keys, err := rdb.Keys(context.Background(), "hammer:"+o.RunID+":*").Result(); err != nil || len(keys) > 0 {
			t.Errorf("node %d: keys left after the race: %v (%v)", i, keys, err)
		}
		rdb.Close()
	}
}

// redsyncPlant takes the lock with redsync over every Redis node of the
// race (strategy.Deps.Nodes), behind strategy.Lock: one redsync pool per
// node's client, redsync's own retry delay, the race's TTL and lock wait.
func redsyncPlant(c *strategy.Contender, d strategy.Deps) {
	pools := make([]redsyncredis.Pool, len(d.Nodes))
	for i, n := range d.Nodes {
		pools[i] = goredis.NewPool(n)
	}
	c.Lock = &redsyncLock{rs: redsync.New(pools...), key: d.LockKey, ttl: d.LockTTL, wait: d.LockWait}
}

// redsyncLock is redsync behind strategy.Lock.
type redsyncLock struct {
	rs        *redsync.Redsync
	key       string
	ttl, wait time.Duration
}

var _ strategy.Lock = (*redsyncLock)(nil)

// Acquire locks with redsync until the lock wait has passed.
func (l *redsyncLock) Acquire(ctx context.Context, _ *rand.Rand, _ func(context.Context) error) (redislock.Lease, error) {
	wctx, cancel := context.WithTimeout(ctx, l.wait)
	defer cancel()
	m := l.rs.NewMutex(l.key, redsync.WithExpiry(l.ttl), redsync.WithTries(1<<30))
	if err := m.LockContext(wctx); err != nil {
		if ctx.Err() != nil {
			return redislock.Lease{}, ctx.Err()
		}
		return redislock.Lease{}, redislock.ErrTimeout
	}
	return redislock.Lease{Key: l.key, Token: m.Value(), Until: m.Until()}, nil
}

// Release unlocks on every node; false when a majority no longer held it.
func (l *redsyncLock) Release(ctx context.Context, lease redislock.Lease) (bool, error) {
	ok, err := l.rs.NewMutex(l.key, redsync.WithValue(lease.Token)).UnlockContext(ctx)
	var taken *redsync.ErrTaken
	if !ok && (errors.As(err, &taken) || errors.Is(err, redsync.ErrLockAlreadyExpired)) {
		return false, nil
	}
	return ok, err
}

// Extend extends the lock on every node that still holds it.
func (l *redsyncLock) Extend(ctx context.Context, lease redislock.Lease) (bool, error) {
	return l.rs.NewMutex(l.key, redsync.WithValue(lease.Token), redsync.WithExpiry(l.ttl)).ExtendContext(ctx)
}

package locks_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/health"
	"github.com/hammer-load/hammer/internal/locks"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/scenarios"
)

func TestMain(m *testing.M) { os.Exit(stacktest.Main(m)) }

// libraries are the locks under test, by name.
var libraries = []scenarios.Lock{scenarios.Redsync, scenarios.Redislock}

// newLock returns library l over the shared Redis on a key of the test's
// own, removed afterwards, and a client of that Redis.
func newLock(t *testing.T, l scenarios.Lock, ttl, wait time.Duration) (strategy.Lock, *redis.Client, string) {
	t.Helper()
	opt, err := redis.ParseURL(stacktest.Get(t).RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	key := "hammer:test:" + t.Name() + ":lock"
	t.Cleanup(func() { rdb.Del(context.Background(), key); rdb.Close() })
	lock, err := locks.New(l, []redis.UniversalClient{rdb}, locks.Settings{Key: key, TTL: ttl, Wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	return lock, rdb, key
}

// TestAcquireAndRelease: the library keeps its holder's token under the
// race's key with the race's TTL, where the faults look for the holder;
// a second contender gives up after the lock wait with
// hammerlock.ErrTimeout (the lock_timeout outcome); the owner's release
// deletes the key.
func TestAcquireAndRelease(t *testing.T) {
	ctx := context.Background()
	for _, l := range libraries {
		t.Run(string(l), func(t *testing.T) {
			lock, rdb, key := newLock(t, l, time.Minute, 300*time.Millisecond)
			lease, err := lock.Acquire(ctx, nil, nil)
			if err != nil {
				t.Fatalf("acquire: %v", err)
			}
			if got := rdb.Get(ctx, key).Val(); got == "" || got != lease.Token || lease.Key != key {
				t.Fatalf("key %s holds %q, lease %+v; want the lease's token under the race's key", key, got, lease)
			}
			if ttl := rdb.PTTL(ctx, key).Val(); ttl <= 0 || ttl > time.Minute {
				t.Errorf("lock TTL %s, want (0, 1m]", ttl)
			}
			start := time.Now()
			if _, err := lock.Acquire(ctx, nil, nil); !errors.Is(err, hammerlock.ErrTimeout) {
				t.Fatalf("acquire while held: %v, want hammerlock.ErrTimeout", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("gave up after %s, want about the 300ms lock wait", d)
			}
			if ours, err := lock.Release(ctx, lease); err != nil || !ours {
				t.Fatalf("owner release: ours=%v err=%v", ours, err)
			}
			if rdb.Exists(ctx, key).Val() != 0 {
				t.Fatal("owner release left the key")
			}
		})
	}
}

// TestLostLock: a holder whose lock expired and passed to another learns
// that it is no longer its own (false, no error) from both its release
// and its extension, and neither touches the successor's lock.
func TestLostLock(t *testing.T) {
	ctx := context.Background()
	for _, l := range libraries {
		t.Run(string(l), func(t *testing.T) {
			lock, rdb, key := newLock(t, l, 50*time.Millisecond, 5*time.Second)
			late, err := lock.Acquire(ctx, nil, nil)
			if err != nil {
				t.Fatalf("acquire: %v", err)
			}
			next, err := lock.Acquire(ctx, nil, nil)
			if err != nil {
				t.Fatalf("successor could not acquire after expiry: %v", err)
			}
			rdb.PExpire(ctx, key, time.Minute) // the successor keeps it while we look
			if ours, err := lock.Extend(ctx, late); err != nil || ours {
				t.Errorf("late extension: ours=%v err=%v, want false and no error", ours, err)
			}
			if ours, err := lock.Release(ctx, late); err != nil || ours {
				t.Errorf("late release: ours=%v err=%v, want false and no error", ours, err)
			}
			if got := rdb.Get(ctx, key).Val(); got != next.Token {
				t.Fatalf("lock holds %q, want the successor's token %q", got, next.Token)
			}
			rdb.Del(ctx, key)
			if ours, err := lock.Release(ctx, next); err != nil || ours {
				t.Errorf("release of a vanished key: ours=%v err=%v, want false and no error", ours, err)
			}
		})
	}
}

// TestExtend: the library's own extension (redsync's Extend, bsm's
// Refresh) resets the key's TTL to the race's.
func TestExtend(t *testing.T) {
	ctx := context.Background()
	for _, l := range libraries {
		t.Run(string(l), func(t *testing.T) {
			lock, rdb, key := newLock(t, l, 10*time.Second, time.Second)
			lease, err := lock.Acquire(ctx, nil, nil)
			if err != nil {
				t.Fatalf("acquire: %v", err)
			}
			rdb.PExpire(ctx, key, time.Second)
			if ours, err := lock.Extend(ctx, lease); err != nil || !ours {
				t.Fatalf("extend: ours=%v err=%v", ours, err)
			}
			if ttl := rdb.PTTL(ctx, key).Val(); ttl <= 5*time.Second {
				t.Errorf("TTL after extension %s, want about 10s", ttl)
			}
		})
	}
}

// TestCancelledWait: a wait whose context ends (the sold-out hint, the
// race's end) returns the context's error, not a lock timeout.
func TestCancelledWait(t *testing.T) {
	for _, l := range libraries {
		t.Run(string(l), func(t *testing.T) {
			lock, _, _ := newLock(t, l, time.Minute, time.Minute)
			if _, err := lock.Acquire(context.Background(), nil, nil); err != nil {
				t.Fatalf("acquire: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := lock.Acquire(ctx, nil, nil)
			if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, hammerlock.ErrTimeout) {
				t.Fatalf("acquire with an ended context: %v, want the context's error", err)
			}
		})
	}
}

// TestDeadRedis: bsm/redislock gives up at the first failed try, with an
// error the race counts as the world's (Redis), not as a lock timeout.
// (redsync retries failed tries for its 32 tries, seconds long: its
// mapping of the last one is TestClassify's.)
func TestDeadRedis(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer rdb.Close()
	lock := locks.NewRedislock(rdb, locks.Settings{Key: "hammer:test:dead", TTL: time.Second, Wait: time.Minute})
	_, err := lock.Acquire(context.Background(), nil, nil)
	if err == nil || errors.Is(err, hammerlock.ErrTimeout) || !health.Failure(err) {
		t.Fatalf("acquire on a dead Redis: %v, want a Redis failure", err)
	}
}

// TestNew: a lock is built by name, from one Redis node.
func TestNew(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	one := []redis.UniversalClient{rdb}
	tests := []struct {
		name  string
		lock  scenarios.Lock
		nodes []redis.UniversalClient
		ok    bool
	}{
		{"redsync", scenarios.Redsync, one, true},
		{"redislock", scenarios.Redislock, one, true},
		{"hammer's own is not a library", scenarios.HammerLock, one, false},
		{"no node", scenarios.Redsync, nil, false},
		{"two nodes", scenarios.Redislock, []redis.UniversalClient{rdb, rdb}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lock, err := locks.New(tt.lock, tt.nodes, locks.Settings{Key: "k", TTL: time.Second, Wait: time.Second})
			if (err == nil) != tt.ok || (lock != nil) != tt.ok {
				t.Fatalf("New(%s, %d nodes) = %v, %v; want ok %v", tt.lock, len(tt.nodes), lock, err, tt.ok)
			}
		})
	}
}

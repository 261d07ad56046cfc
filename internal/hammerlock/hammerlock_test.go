package hammerlock_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

func TestMain(m *testing.M) {
	logging.Disable() // the dead nodes of the tests would have go-redis log every failed dial
	os.Exit(stacktest.Main(m))
}

// client returns a Redis client and a key of this test's own, removed afterwards.
func client(t *testing.T) (*redis.Client, string) {
	t.Helper()
	opt, err := redis.ParseURL(stacktest.Get(t).RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	key := "hammer:test:" + t.Name() + ":lock"
	t.Cleanup(func() { rdb.Del(context.Background(), key); rdb.Close() })
	return rdb, key
}

func TestMutualExclusion(t *testing.T) {
	ctx := context.Background()
	rdb, key := client(t)
	l := hammerlock.New(rdb, hammerlock.DefaultBackoff())
	first, ok, err := l.TryAcquire(ctx, key, time.Minute)
	if err != nil || !ok {
		t.Fatalf("first acquire: ok=%v err=%v", ok, err)
	}
	if _, ok, err := l.TryAcquire(ctx, key, time.Minute); err != nil || ok {
		t.Fatalf("second acquire while held: ok=%v err=%v, want refused", ok, err)
	}
	if ttl := rdb.PTTL(ctx, key).Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("lock TTL %s, want (0, 1m]", ttl)
	}
	stranger := hammerlock.Lease{Key: key, Token: "not-the-owner"}
	if ours, err := l.Release(ctx, stranger); err != nil || ours {
		t.Fatalf("release with a wrong token: ours=%v err=%v, want refused", ours, err)
	}
	if rdb.Exists(ctx, key).Val() != 1 {
		t.Fatal("a wrong token deleted the lock")
	}
	if ours, err := l.Release(ctx, first); err != nil || !ours {
		t.Fatalf("owner release: ours=%v err=%v", ours, err)
	}
	if rdb.Exists(ctx, key).Val() != 0 {
		t.Fatal("owner release left the key")
	}
}

// TestExpiredHolderCannotReleaseSuccessor is the pitfall the owner check
// exists for: a holder whose lock expired must not delete the next holder's.
func TestExpiredHolderCannotReleaseSuccessor(t *testing.T) {
	ctx := context.Background()
	rdb, key := client(t)
	l := hammerlock.New(rdb, hammerlock.DefaultBackoff())
	late, ok, err := l.TryAcquire(ctx, key, 30*time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("acquire: ok=%v err=%v", ok, err)
	}
	next, err := l.Acquire(ctx, key, time.Minute, 5*time.Second, nil)
	if err != nil {
		t.Fatalf("successor could not acquire after expiry: %v", err)
	}
	if ours, err := l.Release(ctx, late); err != nil || ours {
		t.Fatalf("late release: ours=%v err=%v, want refused", ours, err)
	}
	if got := rdb.Get(ctx, key).Val(); got != next.Token {
		t.Fatalf("lock holds %q, want the successor's token %q", got, next.Token)
	}
}

func TestAcquireTimesOut(t *testing.T) {
	ctx := context.Background()
	rdb, key := client(t)
	l := hammerlock.New(rdb, hammerlock.DefaultBackoff())
	if _, ok, err := l.TryAcquire(ctx, key, time.Minute); err != nil || !ok {
		t.Fatalf("acquire: ok=%v err=%v", ok, err)
	}
	_, err := l.Acquire(ctx, key, time.Minute, 50*time.Millisecond, nil)
	if !errors.Is(err, hammerlock.ErrTimeout) {
		t.Fatalf("Acquire on a held lock: %v, want ErrTimeout", err)
	}
}

// TestAcquireGivesUpOnADeadRedis: a Redis that refuses every connection
// fails the wait after Backoff.GiveUp, with the connection error, instead
// of retrying for the whole lock wait.
func TestAcquireGivesUpOnADeadRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (0.8s in a -short run): skipped by -short (make test runs it)")
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer rdb.Close()
	b := hammerlock.DefaultBackoff()
	b.GiveUp = 200 * time.Millisecond
	l := hammerlock.New(rdb, b)
	start := time.Now()
	_, err := l.Acquire(context.Background(), "hammer:test:dead", time.Second, time.Minute, nil)
	if err == nil || errors.Is(err, hammerlock.ErrTimeout) {
		t.Fatalf("Acquire = %v, want the connection error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %s, want about %s", d, b.GiveUp)
	}
}

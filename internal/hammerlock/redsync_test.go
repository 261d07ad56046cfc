package hammerlock_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/stack"
)

// redsyncOver is redsync over the same nodes as hammer's Redlock: one
// go-redis client per node, each as a redsync pool.
func redsyncOver(rdbs []*redis.Client) *redsync.Redsync {
	pools := make([]redsyncredis.Pool, len(rdbs))
	for i, r := range rdbs {
		pools[i] = goredis.NewPool(r)
	}
	return redsync.New(pools...)
}

// TestRedsyncSharesTheNodes: redsync over the same five nodes takes the
// same key the same way (SET NX PX on a majority): hammer's Redlock cannot
// take it while redsync holds it, and can once redsync released it.
func TestRedsyncSharesTheNodes(t *testing.T) {
	ctx := context.Background()
	rdbs, key, _ := nodes(t, redlockNodes)
	m := redsyncOver(rdbs).NewMutex(key, redsync.WithExpiry(time.Minute), redsync.WithTries(1))
	if err := m.LockContext(ctx); err != nil {
		t.Fatalf("redsync lock: %v", err)
	}
	if got := holding(t, rdbs, key, m.Value()); len(got) != redlockNodes {
		t.Fatalf("redsync holds the key on nodes %v, want all %d", got, redlockNodes)
	}
	l := redlock(rdbs)
	if _, ok, err := l.TryAcquire(ctx, key, time.Minute); err != nil || ok {
		t.Fatalf("hammer's Redlock while redsync holds: ok=%v err=%v, want refused", ok, err)
	}
	if ok, err := m.UnlockContext(ctx); err != nil || !ok {
		t.Fatalf("redsync unlock: ok=%v err=%v", ok, err)
	}
	lease, ok, err := l.TryAcquire(ctx, key, time.Minute)
	if err != nil || !ok {
		t.Fatalf("hammer's Redlock after redsync released: ok=%v err=%v", ok, err)
	}
	if _, err := l.Release(ctx, lease); err != nil {
		t.Fatal(err)
	}
}

// TestRedsyncNodeRestart replays the Redis docs' timeline on redsync over
// five nodes: client 1 holds the lock on a bare majority (its SET never
// reached nodes 3 and 4: emulated by removing its key there), node 2 of
// that majority restarts without persistence, and client 2 takes a
// majority (nodes 2, 3, 4) while client 1 still believes it holds the
// lock. Client 1's unlock then finds the lock no longer its own.
func TestRedsyncNodeRestart(t *testing.T) {
	ctx := context.Background()
	rdbs, key, st := nodes(t, redlockNodes)
	rs := redsyncOver(rdbs)
	first := rs.NewMutex(key, redsync.WithExpiry(time.Minute), redsync.WithTries(1))
	if err := first.LockContext(ctx); err != nil {
		t.Fatalf("client 1 lock: %v", err)
	}
	for _, i := range []int{3, 4} {
		if ours, err := hammerlock.New(rdbs[i], hammerlock.DefaultBackoff()).Release(ctx, hammerlock.Lease{Key: key, Token: first.Value()}); err != nil || !ours {
			t.Fatalf("remove client 1's key on node %d: ours=%v err=%v", i, ours, err)
		}
	}
	restart(t, st, rdbs, 2, key)
	second := rs.NewMutex(key, redsync.WithExpiry(time.Minute), redsync.WithTries(1))
	if err := second.LockContext(ctx); err != nil {
		t.Fatalf("client 2 lock after node 2 restarted: %v, want a majority (nodes 2, 3, 4)", err)
	}
	if got := holding(t, rdbs, key, second.Value()); !slices.Equal(got, []int{2, 3, 4}) {
		t.Errorf("client 2 holds nodes %v, want 2, 3, 4", got)
	}
	if got := holding(t, rdbs, key, first.Value()); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("client 1 still holds nodes %v, want 0, 1", got)
	}
	var taken *redsync.ErrTaken
	if ok, err := first.UnlockContext(ctx); ok || !errors.As(err, &taken) || !slices.Equal(slices.Sorted(slices.Values(taken.Nodes)), []int{2, 3, 4}) {
		t.Errorf("client 1 unlock: ok=%v err=%v, want taken on nodes 2, 3, 4", ok, err)
	}
	if ok, err := second.UnlockContext(ctx); err != nil || !ok {
		t.Errorf("client 2 unlock: ok=%v err=%v", ok, err)
	}
}

// restart restarts node i of a stack hammer started, losing every key;
// on another stack it deletes key there, which is what the restart does
// to the test.
func restart(t *testing.T, st *stack.Stack, rdbs []*redis.Client, i int, key string) {
	t.Helper()
	err := st.RestartRedisNode(context.Background(), i)
	if errors.Is(err, stack.ErrUnsupported) {
		err = rdbs[i].Del(context.Background(), key).Err()
	}
	if err != nil {
		t.Fatalf("restart node %d: %v", i, err)
	}
}

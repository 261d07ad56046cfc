package hammerlock_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// redlockNodes is how many nodes the Redlock tests take a quorum of.
const redlockNodes = 5

// nodes returns a client of each of n Redis nodes of the shared stack and
// a key of this test's own, removed from every node afterwards.
func nodes(t *testing.T, n int) ([]*redis.Client, string, *stack.Stack) {
	t.Helper()
	st := stacktest.Redlock(t, n)
	urls := append([]string{st.RedisURL}, st.RedisPeers[:n-1]...)
	key := "hammer:test:" + t.Name() + ":lock"
	var out []*redis.Client
	for _, u := range urls {
		opt, err := redis.ParseURL(u)
		if err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(opt)
		out = append(out, rdb)
		t.Cleanup(func() { rdb.Del(context.Background(), key, key+":fence"); rdb.Close() })
	}
	return out, key, st
}

// redlock is hammer's lock over every node of rdbs.
func redlock(rdbs []*redis.Client) *hammerlock.Locker {
	peers := make([]redis.Cmdable, 0, len(rdbs)-1)
	for _, r := range rdbs[1:] {
		peers = append(peers, r)
	}
	return hammerlock.New(rdbs[0], hammerlock.DefaultBackoff()).WithPeers(peers...)
}

// holding returns the nodes whose key holds token.
func holding(t *testing.T, rdbs []*redis.Client, key, token string) []int {
	t.Helper()
	var out []int
	for i, r := range rdbs {
		if r.Get(context.Background(), key).Val() == token {
			out = append(out, i)
		}
	}
	return out
}

// keyed returns the nodes that hold key with any value but other.
func keyed(t *testing.T, rdbs []*redis.Client, key, other string) []int {
	t.Helper()
	var out []int
	for i, r := range rdbs {
		if v, err := r.Get(context.Background(), key).Result(); err == nil && v != other {
			out = append(out, i)
		}
	}
	return out
}

// takeOn sets key to token on the given nodes, as another client's lock.
func takeOn(t *testing.T, rdbs []*redis.Client, key, token string, on ...int) {
	t.Helper()
	for _, i := range on {
		if err := rdbs[i].Set(context.Background(), key, token, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRedlockMajority: a lock is held when a majority of the nodes granted
// it, refused when only a minority could (and then given back on every
// node that granted it), and released or extended on every node.
func TestRedlockMajority(t *testing.T) {
	tests := []struct {
		name    string
		takenOn []int // nodes another client holds the key on
		wantOK  bool
	}{
		{name: "all free", wantOK: true},
		{name: "two taken", takenOn: []int{0, 4}, wantOK: true},
		{name: "three taken", takenOn: []int{1, 2, 3}, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			rdbs, key, _ := nodes(t, redlockNodes)
			takeOn(t, rdbs, key, "someone-else", tt.takenOn...)
			l := redlock(rdbs)
			start := time.Now()
			lease, ok, err := l.TryAcquire(ctx, key, time.Minute)
			if err != nil || ok != tt.wantOK {
				t.Fatalf("TryAcquire: ok=%v err=%v, want ok=%v", ok, err, tt.wantOK)
			}
			if !ok {
				if got := keyed(t, rdbs, key, "someone-else"); len(got) != 0 {
					t.Errorf("a refused lock left our key on nodes %v", got)
				}
				return
			}
			free := slices.DeleteFunc([]int{0, 1, 2, 3, 4}, func(i int) bool { return slices.Contains(tt.takenOn, i) })
			if got := holding(t, rdbs, key, lease.Token); !slices.Equal(got, free) {
				t.Errorf("held on nodes %v, want %v", got, free)
			}
			if want := start.Add(time.Minute - hammerlock.Drift(time.Minute)); lease.Until.Before(want) || lease.Until.After(time.Now().Add(time.Minute)) {
				t.Errorf("valid until %s, want about %s (TTL less drift)", lease.Until, want)
			}
			if ours, err := l.Extend(ctx, lease, 2*time.Minute); err != nil || !ours {
				t.Errorf("Extend: ours=%v err=%v", ours, err)
			}
			if ttl := rdbs[free[0]].PTTL(ctx, key).Val(); ttl <= time.Minute {
				t.Errorf("TTL after extend %s, want more than a minute", ttl)
			}
			if ours, err := l.Release(ctx, lease); err != nil || !ours {
				t.Fatalf("Release: ours=%v err=%v", ours, err)
			}
			if got := holding(t, rdbs, key, lease.Token); len(got) != 0 {
				t.Errorf("released lock still on nodes %v", got)
			}
			if got := holding(t, rdbs, key, "someone-else"); !slices.Equal(got, tt.takenOn) {
				t.Errorf("another client's key is on nodes %v after our release, want %v", got, tt.takenOn)
			}
		})
	}
}

// TestRedlockValidity: a lock whose TTL is used up by the drift allowed
// for it is never valid, so it is refused and given back on every node,
// though every node granted it.
func TestRedlockValidity(t *testing.T) {
	ctx := context.Background()
	rdbs, key, _ := nodes(t, redlockNodes)
	l := redlock(rdbs)
	ttl := 2 * time.Millisecond // the drift alone is 2.02 ms
	_, ok, err := l.TryAcquire(ctx, key, ttl)
	if err != nil || ok {
		t.Fatalf("TryAcquire with a %s TTL: ok=%v err=%v, want refused", ttl, ok, err)
	}
	if got := keyed(t, rdbs, key, ""); len(got) != 0 {
		t.Errorf("a lock with no validity left our key on nodes %v", got)
	}
	if hammerlock.Drift(10*time.Second) != 102*time.Millisecond {
		t.Errorf("Drift(10s) = %s, want 102ms (1%% + 2 ms)", hammerlock.Drift(10*time.Second))
	}
}

// TestRedlockNodeDown: a lock is still taken with a minority of the nodes
// down, and fails with the nodes' errors when a majority is.
func TestRedlockNodeDown(t *testing.T) {
	ctx := context.Background()
	rdbs, key, _ := nodes(t, redlockNodes)
	dead := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	oneDown := append([]*redis.Client{}, rdbs...)
	oneDown[3] = dead()
	lease, ok, err := redlock(oneDown).TryAcquire(ctx, key, time.Minute)
	if got := holding(t, rdbs, key, lease.Token); err != nil || !ok || !slices.Equal(got, []int{0, 1, 2, 4}) {
		t.Fatalf("one node down: ok=%v err=%v held on nodes %v, want 0, 1, 2, 4", ok, err, got)
	}
	if ours, err := redlock(oneDown).Release(ctx, lease); err != nil || !ours {
		t.Fatalf("release with one node down: ours=%v err=%v", ours, err)
	}
	threeDown := append([]*redis.Client{}, rdbs...)
	threeDown[1], threeDown[2], threeDown[3] = dead(), dead(), dead()
	if _, ok, err := redlock(threeDown).TryAcquire(ctx, key, time.Minute); ok || err == nil {
		t.Fatalf("three nodes down: ok=%v err=%v, want the nodes' errors", ok, err)
	}
	if got := keyed(t, rdbs, key, ""); len(got) != 0 {
		t.Errorf("a failed lock left the key on nodes %v", got)
	}
}

// TestRedlockFencedAndHolder: a fenced Redlock hands out growing tokens
// (the largest counter of its majority), and Holder names the token on a
// majority, not one a minority still holds.
func TestRedlockFencedAndHolder(t *testing.T) {
	ctx := context.Background()
	rdbs, key, _ := nodes(t, redlockNodes)
	l := redlock(rdbs)
	var last int64
	for range 3 {
		lease, ok, err := l.TryAcquireFenced(ctx, key, key+":fence", time.Minute)
		if err != nil || !ok || lease.Fence <= last {
			t.Fatalf("fenced acquire: ok=%v err=%v token %d after %d, want a larger one", ok, err, lease.Fence, last)
		}
		last = lease.Fence
		if h, err := l.Holder(ctx, key); err != nil || h != lease.Token {
			t.Errorf("Holder = %q, %v; want our token", h, err)
		}
		if _, err := l.Release(ctx, lease); err != nil {
			t.Fatal(err)
		}
	}
	takeOn(t, rdbs, key, "minority", 0, 1)
	if h, err := l.Holder(ctx, key); err != nil || h != "" {
		t.Errorf("Holder with a token on 2 of 5 nodes = %q, %v; want none", h, err)
	}
}

// TestRedlockWaitsForAMajority: a waiter gets the lock once the holder
// released it everywhere, and not while it holds a majority.
func TestRedlockWaitsForAMajority(t *testing.T) {
	ctx := context.Background()
	rdbs, key, _ := nodes(t, redlockNodes)
	l := redlock(rdbs).WithHandoff(key)
	first, ok, err := l.TryAcquire(ctx, key, time.Minute)
	if err != nil || !ok {
		t.Fatalf("acquire: ok=%v err=%v", ok, err)
	}
	if _, err := l.Acquire(ctx, key, time.Minute, 50*time.Millisecond, nil); !errors.Is(err, hammerlock.ErrTimeout) {
		t.Fatalf("Acquire while held = %v, want ErrTimeout", err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := l.Acquire(ctx, key, time.Minute, 5*time.Second, nil)
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if _, err := l.Release(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

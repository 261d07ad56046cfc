package redisstock_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/redisstock"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

func TestMain(m *testing.M) { os.Exit(stacktest.Main(m)) }

// counter returns a counter at a key of this test's own, removed afterwards.
func counter(t *testing.T) (*redisstock.Counter, *redis.Client) {
	t.Helper()
	url := stacktest.Get(t).RedisURL
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	key := "hammer:test:" + t.Name() + ":stock"
	t.Cleanup(func() { rdb.Del(context.Background(), key); rdb.Close() })
	return redisstock.New(rdb, key), rdb
}

// TestTakeUntilSoldOut: a counter seeded with n admits n takes, each told
// what is left, then refuses without going below zero.
func TestTakeUntilSoldOut(t *testing.T) {
	ctx := context.Background()
	c, _ := counter(t)
	if err := redisstock.SeedAt(ctx, stacktest.Get(t).RedisURL, c.Key(), 2); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for range 3 {
		left, ok, err := c.Take(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			got = append(got, left)
		}
	}
	if want := []int64{1, 0}; !slices.Equal(got, want) {
		t.Errorf("admitted with %v left, want %v", got, want)
	}
	if left, err := c.Left(ctx); err != nil || left != 0 {
		t.Errorf("counter holds %d, %v; want 0", left, err)
	}
}

// TestTakeIsAtomic: many takes at once admit exactly as many as were
// seeded, each with another count left.
func TestTakeIsAtomic(t *testing.T) {
	ctx := context.Background()
	c, _ := counter(t)
	if err := c.Seed(ctx, 10); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lefts []int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			left, ok, err := c.Take(ctx)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				lefts = append(lefts, left)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(lefts)
	if want := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(lefts, want) {
		t.Errorf("admitted with %v left, want %v", lefts, want)
	}
}

// TestMissingCounterAdmitsNobody: a counter whose key is gone is an
// error, never stock.
func TestMissingCounterAdmitsNobody(t *testing.T) {
	ctx := context.Background()
	c, rdb := counter(t)
	if _, ok, err := c.Take(ctx); ok || !errors.Is(err, redisstock.ErrMissing) {
		t.Errorf("take from a missing counter: ok %v, %v; want refused with ErrMissing", ok, err)
	}
	if _, err := c.Left(ctx); !errors.Is(err, redisstock.ErrMissing) {
		t.Errorf("read a missing counter: %v, want ErrMissing", err)
	}
	if n, err := rdb.Exists(ctx, c.Key()).Result(); err != nil || n != 0 {
		t.Errorf("the take created the key (%d, %v)", n, err)
	}
}

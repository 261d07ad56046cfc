package hammerlock_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/hammerlock"
)

// patient backs off for a minute: a waiter that gets the lock within a
// short wait was woken, it did not poll.
var patient = hammerlock.Backoff{Min: time.Minute, Max: time.Minute}

// listen wakes l's waiters for key on every release announced in Redis, as
// a worker process does, until the test ends.
func listen(t *testing.T, rdb *redis.Client, l *hammerlock.Locker, key string) {
	t.Helper()
	ctx := context.Background()
	ps := rdb.Subscribe(ctx, hammerlock.ReleasedChannel(key))
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })
	go func() {
		for range ps.Channel() {
			l.Wake(key)
		}
	}()
}

// handOver takes key with holder, lets waiter wait for it in line,
// releases it with holder and fails the test unless waiter got it within
// its wait after tries tries of its own (tries counts the failed first
// one): 1 when the lock was handed to it, 2 when it was woken and took it,
// 0 for "at least 2" when it found the lock by polling.
func handOver(t *testing.T, holder, waiter *hammerlock.Locker, key string, tries int, want string) {
	t.Helper()
	ctx := context.Background()
	lease, ok, err := holder.TryAcquire(ctx, key, time.Minute)
	if err != nil || !ok {
		t.Fatalf("acquire: ok=%v err=%v", ok, err)
	}
	var tried, failed atomic.Int32
	got := make(chan error, 1)
	go func() {
		_, err := waiter.Retry(ctx, key, 5*time.Second, nil, &hammerlock.Claim{TTL: time.Minute}, func() (hammerlock.Lease, bool, error) {
			tried.Add(1)
			lease, ok, err := waiter.TryAcquire(ctx, key, time.Minute)
			if !ok {
				failed.Add(1)
			}
			return lease, ok, err
		})
		got <- err
	}()
	// The waiter heads its line and found the lock taken; from here a
	// release cannot pass it by (a wake or a handed lease is kept for it).
	for deadline := time.Now().Add(5 * time.Second); failed.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waiter did not try within 5s")
		}
	}
	if ours, err := holder.Release(ctx, lease); err != nil || !ours {
		t.Fatalf("release: ours=%v err=%v", ours, err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v, want %s", err, want)
	}
	n := int(tried.Load())
	if (tries > 0 && n != tries) || (tries == 0 && n < 2) {
		t.Errorf("the waiter tried %d times, want %s (%d)", n, want, tries)
	}
}

// TestHandoffWakesAWaiterElsewhere: a release announced by one process
// wakes the waiter of another, which would otherwise not poll again
// within its lock wait.
func TestHandoffWakesAWaiterElsewhere(t *testing.T) {
	rdb, key := client(t)
	other, _ := client(t)
	waiter := hammerlock.New(other, patient).WithHandoff(key)
	listen(t, other, waiter, key)
	handOver(t, hammerlock.New(rdb, hammerlock.DefaultBackoff()).WithHandoff(key), waiter, key, 2, "woken by the release, one more try")
}

// TestHandoffInProcess: a release made by the same Locker wakes its own
// waiter directly.
func TestHandoffInProcess(t *testing.T) {
	rdb, key := client(t)
	l := hammerlock.New(rdb, patient).WithHandoff(key)
	handOver(t, l, l, key, 1, "the lock handed over on release, no second try")
}

// TestHandoffUnannouncedReleaseIsPolled: a lock that frees without an
// announcement (a release by a Locker without handoff, an expiry) is
// still found by the head of the line's polling.
func TestHandoffUnannouncedReleaseIsPolled(t *testing.T) {
	rdb, key := client(t)
	waiter := hammerlock.New(rdb, hammerlock.Backoff{Min: 5 * time.Millisecond, Max: 5 * time.Millisecond}).WithHandoff(key)
	handOver(t, hammerlock.New(rdb, hammerlock.DefaultBackoff()), waiter, key, 0, "the lock found by polling")
}

// TestLineOnlyHeadPolls: of the waiters of one process, only the head of
// the line sends commands while the lock stays taken.
func TestLineOnlyHeadPolls(t *testing.T) {
	ctx := context.Background()
	rdb, key := client(t)
	if err := rdb.Set(ctx, key, "someone else", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	l := hammerlock.New(rdb, hammerlock.Backoff{Min: 5 * time.Millisecond, Max: 5 * time.Millisecond}).WithHandoff(key)
	const waiters = 5
	tries := make([]int, waiters)
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := l.Retry(ctx, key, 300*time.Millisecond, nil, nil, func() (hammerlock.Lease, bool, error) {
				tries[i]++
				return l.TryAcquire(ctx, key, time.Minute)
			})
			if !errors.Is(err, hammerlock.ErrTimeout) {
				t.Errorf("waiter %d: %v, want a timeout", i, err)
			}
		}()
	}
	wg.Wait()
	polling := 0
	for i, n := range tries {
		switch {
		case n > 10:
			polling++
		case n > 2: // at most a try or two, had it headed the line at its deadline
			t.Errorf("waiter %d tried %d times while not heading the line", i, n)
		}
	}
	if polling != 1 {
		t.Errorf("tries %v: want exactly one waiter polling (the head), got %d", tries, polling)
	}
}

// TestDismissSendsTheLineHome: a dismissal ends the wait of every waiter
// of the line with its reason, the head's and those behind it, long
// before their deadline, and a waiter that comes later returns it without
// a try.
func TestDismissSendsTheLineHome(t *testing.T) {
	ctx := context.Background()
	rdb, key := client(t)
	if err := rdb.Set(ctx, key, "someone else", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	l := hammerlock.New(rdb, patient).WithHandoff(key)
	soldOut := errors.New("sold out")
	var tries atomic.Int32
	try := func() (hammerlock.Lease, bool, error) {
		tries.Add(1)
		return l.TryAcquire(ctx, key, time.Minute)
	}
	const waiters = 50
	errs := make(chan error, waiters)
	for range waiters {
		go func() {
			_, err := l.Retry(ctx, key, time.Minute, nil, nil, try)
			errs <- err
		}()
	}
	for deadline := time.Now().Add(5 * time.Second); tries.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no waiter tried within 5s")
		}
	}
	start := time.Now()
	l.Dismiss(key, soldOut)
	sentHome(t, errs, waiters, soldOut)
	t.Logf("line of %d sent home in %v", waiters, time.Since(start))
	before := tries.Load()
	if _, err := l.Retry(ctx, key, time.Minute, nil, nil, try); !errors.Is(err, soldOut) {
		t.Errorf("a waiter after the dismissal: %v, want its reason", err)
	}
	if n := tries.Load(); n != before {
		t.Errorf("a waiter after the dismissal tried %d times, want none", n-before)
	}
}

// sentHome fails the test unless n waiters, each sending what its wait
// returned to errs, all come home with why within 5 s of a dismissal.
func sentHome(t *testing.T, errs <-chan error, n int, why error) {
	t.Helper()
	for i := range n {
		select {
		case err := <-errs:
			if !errors.Is(err, why) {
				t.Errorf("waiter %d: %v, want the dismissal's reason", i, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d waiters still waiting 5s after the dismissal", n-i, n)
		}
	}
}

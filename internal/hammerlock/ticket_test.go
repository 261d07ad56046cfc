package hammerlock_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/hammerlock"
)

// TestJoinServesTheLineInOrder: waiters that join without a goroutine each
// get a turn in the order they joined, the first before Join returns, each
// later one only once the one before it left, and every one takes the lock
// in its turn (handed over by the holder before it, in this process).
func TestJoinServesTheLineInOrder(t *testing.T) {
	ctx := context.Background()
	rdb, key := client(t)
	l := hammerlock.New(rdb, patient).WithHandoff(key)
	const waiters = 20
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	errs := make(chan error, waiters)
	claim := &hammerlock.Claim{TTL: time.Minute}
	for i := range waiters {
		wg.Add(1)
		called := false
		ok := l.Join(ctx, key, time.Minute, claim, func(tk hammerlock.Ticket) {
			called = true
			if tk.SentHome() {
				t.Errorf("waiter %d: sent home, want its turn", i)
			}
			go func() {
				defer wg.Done()
				lease, err := l.Resume(ctx, tk, nil, func() (hammerlock.Lease, bool, error) { return l.TryAcquire(ctx, key, time.Minute) })
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				if _, err := l.Release(ctx, lease); err != nil {
					errs <- err
				}
			}()
		})
		if !ok {
			t.Fatal("Join: false for a key with a line")
		}
		if i == 0 && !called {
			t.Error("the first waiter's turn did not come before Join returned")
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d of %d waiters took the lock within 10s", len(order), waiters)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, w := range order {
		if w != i {
			t.Fatalf("the lock went to waiters in the order %v, want the order they joined", order)
		}
	}
}

// TestJoinSendsHome: a dismissed line calls the turn of every waiter that
// joined without a goroutine, and Resume returns the dismissal's reason
// with no try; a waiter that joins after it is sent home before Join
// returns; a key without a line is refused and its turn never called.
func TestJoinSendsHome(t *testing.T) {
	ctx := context.Background()
	rdb, key := client(t)
	if err := rdb.Set(ctx, key, "someone else", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	l := hammerlock.New(rdb, patient).WithHandoff(key)
	soldOut := errors.New("sold out")
	const waiters = 10
	errs := make(chan error, waiters+1)
	tries := make(chan struct{}, 100)
	try := func() (hammerlock.Lease, bool, error) {
		tries <- struct{}{}
		return l.TryAcquire(ctx, key, time.Minute)
	}
	join := func() (called *bool) {
		called = new(bool)
		l.Join(ctx, key, time.Minute, nil, func(tk hammerlock.Ticket) {
			*called = true
			if !tk.SentHome() {
				t.Error("a waiter of a dismissed line: its turn, want sent home")
			}
			go func() {
				_, err := l.Resume(ctx, tk, nil, try)
				errs <- err
			}()
		})
		return called
	}
	l.Join(ctx, key, time.Minute, nil, func(tk hammerlock.Ticket) { // the head
		go func() {
			_, err := l.Resume(ctx, tk, nil, try)
			errs <- err
		}()
	})
	for range waiters - 1 {
		join()
	}
	<-tries // the head tried once and waits out its backoff
	l.Dismiss(key, soldOut)
	sentHome(t, errs, waiters, soldOut)
	if called := join(); !*called {
		t.Error("a waiter after the dismissal: its turn did not come before Join returned")
	}
	if err := <-errs; !errors.Is(err, soldOut) {
		t.Errorf("a waiter after the dismissal: %v, want its reason", err)
	}
	if n := len(tries); n != 0 {
		t.Errorf("%d tries after the head's first, want none", n)
	}
	plain := hammerlock.New(rdb, patient)
	if plain.Join(ctx, key, time.Minute, nil, func(hammerlock.Ticket) { t.Error("turn called for a key without a line") }) {
		t.Error("Join: true for a key without a line")
	}
}

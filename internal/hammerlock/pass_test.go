package hammerlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/hammerlock"
)

// waitInLine starts a waiter for key on l that tries once (counted in
// tries) and then waits in line with claim; its lease arrives on the
// returned channel.
func waitInLine(t *testing.T, l *hammerlock.Locker, key string, claim *hammerlock.Claim, tries *int) <-chan hammerlock.Lease {
	t.Helper()
	got := make(chan hammerlock.Lease, 1)
	go func() {
		ctx := context.Background()
		lease, err := l.Retry(ctx, key, 5*time.Second, nil, claim, func() (hammerlock.Lease, bool, error) {
			*tries++
			if claim.FenceKey != "" {
				return l.TryAcquireFenced(ctx, key, claim.FenceKey, claim.TTL)
			}
			return l.TryAcquire(ctx, key, claim.TTL)
		})
		if err != nil {
			t.Errorf("waiter: %v", err)
		}
		got <- lease
	}()
	time.Sleep(50 * time.Millisecond) // the waiter tried once and waits
	return got
}

// TestReleasePassesTheLock: a release in the process of a waiter with a
// Claim takes the lock for it in the release's round trip. The waiter
// never polls again, it holds the key with a token of its own, and a
// fenced lock's pass hands out the next fencing token.
func TestReleasePassesTheLock(t *testing.T) {
	for _, fenced := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "fenced"}[fenced], func(t *testing.T) { passes(t, fenced) })
	}
}

// passes takes a lock, lets a waiter queue with a Claim and releases it.
func passes(t *testing.T, fenced bool) {
	t.Helper()
	ctx := context.Background()
	rdb, key := client(t)
	claim := &hammerlock.Claim{TTL: time.Minute}
	if fenced {
		claim.FenceKey = key + ":fence"
		t.Cleanup(func() { rdb.Del(context.Background(), claim.FenceKey) })
	}
	l := hammerlock.New(rdb, patient).WithHandoff(key)
	acquire := func() (hammerlock.Lease, bool, error) { return l.TryAcquire(ctx, key, time.Minute) }
	if fenced {
		acquire = func() (hammerlock.Lease, bool, error) {
			return l.TryAcquireFenced(ctx, key, claim.FenceKey, time.Minute)
		}
	}
	holder, ok, err := acquire()
	if err != nil || !ok {
		t.Fatalf("acquire: ok=%v err=%v", ok, err)
	}
	tries := 0
	got := waitInLine(t, l, key, claim, &tries)
	if ours, err := l.Release(ctx, holder); err != nil || !ours {
		t.Fatalf("release: ours=%v err=%v", ours, err)
	}
	lease := <-got
	if tries != 1 {
		t.Errorf("fenced=%v: the waiter tried %d times, want 1 (the lock passed to it)", fenced, tries)
	}
	if v, err := rdb.Get(ctx, key).Result(); err != nil || v != lease.Token || v == holder.Token {
		t.Errorf("fenced=%v: key holds %q (err %v), want the waiter's own token %q", fenced, v, err, lease.Token)
	}
	if fenced && lease.Fence != holder.Fence+1 {
		t.Errorf("fencing token %d after %d, want the next one", lease.Fence, holder.Fence)
	}
}

// TestPassesAreBounded: after eight passes in a row inside one process the
// lock is released for everyone and announced, so the other processes'
// waiters are not starved by a long line; the waiter then takes it by a
// try of its own, like everyone else.
func TestPassesAreBounded(t *testing.T) {
	ctx := context.Background()
	rdb, key := client(t)
	ps := rdb.Subscribe(ctx, hammerlock.ReleasedChannel(key))
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	l := hammerlock.New(rdb, patient).WithHandoff(key)
	lease, ok, err := l.TryAcquire(ctx, key, time.Minute)
	if err != nil || !ok {
		t.Fatalf("acquire: ok=%v err=%v", ok, err)
	}
	claim := &hammerlock.Claim{TTL: time.Minute}
	for pass := 1; pass <= 9; pass++ {
		tries := 0
		got := waitInLine(t, l, key, claim, &tries)
		if _, err := l.Release(ctx, lease); err != nil {
			t.Fatal(err)
		}
		announced, took := false, false
		select {
		case <-ps.Channel():
			announced = true
		case lease = <-got:
			took = true
		case <-time.After(2 * time.Second):
			t.Fatalf("release %d: neither passed nor announced", pass)
		}
		if pass <= 8 {
			if announced {
				t.Fatalf("release %d was announced, want it passed in the process", pass)
			}
			if tries != 1 {
				t.Fatalf("release %d: the waiter tried %d times, want the lock passed to it", pass, tries)
			}
			continue
		}
		if !announced {
			select {
			case <-ps.Channel():
			case <-time.After(2 * time.Second):
				t.Fatal("release 9 was not announced, want it released for everyone")
			}
		}
		if !took {
			select {
			case <-got:
			case <-time.After(2 * time.Second):
				t.Fatal("release 9: the waiter never took the lock")
			}
		}
		if tries < 2 {
			t.Errorf("release 9 passed the lock again (the waiter tried %d times), want it released for everyone", tries)
		}
	}
}

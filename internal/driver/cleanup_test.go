package driver

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestCleanupWaitsForFrozenRedis: a Redis that answers again within the
// clean-up's wait has the race's keys removed, and only those; one that
// does not answer in time leaves each key named with its TTL, one line
// each.
func TestCleanupWaitsForFrozenRedis(t *testing.T) {
	st := stacktest.Private(t)
	rdb, pid := stacktest.FreezableRedis(t, st.RedisURL)
	ctx := context.Background()
	td := &teardown{prefix: "hammer:t:r:", keys: []leftKey{{"hammer:t:r:lock", 10 * time.Second}, {"hammer:t:r:fence", 0}}}
	seed := func() {
		t.Helper()
		for _, k := range []string{"hammer:t:r:lock", "hammer:t:r:fence", "other:key"} {
			if err := rdb.Set(ctx, k, "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}

	seed()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	if err := deleteKeys(ctx, st.RedisURL, td, 5*time.Second); err != nil {
		t.Fatalf("deleteKeys with Redis back after 300ms: %v", err)
	}
	if got := rdb.Keys(ctx, "*").Val(); strings.Join(got, ",") != "other:key" {
		t.Errorf("keys left: %v, want only other:key", got)
	}

	seed()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := deleteKeys(ctx, st.RedisURL, td, 300*time.Millisecond)
	took := time.Since(start)
	_ = syscall.Kill(pid, syscall.SIGCONT)
	if err == nil {
		t.Fatal("deleteKeys with Redis frozen: nil, want the keys named")
	}
	// The wait plus a second for a host busy enough to be late waking.
	if took > 300*time.Millisecond+time.Second {
		t.Errorf("deleteKeys took %s with a wait of 300ms", took)
	}
	lines := strings.Split(err.Error(), "\n")
	for _, want := range []string{"hammer:t:r:lock (TTL at most 10s", "hammer:t:r:fence (no TTL", "other keys under hammer:t:r:*"} {
		n := 0
		for _, l := range lines {
			if strings.Contains(l, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d lines name %q, want 1:\n%s", n, want, err)
		}
	}
}

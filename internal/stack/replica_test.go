package stack

import (
	"context"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestReplicaFailover: a replica follows the primary, keeps what it got
// when the primary dies, takes writes once promoted; RestartRedis brings an
// empty primary back on its port.
func TestReplicaFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (9.1s in a -short run): skipped by -short (make test runs it)")
	}
	requireLocalBins(t)
	ctx := context.Background()
	st, err := Start(ctx, Options{Kind: Local})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opt, err := redis.ParseURL(st.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	primary := redis.NewClient(opt)
	defer primary.Close()
	if err := primary.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r, err := st.StartReplica(ctx, opt.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	replica := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer replica.Close()
	if got := replica.Get(ctx, "before").Val(); got != "1" {
		t.Fatalf("replica has before=%q after sync, want 1", got)
	}
	if err := replica.Set(ctx, "x", "1", 0).Err(); err == nil {
		t.Fatal("an unpromoted replica accepted a write")
	}
	if err := st.KillRedis(); err != nil {
		t.Fatal(err)
	}
	if err := primary.Ping(ctx).Err(); err == nil {
		t.Fatal("the killed primary still answers")
	}
	if err := r.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	if err := replica.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatalf("promoted replica refused a write: %v", err)
	}
	if err := st.RestartRedis(ctx); err != nil {
		t.Fatal(err)
	}
	if err := primary.Get(ctx, "before").Err(); !errors.Is(err, redis.Nil) {
		t.Fatalf("restarted primary: get before: %v, want an empty server", err)
	}
}

func TestReplicaNeedsLocal(t *testing.T) {
	st := &Stack{Kind: External}
	if _, err := st.StartReplica(context.Background(), "127.0.0.1:1"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("StartReplica on external: %v, want ErrUnsupported", err)
	}
	if err := st.KillRedis(); !errors.Is(err, ErrUnsupported) {
		t.Errorf("KillRedis on external: %v, want ErrUnsupported", err)
	}
}

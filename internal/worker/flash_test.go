package worker

import (
	"context"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/internal/wire"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/scenarios"
)

// TestFlashStartsWithoutAGoroutineEach: a flash start stamps and lines up
// all its contenders in one loop, with a goroutine for the head alone;
// when the race ends (its context), every contender ends exactly once,
// with its record kept: those sent home one after the other (see
// strategy.homecoming), the head on its own goroutine.
//
// The lock's Redis never answers (see silentLocker), so the head tries
// for as long as the test lasts: nothing here is a verdict.
func TestFlashStartsWithoutAGoroutineEach(t *testing.T) {
	const n = 2000
	cfg, c, ob := silentRace(t, n)
	fl := newFlash(cfg, c, ob)
	if fl == nil {
		t.Fatal("newFlash: nil for a closed-model race in hammer's own line")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := runtime.NumGoroutine()
	start := time.Now().UnixNano()
	fl.begin(ctx)
	if more := runtime.NumGoroutine() - before; more > 10 {
		t.Errorf("%d more goroutines after lining up %d contenders, want the head's and a few of the runtime's", more, n)
	}
	cancel()
	ended := make(chan struct{})
	go func() { fl.done.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("contenders still in line 10s after their race ended")
	}
	// Their goroutines end right after: a test that follows measures the
	// stacks in use. (The silent client's dial may still wait.)
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before+5; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 5s after every contender ended, want about %d as before", runtime.NumGoroutine(), before)
		}
	}
	if len(ob.held) != n {
		t.Fatalf("%d records kept, want %d", len(ob.held), n)
	}
	for _, a := range ob.held {
		if a.Invoke < start || a.Complete < a.Invoke || a.Outcome != history.Error {
			t.Fatalf("record %s: invoke %d complete %d outcome %s, want stamped after %d and an error (the race ended)",
				a.RequestID, a.Invoke, a.Complete, a.Outcome, start)
		}
	}
}

// TestFlashOnlyForALine: the races a flash start does not make start a
// goroutine per contender as before.
func TestFlashOnlyForALine(t *testing.T) {
	key := "hammer:test:flash"
	lined := strategy.Deps{Locker: silentLocker(t, key), LockKey: key, LockTTL: time.Minute, LockWait: time.Hour}
	unlined := lined
	unlined.Locker = hammerlock.New(lined.Redis, hammerlock.DefaultBackoff())
	faulted := lined
	faulted.Faults = noFaults{}
	for _, tt := range []struct {
		name string
		cfg  wire.Config
		deps strategy.Deps
	}{
		{"no lock", wire.Config{Mode: scenarios.UpdateOnly, Goroutines: 2, Attempts: 1}, lined},
		{"no line", wire.Config{Mode: scenarios.LockPlusUpdate, Goroutines: 2, Attempts: 1}, unlined},
		{"attempts", wire.Config{Mode: scenarios.LockPlusUpdate, Goroutines: 2, Attempts: 2}, lined},
		{"open model", wire.Config{Mode: scenarios.LockPlusUpdate, Goroutines: 2, Attempts: 1, Rate: 10}, lined},
		{"copies", wire.Config{Mode: scenarios.LockPlusUpdate, Goroutines: 2, Attempts: 1, Fault: scenarios.Duplicate}, lined},
		{"a fault", wire.Config{Mode: scenarios.LockPlusUpdate, Goroutines: 2, Attempts: 1, Fault: scenarios.Pause}, faulted},
	} {
		c := &builtin{c: strategy.New(tt.cfg.Mode, tt.deps)}
		if newFlash(&tt.cfg, c, nil) != nil {
			t.Errorf("%s: a flash start, want none", tt.name)
		}
	}
}

// noFaults is a fault that never strikes.
type noFaults struct{}

func (noFaults) At(context.Context, *history.Attempt, strategy.Point, seatdb.Querier) error {
	return nil
}
func (noFaults) Done(*history.Attempt) {}

// silentRace is a lock-plus-update race of n contenders in one worker:
// its configuration, its contender on hammer's own lock with a line
// (silentLocker) and an outbox that keeps the records and sends them
// nowhere.
func silentRace(t *testing.T, n int) (*wire.Config, *builtin, *outbox) {
	key := "hammer:test:silent"
	cfg := &wire.Config{Mode: scenarios.LockPlusUpdate, Goroutines: n, Attempts: 1, Seed: 1}
	c := &builtin{c: strategy.New(cfg.Mode, strategy.Deps{Locker: silentLocker(t, key), LockKey: key, LockTTL: time.Minute, LockWait: time.Hour})}
	return cfg, c, &outbox{rep: newReporter(io.Discard, 0), lat: latency.NewSet()}
}

// silentLocker is hammer's lock with a line for key, on a Redis that never
// answers (stacktest.SilentRedis).
func silentLocker(t *testing.T, key string) *hammerlock.Locker {
	return hammerlock.New(stacktest.SilentRedis(t), hammerlock.Backoff{Min: time.Hour, Max: time.Hour}).WithHandoff(key)
}

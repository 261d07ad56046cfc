package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/inventory"
	"github.com/hammer-load/hammer/internal/redislock"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/scenarios"
)

// injector is the worker's side of fault injection: it numbers lock
// holders across processes, and at the scheduled ones either injects the
// fault itself (pause, latency, slow release) or asks the coordinator to
// (stop, crash, lock loss) and waits to be resumed.
type injector struct {
	cfg    workerConfig
	rdb    *redis.Client
	locker *redislock.Locker
	rep    *reporter
	deps   strategy.Deps
	// world is held for writing during an in-process pause.
	world *sync.RWMutex

	mu      sync.Mutex
	seqs    map[*history.Attempt]int64 // holder number of each attempt
	waiting map[string]chan struct{}   // attempts waiting to be resumed
}

var _ strategy.Faults = (*injector)(nil)

func newInjector(cfg workerConfig, rdb *redis.Client, rep *reporter) *injector {
	return &injector{
		cfg:     cfg,
		rdb:     rdb,
		locker:  redislock.New(rdb, redislock.DefaultBackoff()),
		rep:     rep,
		world:   &sync.RWMutex{},
		seqs:    map[*history.Attempt]int64{},
		waiting: map[string]chan struct{}{},
	}
}

// At implements strategy.Faults.
func (f *injector) At(ctx context.Context, a *history.Attempt, p strategy.Point, q inventory.Querier) error {
	seq, err := f.seq(ctx, a, p)
	if err != nil || seq == 0 {
		return err
	}
	scheduled := slices.Contains(f.cfg.Schedule, seq)
	switch f.cfg.Fault {
	case scenarios.Pause:
		if scheduled && p == strategy.MidWrite {
			f.pause(a)
		}
	case scenarios.ShortTTL:
		if scheduled && p == strategy.MidWrite {
			return f.latency(ctx, a, q, f.cfg.PauseFor, "database latency")
		}
	case scenarios.PauseStop, scenarios.LockLoss, scenarios.Failover:
		if scheduled && p == strategy.MidWrite {
			return f.strike(ctx, a)
		}
	case scenarios.Crash:
		if scheduled && (p == strategy.MidWrite || p == strategy.AcquireGap) {
			return f.strike(ctx, a)
		}
	case scenarios.SlowRelease:
		if scheduled && p == strategy.AfterWrite {
			return f.holdUntilTaken(ctx, a)
		}
		if slices.Contains(f.cfg.Schedule, seq-1) && p == strategy.MidWrite {
			return f.latency(ctx, a, q, f.cfg.LockTTL/2, "long critical section")
		}
	}
	return nil
}

// Done implements strategy.Faults: it forgets the attempt's holder number.
func (f *injector) Done(a *history.Attempt) {
	f.mu.Lock()
	delete(f.seqs, a)
	f.mu.Unlock()
}

// seq numbers the attempt among all holders of the run the first time it
// reaches a point where the run's fault counts holders (countsAt). It
// returns 0 for faults that strike no chosen holder.
func (f *injector) seq(ctx context.Context, a *history.Attempt, p strategy.Point) (int64, error) {
	if !f.cfg.Fault.Scheduled() {
		return 0, nil
	}
	f.mu.Lock()
	n, ok := f.seqs[a]
	f.mu.Unlock()
	if ok || !f.countsAt(p) {
		return n, nil
	}
	n, err := f.rdb.Incr(ctx, f.cfg.FaultKey).Result()
	if err != nil {
		return 0, fmt.Errorf("fault counter: %w", err)
	}
	f.mu.Lock()
	f.seqs[a] = n
	f.mu.Unlock()
	return n, nil
}

// countsAt reports whether the run's fault numbers holders at point p.
// Most faults count the holders that reach the point where they strike:
// a holder that took the lock may still never get there (it found the
// sector sold out or fenced, its lock having expired in the stir of an
// earlier strike), but as many holders get there as seats are sold, so
// every number scheduled in the first half of the sale is reached.
// Slow-release also strikes the holder after the scheduled one, so it
// numbers holders as they take the lock (or, without a lock, the row).
func (f *injector) countsAt(p strategy.Point) bool {
	switch f.cfg.Fault {
	case scenarios.SlowRelease:
		return p == strategy.MidWrite || (p == strategy.Holding && f.cfg.Mode.UsesLock())
	case scenarios.Crash:
		return p == strategy.MidWrite || p == strategy.AcquireGap // planted locks have a gap
	}
	return p == strategy.MidWrite
}

// pause stops the contender (and, like a stop-the-world pause, every
// heartbeat of this process) for PauseFor.
func (f *injector) pause(a *history.Attempt) {
	start := time.Now()
	f.world.Lock()
	time.Sleep(f.cfg.PauseFor)
	f.world.Unlock()
	f.event(a, start, fmt.Sprintf("paused %s between its read and its write (pause point in worker %d)", f.cfg.PauseFor, a.Proc))
}

// latency runs pg_sleep inside the sale, making the critical section long.
func (f *injector) latency(ctx context.Context, a *history.Attempt, q inventory.Querier, d time.Duration, what string) error {
	start := time.Now()
	if _, err := q.Exec(ctx, "SELECT pg_sleep($1)", d.Seconds()); err != nil {
		return fmt.Errorf("inject latency: %w", err)
	}
	f.event(a, start, fmt.Sprintf("%s of %s injected with pg_sleep in its critical section", what, d))
	return nil
}

// holdUntilTaken keeps a holder that has written from releasing until its
// lock expired and another contender took it.
func (f *injector) holdUntilTaken(ctx context.Context, a *history.Attempt) error {
	start := time.Now()
	deadline := start.Add(10 * f.cfg.LockTTL)
	for time.Now().Before(deadline) {
		holder, err := f.locker.Holder(ctx, f.cfg.LockKey)
		if err != nil {
			return err
		}
		if holder != "" && time.Since(time.Unix(0, a.LockAcquired)) > f.cfg.LockTTL {
			break
		}
		time.Sleep(time.Millisecond)
	}
	f.event(a, start, "held on after its write until its lock expired and the next contender took it, then released")
	return nil
}

// strike asks the coordinator to inject the fault on this contender and
// waits until it is resumed (a crash never resumes).
func (f *injector) strike(ctx context.Context, a *history.Attempt) error {
	key := attemptKey(a)
	ch := make(chan struct{})
	f.mu.Lock()
	f.waiting[key] = ch
	f.mu.Unlock()
	f.rep.send(message{Strike: &strike{Key: key, Proc: a.Proc, Goroutine: a.Goroutine, RequestID: a.RequestID}})
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// listen resumes contenders as the coordinator says, until stdin closes.
func (f *injector) listen(dec *json.Decoder) {
	for {
		var c control
		if err := dec.Decode(&c); err != nil {
			return
		}
		f.mu.Lock()
		ch, ok := f.waiting[c.Resume]
		delete(f.waiting, c.Resume)
		f.mu.Unlock()
		if ok {
			close(ch)
		}
	}
}

func (f *injector) event(a *history.Attempt, start time.Time, detail string) {
	f.rep.send(message{Event: &history.FaultEvent{
		Run: f.cfg.Run, Fault: f.cfg.Fault, Proc: a.Proc, Goroutine: a.Goroutine,
		RequestID: a.RequestID, Start: start.UnixNano(), End: time.Now().UnixNano(), Detail: detail,
	}})
}

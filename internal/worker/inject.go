package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/internal/wire"
)

// injector is the worker's side of fault injection: it numbers lock
// holders across processes and hands the fault each numbered holder at
// each point, with whether its number was scheduled; the fault acts on its
// own (pause, latency, slow release) or asks the coordinator to (stop,
// crash, lock loss), and the contender waits until it is resumed.
type injector struct {
	cfg    wire.Config
	rdb    *redis.Client
	locker *hammerlock.Locker
	rep    *reporter
	fault  fault.Injector
	hooks  *fault.Worker // what the fault may use in this process
	// world is held for writing during an in-process pause.
	world *sync.RWMutex

	resumes *resumes

	mu   sync.Mutex
	seqs map[*history.Attempt]int64 // holder number of each attempt
}

var _ strategy.Faults = (*injector)(nil)

func newInjector(cfg wire.Config, rdb *redis.Client, peers []*redis.Client, rep *reporter, res *resumes) (*injector, error) {
	f, err := fault.New(cfg.Fault)
	if err != nil {
		return nil, err
	}
	inj := &injector{
		cfg:     cfg,
		rdb:     rdb,
		locker:  newLocker(cfg, rdb, peers),
		rep:     rep,
		fault:   f,
		world:   &sync.RWMutex{},
		seqs:    map[*history.Attempt]int64{},
		resumes: res,
	}
	inj.hooks = &fault.Worker{
		PauseFor: cfg.PauseFor, LockTTL: cfg.LockTTL, LockKey: cfg.LockKey,
		Locker: inj.locker, World: inj.world, Strike: inj.strike, Event: inj.event, Begin: inj.begin,
		Numbered: func(ctx context.Context) (int64, error) {
			n, err := rdb.Get(ctx, cfg.FaultKey).Int64()
			if errors.Is(err, redis.Nil) {
				return 0, nil
			}
			return n, err
		},
	}
	return inj, nil
}

// At implements strategy.Faults.
func (f *injector) At(ctx context.Context, a *history.Attempt, p strategy.Point, q seatdb.Querier) error {
	seq, err := f.seq(ctx, a, p)
	if err != nil || seq == 0 {
		return err
	}
	return f.fault.At(ctx, f.hooks, fault.Hit{
		Attempt: a, Point: p, Query: q, Number: seq,
		Struck:      slices.Contains(f.cfg.Schedule, seq),
		AfterStruck: slices.Contains(f.cfg.Schedule, seq-1),
	})
}

// Done implements strategy.Faults: it forgets the attempt's holder number.
func (f *injector) Done(a *history.Attempt) {
	f.mu.Lock()
	delete(f.seqs, a)
	f.mu.Unlock()
}

// seq numbers the attempt among all holders of the run the first time it
// reaches a point where the run's fault counts holders. It returns 0 for
// faults that strike no chosen holder.
func (f *injector) seq(ctx context.Context, a *history.Attempt, p strategy.Point) (int64, error) {
	if !f.cfg.Fault.Scheduled() {
		return 0, nil
	}
	f.mu.Lock()
	n, ok := f.seqs[a]
	f.mu.Unlock()
	if ok || !f.fault.CountsAt(p, f.cfg.Mode.UsesLock()) {
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

// strike asks the coordinator to inject the fault on this contender and
// waits until it is resumed (a crash never resumes).
func (f *injector) strike(ctx context.Context, a *history.Attempt) error {
	key := wire.AttemptKey(a)
	ch := f.resumes.wait(key)
	f.rep.send(wire.Message{Strike: &wire.Strike{Key: key, Proc: a.Proc, Goroutine: a.Goroutine, RequestID: a.RequestID}})
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// resumes are the struck contenders of a worker process waiting for the
// coordinator to let them go on.
type resumes struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

func newResumes() *resumes { return &resumes{waiting: map[string]chan struct{}{}} }

// wait notes that the attempt key waits, and returns what is closed when
// the coordinator resumes it.
func (r *resumes) wait(key string) <-chan struct{} {
	ch := make(chan struct{})
	r.mu.Lock()
	r.waiting[key] = ch
	r.mu.Unlock()
	return ch
}

// listen resumes contenders as the coordinator says, calls ship when it
// asks for the records and wrap when it says to wrap up, until stdin
// closes. A race being stopped (ship) or a coordinator gone (stdin closed)
// wraps up too.
func (r *resumes) listen(dec *json.Decoder, ship, wrap func()) {
	defer wrap()
	for {
		var c wire.Control
		if err := dec.Decode(&c); err != nil {
			return
		}
		if c.Ship {
			ship()
		}
		if c.Ship || c.Wrap {
			wrap()
			continue
		}
		r.mu.Lock()
		ch, ok := r.waiting[c.Resume]
		delete(r.waiting, c.Resume)
		r.mu.Unlock()
		if ok {
			close(ch)
		}
	}
}

// begin tells the coordinator that the worker begins to inject the
// fault on a's contender itself.
func (f *injector) begin(a *history.Attempt, start time.Time) {
	f.rep.send(wire.Message{Begin: &history.FaultEvent{
		Run: f.cfg.Run, Fault: f.cfg.Fault, Proc: a.Proc, Goroutine: a.Goroutine, RequestID: a.RequestID, Start: start.UnixNano(),
	}})
}

// event reports a fault the worker injected itself.
func (f *injector) event(a *history.Attempt, start time.Time, detail string) {
	f.rep.send(wire.Message{Event: &history.FaultEvent{
		Run: f.cfg.Run, Fault: f.cfg.Fault, Proc: a.Proc, Goroutine: a.Goroutine,
		RequestID: a.RequestID, Start: start.UnixNano(), End: time.Now().UnixNano(), Detail: detail,
	}})
}

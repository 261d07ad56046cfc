package strategy

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/inventory"
	"github.com/hammer-load/hammer/internal/redislock"
	"github.com/hammer-load/hammer/scenarios"
)

// fakeLock is a Lock that answers as told. With gap it calls gap once before
// granting, as a planted lock made of several commands does. Extend runs on
// the heartbeat goroutine, so its log is guarded by mu.
type fakeLock struct {
	lease      redislock.Lease
	acquireErr error
	gap        bool
	lost       bool  // Release reports the lock was no longer ours
	releaseErr error // Release fails
	extend     func(n int) (bool, error)

	releases      []redislock.Lease
	releaseCtxErr error // ctx.Err() seen by Release

	mu      sync.Mutex
	extends []extendCall
}

// extendCall is one call of fakeLock.Extend: when, and whether it extended.
type extendCall struct {
	at int64
	ok bool
}

func (l *fakeLock) Acquire(ctx context.Context, _ *rand.Rand, gap func(context.Context) error) (redislock.Lease, error) {
	if l.gap {
		if err := gap(ctx); err != nil {
			return redislock.Lease{}, err
		}
	}
	return l.lease, l.acquireErr
}

func (l *fakeLock) Release(ctx context.Context, lease redislock.Lease) (bool, error) {
	l.releases, l.releaseCtxErr = append(l.releases, lease), ctx.Err()
	return !l.lost, l.releaseErr
}

func (l *fakeLock) Extend(context.Context, redislock.Lease) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ours, err := l.extend(len(l.extends) + 1)
	l.extends = append(l.extends, extendCall{now(), err == nil && ours})
	return ours, err
}

func (l *fakeLock) extendLog() []extendCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.extends)
}

// fakeSell answers like inventory's sales: sold out and fenced are decided
// before the write (no MidWrite); otherwise it runs MidWrite with a fake
// Querier, then fails with err or sells seat 3. read is the count it saw.
type fakeSell struct {
	read   *int
	err    error
	during func(context.Context) // runs first, e.g. to wait for heartbeats
	req    inventory.Request
	res    inventory.Result
}

func (s *fakeSell) sell(ctx context.Context, r inventory.Request) (inventory.Result, error) {
	if s.during != nil {
		s.during(ctx)
	}
	s.req, s.res = r, inventory.Result{Read: s.read}
	if s.read != nil {
		s.res.ReadAt = time.Now()
	}
	if errors.Is(s.err, inventory.ErrSoldOut) || errors.Is(s.err, inventory.ErrFenced) {
		return s.res, s.err
	}
	if err := r.MidWrite(ctx, fakeQuerier{}); err != nil {
		return s.res, err
	}
	if s.err == nil {
		s.res.Seat = 3
	}
	return s.res, s.err
}

// fakeQuerier stands in for the transaction handed to MidWrite; nothing
// runs on it.
type fakeQuerier struct{ inventory.Querier }

// fakeFaults records the points reached (and whether a Querier came with
// each), fails at the points in errs, and records when Done is called.
type fakeFaults struct {
	a          *history.Attempt
	errs       map[Point]error
	points     []Point
	withQ      []bool
	foreign    bool  // At or Done was handed another attempt
	done       int   // calls of Done
	afterDone  bool  // At was called after Done
	completeAt int64 // a.Complete when Done was called
}

func (f *fakeFaults) At(_ context.Context, a *history.Attempt, p Point, q inventory.Querier) error {
	f.foreign = f.foreign || a != f.a
	f.afterDone = f.afterDone || f.done > 0
	f.points, f.withQ = append(f.points, p), append(f.withQ, q != nil)
	return f.errs[p]
}

func (f *fakeFaults) Done(a *history.Attempt) {
	f.foreign = f.foreign || a != f.a
	f.done++
	f.completeAt = a.Complete
}

// run makes one attempt in mode and checks that Faults (if any) was told it
// was Done once, last, after Complete. A lock is used only by the modes that
// have one.
func run(ctx context.Context, t *testing.T, mode scenarios.Mode, l *fakeLock, s *fakeSell, f *fakeFaults) *history.Attempt {
	t.Helper()
	a := &history.Attempt{Run: "r", Mode: mode, Proc: 1, Goroutine: 2, RequestID: "p1-g2-0"}
	c := &Contender{Mode: mode, Sell: s.sell, Sector: 4}
	if mode.UsesLock() {
		l.lease, c.Lock = redislock.Lease{Key: "lock:4", Token: "tok", Fence: fence(mode)}, l
	}
	if f != nil { // not a typed nil in the interface
		f.a, c.Faults = a, f
	}
	c.Attempt(ctx, a, rand.New(rand.NewPCG(1, 2)))
	if f != nil && (f.done != 1 || f.completeAt == 0 || f.foreign || f.afterDone) {
		t.Errorf("Done called %d times, saw Complete %d, foreign attempt %v, At after Done %v; want once, after Complete, this attempt, last",
			f.done, f.completeAt, f.foreign, f.afterDone)
	}
	return a
}

var (
	allModes    = scenarios.Modes()
	lockModes   = []scenarios.Mode{scenarios.LockOnly, scenarios.LockPlusUpdate, scenarios.Fenced}
	readModes   = []scenarios.Mode{scenarios.None, scenarios.LockOnly, scenarios.Fenced} // SellReadWrite, SellFenced
	atomicModes = []scenarios.Mode{scenarios.UpdateOnly, scenarios.LockPlusUpdate}       // SellAtomic

	refused   = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset     = &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	strategyE = errors.New("strategy broke")
)

func intp(n int) *int { return &n }

// fence is the fencing token the lock of mode hands out.
func fence(mode scenarios.Mode) int64 {
	if mode == scenarios.Fenced {
		return 7
	}
	return 0
}

// TestAttemptOutcome walks every branch of Attempt that maps an error (or
// its absence) to the record, one group of rows per branch:
//
//	Acquire     ErrTimeout → LockTimeout; else Error, Infra redis if health.Failure
//	Holding     fault → Error, Infra redis if health.Failure; a lock taken is released
//	Sell        nil → Sold+Seat; ErrSoldOut → SoldOut (no Err); ErrFenced,
//	            ErrDuplicate → Rejected; else Error, Infra postgresql if health.Failure;
//	            Result.Read copied whenever set
//	AfterWrite  fault → Err if none yet; outcome kept
//	Release     error → Err if none yet; (false, nil) → LockLost; outcome kept
func TestAttemptOutcome(t *testing.T) {
	tests := []struct {
		name  string
		modes []scenarios.Mode
		// What the fakes do: the lock fails to acquire, calls AcquireGap,
		// finds itself lost or fails on release; faults strike; Faults is
		// nil; ctx is canceled during the sale; the sale reads and fails.
		acquireErr, releaseErr, sellErr error
		gapLock, lost, noFaults, cancel bool
		faults                          map[Point]error
		read                            *int
		// What the attempt records. held: the lock was taken (LockAcquired,
		// Token, LockReleased in lock modes); sold: Sell ran (DBStart, DBEnd).
		want                 history.Outcome
		wantSeat             int
		wantErr, wantInfra   string
		wantLost, held, sold bool
	}{
		// Acquire fails: no lock, no sale, no release.
		{name: "lock wait timed out", modes: lockModes, acquireErr: redislock.ErrTimeout, want: history.LockTimeout},
		{name: "lock wait timed out, wrapped", modes: lockModes, acquireErr: fmt.Errorf("acquire: %w", redislock.ErrTimeout), want: history.LockTimeout},
		{name: "acquire: redis refused", modes: lockModes, acquireErr: refused, want: history.Error, wantErr: refused.Error(), wantInfra: history.ServerRedis},
		{name: "acquire: redis pool timeout", modes: lockModes, acquireErr: redis.ErrPoolTimeout, want: history.Error, wantErr: redis.ErrPoolTimeout.Error(), wantInfra: history.ServerRedis},
		{name: "acquire: strategy error", modes: lockModes, acquireErr: strategyE, want: history.Error, wantErr: "strategy broke"},
		{name: "acquire-gap fault fails the acquisition", modes: lockModes, gapLock: true, faults: map[Point]error{AcquireGap: context.Canceled}, want: history.Error, wantErr: "context canceled"},
		// Holding fault: no sale, but a lock taken is still released.
		{name: "holding fault: redis fault counter down", modes: allModes, faults: map[Point]error{Holding: fmt.Errorf("fault counter: %w", reset)}, want: history.Error, wantErr: "fault counter: " + reset.Error(), wantInfra: history.ServerRedis, held: true},
		{name: "holding fault: other error", modes: allModes, faults: map[Point]error{Holding: strategyE}, want: history.Error, wantErr: "strategy broke", held: true},
		// The sale's result.
		{name: "sold after a read", modes: readModes, read: intp(5), want: history.Sold, wantSeat: 3, held: true, sold: true},
		{name: "sold atomically", modes: atomicModes, want: history.Sold, wantSeat: 3, held: true, sold: true},
		{name: "sold without faults", modes: allModes, noFaults: true, want: history.Sold, wantSeat: 3, held: true, sold: true},
		{name: "sold out after a read", modes: readModes, read: intp(0), sellErr: inventory.ErrSoldOut, want: history.SoldOut, held: true, sold: true},
		{name: "sold out atomically", modes: atomicModes, sellErr: inventory.ErrSoldOut, want: history.SoldOut, held: true, sold: true},
		{name: "fenced out", modes: []scenarios.Mode{scenarios.Fenced}, sellErr: inventory.ErrFenced, want: history.Rejected, wantErr: inventory.ErrFenced.Error(), held: true, sold: true},
		{name: "duplicate request, wrapped", modes: allModes, sellErr: fmt.Errorf("insert sale: %w", inventory.ErrDuplicate), want: history.Rejected, wantErr: "insert sale: " + inventory.ErrDuplicate.Error(), held: true, sold: true},
		{name: "postgres connection failure 08006", modes: allModes, sellErr: &pgconn.PgError{Code: "08006"}, want: history.Error, wantErr: (&pgconn.PgError{Code: "08006"}).Error(), wantInfra: history.ServerPostgreSQL, held: true, sold: true},
		{name: "postgres shutting down 57P01 after the read", modes: readModes, read: intp(4), sellErr: &pgconn.PgError{Code: "57P01"}, want: history.Error, wantErr: (&pgconn.PgError{Code: "57P01"}).Error(), wantInfra: history.ServerPostgreSQL, held: true, sold: true},
		{name: "postgres connection reset", modes: allModes, sellErr: fmt.Errorf("write sector: %w", reset), want: history.Error, wantErr: "write sector: " + reset.Error(), wantInfra: history.ServerPostgreSQL, held: true, sold: true},
		{name: "postgres deadline exceeded", modes: allModes, sellErr: context.DeadlineExceeded, want: history.Error, wantErr: context.DeadlineExceeded.Error(), wantInfra: history.ServerPostgreSQL, held: true, sold: true},
		{name: "postgres check constraint is an answer", modes: allModes, sellErr: &pgconn.PgError{Code: "23514"}, want: history.Error, wantErr: (&pgconn.PgError{Code: "23514"}).Error(), held: true, sold: true},
		{name: "canceled mid-sale: not infrastructure, lock still released", modes: allModes, cancel: true, sellErr: context.Canceled, want: history.Error, wantErr: "context canceled", held: true, sold: true},
		{name: "strategy error", modes: allModes, sellErr: strategyE, want: history.Error, wantErr: "strategy broke", held: true, sold: true},
		{name: "mid-write fault aborts the sale", modes: allModes, faults: map[Point]error{MidWrite: strategyE}, want: history.Error, wantErr: "strategy broke", held: true, sold: true},
		// A MidWrite fault comes back through Sell, so even the Redis fault
		// counter failing there is put down to PostgreSQL.
		{name: "mid-write fault: redis fault counter down", modes: allModes, faults: map[Point]error{MidWrite: fmt.Errorf("fault counter: %w", reset)}, want: history.Error, wantErr: "fault counter: " + reset.Error(), wantInfra: history.ServerPostgreSQL, held: true, sold: true},
		// AfterWrite fault: recorded only if nothing was, never changes the outcome.
		{name: "after-write fault after a sale", modes: allModes, faults: map[Point]error{AfterWrite: refused}, want: history.Sold, wantSeat: 3, wantErr: refused.Error(), held: true, sold: true},
		{name: "after-write fault after sold out", modes: allModes, sellErr: inventory.ErrSoldOut, faults: map[Point]error{AfterWrite: strategyE}, want: history.SoldOut, wantErr: "strategy broke", held: true, sold: true},
		{name: "after-write fault keeps the first error", modes: allModes, sellErr: reset, faults: map[Point]error{AfterWrite: strategyE}, want: history.Error, wantErr: reset.Error(), wantInfra: history.ServerPostgreSQL, held: true, sold: true},
		// Release: recorded, never changes the outcome.
		{name: "release found the lock gone", modes: lockModes, lost: true, want: history.Sold, wantSeat: 3, wantLost: true, held: true, sold: true},
		{name: "release fails after a sale", modes: lockModes, releaseErr: refused, want: history.Sold, wantSeat: 3, wantErr: refused.Error(), held: true, sold: true},
		{name: "release fails, keeps the first error", modes: lockModes, sellErr: strategyE, releaseErr: refused, want: history.Error, wantErr: "strategy broke", held: true, sold: true},
		{name: "release fails, keeps the after-write error", modes: lockModes, faults: map[Point]error{AfterWrite: strategyE}, releaseErr: refused, want: history.Sold, wantSeat: 3, wantErr: "strategy broke", held: true, sold: true},
		{name: "release fails after a holding fault", modes: lockModes, faults: map[Point]error{Holding: strategyE}, releaseErr: refused, want: history.Error, wantErr: "strategy broke", held: true},
	}
	for _, tt := range tests {
		for _, mode := range tt.modes {
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				l := &fakeLock{acquireErr: tt.acquireErr, gap: tt.gapLock, lost: tt.lost, releaseErr: tt.releaseErr}
				s := &fakeSell{read: tt.read, err: tt.sellErr}
				f := &fakeFaults{errs: tt.faults}
				if tt.noFaults {
					f = nil
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tt.cancel {
					s.during = func(context.Context) { cancel() } // the run ends mid-sale
				}
				a := run(ctx, t, mode, l, s, f)

				got := [...]any{a.Outcome, a.Seat, a.Err, a.Infra, a.LockLost}
				if want := [...]any{tt.want, tt.wantSeat, tt.wantErr, tt.wantInfra, tt.wantLost}; got != want {
					t.Errorf("outcome, seat, err, infra, lost = %#v; want %#v", got, want)
				}
				checkStamps(t, a, tt.held && mode.UsesLock(), tt.sold)
				wantToken := fence(mode)
				if !tt.held {
					wantToken = 0
				}
				if a.Token != wantToken {
					t.Errorf("Token = %d, want %d", a.Token, wantToken)
				}
				wantReleases := []redislock.Lease(nil)
				if tt.held && mode.UsesLock() {
					wantReleases = []redislock.Lease{l.lease}
				}
				if !slices.Equal(l.releases, wantReleases) || l.releaseCtxErr != nil {
					t.Errorf("released %v with ctx error %v, want %v with a live ctx", l.releases, l.releaseCtxErr, wantReleases)
				}
				if tt.sold {
					r := s.req
					got := [...]any{r.Sector, r.RequestID, r.Worker, r.StartedAt.UnixNano(), r.Token, r.MidWrite != nil}
					want := [...]any{4, "p1-g2-0", "p1-g2", a.Invoke, wantToken, true}
					if got != want {
						t.Errorf("Sell got sector, id, worker, start, token, MidWrite set = %v, want %v", got, want)
					}
				}
				switch {
				case tt.read == nil && (a.ReadAvailable != nil || a.ReadAt != 0):
					t.Errorf("read = %v at %d, want none", a.ReadAvailable, a.ReadAt)
				case tt.read != nil && (a.ReadAvailable == nil || *a.ReadAvailable != *tt.read || a.ReadAt != s.res.ReadAt.UnixNano()):
					t.Errorf("read = %v at %d, want %d at %d", a.ReadAvailable, a.ReadAt, *tt.read, s.res.ReadAt.UnixNano())
				}
			})
		}
	}
}

// checkStamps checks which phases are stamped and that they are in order.
func checkStamps(t *testing.T, a *history.Attempt, held, sold bool) {
	t.Helper()
	set := func(ns int64) bool { return ns != 0 }
	if !set(a.Invoke) || !set(a.Complete) || set(a.LockAcquired) != held || set(a.LockReleased) != held ||
		set(a.DBStart) != sold || set(a.DBEnd) != sold {
		t.Errorf("stamped invoke %v, lock %v/%v, db %v/%v, complete %v; want true, %v/%v, %v/%v, true",
			set(a.Invoke), set(a.LockAcquired), set(a.LockReleased), set(a.DBStart), set(a.DBEnd), set(a.Complete), held, held, sold, sold)
	}
	if a.Extended != 0 || a.ExtendFailed != 0 {
		t.Errorf("Extended, ExtendFailed = %d, %d without a heartbeat; want 0, 0", a.Extended, a.ExtendFailed)
	}
	seq := []int64{a.Invoke, a.LockAcquired, a.DBStart, a.DBEnd, a.LockReleased, a.Complete}
	seq = slices.DeleteFunc(seq, func(ns int64) bool { return ns == 0 })
	if !slices.IsSorted(seq) {
		t.Errorf("phases out of order: invoke %d, lock %d, db %d-%d, released %d, complete %d",
			a.Invoke, a.LockAcquired, a.DBStart, a.DBEnd, a.LockReleased, a.Complete)
	}
}

// TestAttemptPoints checks the fault points each mode reaches, in order,
// and that only MidWrite is handed a Querier. The real RedisLock never
// calls AcquireGap; the planted locks of internal/driver do.
func TestAttemptPoints(t *testing.T) {
	all := []Point{Holding, MidWrite, AfterWrite}
	tests := []struct {
		name                string
		modes               []scenarios.Mode
		gapLock             bool
		acquireErr, sellErr error
		faults              map[Point]error
		want                []Point
	}{
		{name: "sale", modes: allModes, want: all},
		{name: "sale under a planted lock", modes: lockModes, gapLock: true, want: append([]Point{AcquireGap}, all...)},
		{name: "acquire-gap fault", modes: lockModes, gapLock: true, faults: map[Point]error{AcquireGap: strategyE}, want: []Point{AcquireGap}},
		{name: "lock timeout", modes: lockModes, acquireErr: redislock.ErrTimeout, want: nil},
		{name: "acquire error", modes: lockModes, acquireErr: refused, want: nil},
		{name: "holding fault", modes: allModes, faults: map[Point]error{Holding: strategyE}, want: []Point{Holding}},
		{name: "sold out before the write", modes: allModes, sellErr: inventory.ErrSoldOut, want: []Point{Holding, AfterWrite}},
		{name: "fenced out before the write", modes: []scenarios.Mode{scenarios.Fenced}, sellErr: inventory.ErrFenced, want: []Point{Holding, AfterWrite}},
		{name: "mid-write fault", modes: allModes, faults: map[Point]error{MidWrite: strategyE}, want: all},
		{name: "database error after mid-write", modes: allModes, sellErr: reset, want: all},
		{name: "after-write fault", modes: allModes, faults: map[Point]error{AfterWrite: strategyE}, want: all},
	}
	for _, tt := range tests {
		for _, mode := range tt.modes {
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				f := &fakeFaults{errs: tt.faults}
				run(context.Background(), t, mode, &fakeLock{acquireErr: tt.acquireErr, gap: tt.gapLock}, &fakeSell{err: tt.sellErr}, f)
				if !slices.Equal(f.points, tt.want) {
					t.Errorf("points = %v, want %v", f.points, tt.want)
				}
				for i, p := range f.points {
					if f.withQ[i] != (p == MidWrite) {
						t.Errorf("at %s got a Querier: %v, want %v", p, f.withQ[i], p == MidWrite)
					}
				}
			})
		}
	}
}

// TestHeartbeat checks what the heartbeat records: Extended is the stamp
// of the last extension that kept the lock, ExtendFailed that of the first
// that did not; it stops once the lock is lost, waits while the world is
// paused, and never touches the outcome. Extensions tick every millisecond;
// the sale waits for as many as the case needs.
func TestHeartbeat(t *testing.T) {
	ok := func(int) (bool, error) { return true, nil }
	tests := []struct {
		name      string
		every     time.Duration
		extend    func(n int) (bool, error) // answer to the n-th Extend
		wait      int                       // extensions the sale waits for
		paused    bool                      // World is held for writing until the sale ends
		wantCalls int                       // Extend calls; -1: at least wait
	}{
		{name: "off", extend: ok, wantCalls: 0},
		{name: "extends", every: time.Millisecond, extend: ok, wait: 2, wantCalls: -1},
		{name: "lost: stops", every: time.Millisecond, extend: func(int) (bool, error) { return false, nil }, wait: 1, wantCalls: 1},
		{name: "error, then extends", every: time.Millisecond, wait: 2, wantCalls: -1,
			extend: func(n int) (bool, error) { return n > 1, map[bool]error{true: reset}[n == 1] }},
		{name: "extends, then errors: keeps trying", every: time.Millisecond, wait: 3, wantCalls: -1,
			extend: func(n int) (bool, error) { return n == 1, map[bool]error{true: reset}[n > 1] }},
		{name: "paused world", every: time.Millisecond, extend: ok, paused: true, wantCalls: -1},
	}
	for _, tt := range tests {
		for _, mode := range lockModes {
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				l, world := &fakeLock{extend: tt.extend}, &sync.RWMutex{}
				s := &fakeSell{during: func(context.Context) {
					for deadline := time.Now().Add(5 * time.Second); len(l.extendLog()) < tt.wait && time.Now().Before(deadline); {
						time.Sleep(100 * time.Microsecond)
					}
					time.Sleep(3 * tt.every) // room for extensions that should not happen
					if tt.paused {
						if n := len(l.extendLog()); n != 0 {
							t.Errorf("Extend called %d times while paused, want 0", n)
						}
						world.Unlock()
					}
				}}
				if tt.paused {
					world.Lock()
				}
				a := &history.Attempt{RequestID: "r"}
				c := &Contender{Mode: mode, Lock: l, Sell: s.sell, ExtendEvery: tt.every, World: world}
				c.Attempt(context.Background(), a, nil)

				log := l.extendLog()
				if n := len(log); tt.wantCalls >= 0 && n != tt.wantCalls || tt.wantCalls < 0 && n < tt.wait {
					t.Errorf("Extend called %d times, want %d (at least %d)", n, tt.wantCalls, tt.wait)
				}
				lastOK, firstFail := -1, slices.IndexFunc(log, func(c extendCall) bool { return !c.ok })
				for i, c := range log {
					if c.ok {
						lastOK = i
					}
				}
				// The stamp of call i is taken after call i-1 and before call i reaches the lock.
				check := func(what string, ns int64, i int) {
					if i < 0 && ns != 0 || i >= 0 && (ns > log[i].at || ns < a.LockAcquired || i > 0 && ns < log[i-1].at) {
						t.Errorf("%s = %d, want the stamp of Extend call %d of %v (0 if none)", what, ns, i, log)
					}
				}
				check("Extended", a.Extended, lastOK)
				check("ExtendFailed", a.ExtendFailed, firstFail)
				if a.Outcome != history.Sold || a.Err != "" || a.LockLost || a.LockReleased < max(a.Extended, a.ExtendFailed) {
					t.Errorf("outcome, err, lost, released = %s, %q, %v, %d; want sold, \"\", false, after the heartbeat", a.Outcome, a.Err, a.LockLost, a.LockReleased)
				}
			})
		}
	}
}

// TestNew checks how New wires each mode's lock and heartbeat. Which of
// Store's sales a mode gets, and RedisLock itself, can only be seen against
// real PostgreSQL and Redis; the driver's tests cover them.
func TestNew(t *testing.T) {
	tests := []struct {
		name      string
		mode      scenarios.Mode
		extend    bool
		wantFence string // "-": no lock
		wantEvery time.Duration
	}{
		{name: "none", mode: scenarios.None, extend: true, wantFence: "-"},
		{name: "update-only", mode: scenarios.UpdateOnly, extend: true, wantFence: "-"},
		{name: "lock-only", mode: scenarios.LockOnly},
		{name: "lock-plus-update, extended", mode: scenarios.LockPlusUpdate, extend: true, wantEvery: 30 * time.Millisecond},
		{name: "fenced", mode: scenarios.Fenced, wantFence: "fence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ttl := &fakeFaults{}, 90*time.Millisecond
			c := New(tt.mode, Deps{Sector: 4, LockKey: "lock", FenceKey: "fence", LockTTL: ttl, LockWait: time.Second, Extend: tt.extend, Faults: f})
			want := RedisLock{Key: "lock", FenceKey: tt.wantFence, TTL: ttl, Wait: time.Second}
			if l, _ := c.Lock.(*RedisLock); tt.wantFence == "-" && c.Lock != nil || tt.wantFence != "-" && (l == nil || *l != want) {
				t.Errorf("lock = %+v, want %+v (fence %q)", c.Lock, want, tt.wantFence)
			}
			if c.ExtendEvery != tt.wantEvery || c.Sell == nil || c.Sector != 4 || c.Faults != f || c.Mode != tt.mode {
				t.Errorf("every, sell set, sector, faults passed, mode = %v, %v, %d, %v, %s; want %v, true, 4, true, %s",
					c.ExtendEvery, c.Sell != nil, c.Sector, c.Faults == f, c.Mode, tt.wantEvery, tt.mode)
			}
		})
	}
}

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
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/scenarios"
)

// fakeLock is a Lock that answers as told. With gap it calls gap once before
// granting, as a planted lock made of several commands does. Extend runs on
// the heartbeat goroutine, so its log is guarded by mu.
type fakeLock struct {
	lease      hammerlock.Lease
	acquireErr error
	gap        bool
	lost       bool  // Release reports the lock was no longer ours
	releaseErr error // Release fails
	extend     func(n int) (bool, error)

	releases      []hammerlock.Lease
	releaseCtxErr error // ctx.Err() seen by Release

	mu      sync.Mutex
	extends []extendCall
}

// extendCall is one call of fakeLock.Extend: when, and whether it extended.
type extendCall struct {
	at int64
	ok bool
}

func (l *fakeLock) Acquire(ctx context.Context, _ *rand.Rand, gap func(context.Context) error) (hammerlock.Lease, error) {
	if l.gap {
		if err := gap(ctx); err != nil {
			return hammerlock.Lease{}, err
		}
	}
	return l.lease, l.acquireErr
}

func (l *fakeLock) Release(ctx context.Context, lease hammerlock.Lease) (bool, error) {
	l.releases, l.releaseCtxErr = append(l.releases, lease), ctx.Err()
	return !l.lost, l.releaseErr
}

func (l *fakeLock) Extend(context.Context, hammerlock.Lease) (bool, error) {
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
	req    seatdb.Request
	res    seatdb.Result
}

func (s *fakeSell) sell(ctx context.Context, r seatdb.Request) (seatdb.Result, error) {
	if s.during != nil {
		s.during(ctx)
	}
	s.req, s.res = r, seatdb.Result{Read: s.read}
	if s.read != nil {
		s.res.ReadAt = time.Now()
	}
	if errors.Is(s.err, seatdb.ErrSoldOut) || errors.Is(s.err, seatdb.ErrFenced) {
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
type fakeQuerier struct{ seatdb.Querier }

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

func (f *fakeFaults) At(_ context.Context, a *history.Attempt, p Point, q seatdb.Querier) error {
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
		l.lease, c.Lock = hammerlock.Lease{Key: "lock:4", Token: "tok", Fence: fence(mode)}, l
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
		{name: "lock wait timed out", modes: lockModes, acquireErr: hammerlock.ErrTimeout, want: history.LockTimeout},
		{name: "lock wait timed out, wrapped", modes: lockModes, acquireErr: fmt.Errorf("acquire: %w", hammerlock.ErrTimeout), want: history.LockTimeout},
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
		{name: "sold out after a read", modes: readModes, read: intp(0), sellErr: seatdb.ErrSoldOut, want: history.SoldOut, held: true, sold: true},
		{name: "sold out atomically", modes: atomicModes, sellErr: seatdb.ErrSoldOut, want: history.SoldOut, held: true, sold: true},
		{name: "fenced out", modes: []scenarios.Mode{scenarios.Fenced}, sellErr: seatdb.ErrFenced, want: history.Rejected, wantErr: seatdb.ErrFenced.Error(), held: true, sold: true},
		{name: "duplicate request, wrapped", modes: allModes, sellErr: fmt.Errorf("insert sale: %w", seatdb.ErrDuplicate), want: history.Rejected, wantErr: "insert sale: " + seatdb.ErrDuplicate.Error(), held: true, sold: true},
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
		{name: "after-write fault after sold out", modes: allModes, sellErr: seatdb.ErrSoldOut, faults: map[Point]error{AfterWrite: strategyE}, want: history.SoldOut, wantErr: "strategy broke", held: true, sold: true},
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
				wantReleases := []hammerlock.Lease(nil)
				if tt.held && mode.UsesLock() {
					wantReleases = []hammerlock.Lease{l.lease}
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
		{name: "lock timeout", modes: lockModes, acquireErr: hammerlock.ErrTimeout, want: nil},
		{name: "acquire error", modes: lockModes, acquireErr: refused, want: nil},
		{name: "holding fault", modes: allModes, faults: map[Point]error{Holding: strategyE}, want: []Point{Holding}},
		{name: "sold out before the write", modes: allModes, sellErr: seatdb.ErrSoldOut, want: []Point{Holding, AfterWrite}},
		{name: "fenced out before the write", modes: []scenarios.Mode{scenarios.Fenced}, sellErr: seatdb.ErrFenced, want: []Point{Holding, AfterWrite}},
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

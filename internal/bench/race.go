package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/seatdb"
)

// errGaveUp is a lock that was not obtained within its library's retries:
// the contender goes home without a seat, which is allowed.
var errGaveUp = errors.New("gave up on the lock")

// raceLock is a lock library as a contender uses it: acquire returns the
// release, or errGaveUp.
type raceLock interface {
	acquire(ctx context.Context) (release func(context.Context) error, err error)
}

// lockFactory makes the lock of one race from its Redis client and key.
type lockFactory func(rdb *redis.Client, key string) raceLock

// inProcess is a race run inside the bench: goroutines contenders, one
// attempt each, for seats seats through one pgxpool of conns connections;
// with a lock, each takes it first and releases it after the sale.
type inProcess struct {
	name       string
	goroutines int
	seats      int
	conns      int
	lock       lockFactory // nil: the atomic update alone
}

// result is what one contender was told: the sale's outcome (nil: sold),
// and any error of its lock library, which cannot sell a seat twice and
// so does not fail the race, but is reported.
type result struct {
	sale, lock error
}

// raceOutcome counts what a race's contenders were told.
type raceOutcome struct {
	sold, soldOut, gaveUp int
	// saleErrs failed to sell for another reason: the race fails.
	saleErrs     int
	firstSaleErr error
	// lockErrs are lock commands that failed (acquire or release).
	lockErrs     int
	firstLockErr error
}

// add counts one contender's result.
func (o *raceOutcome) add(r result) {
	switch {
	case r.sale == nil:
		o.sold++
	case errors.Is(r.sale, seatdb.ErrSoldOut):
		o.soldOut++
	case errors.Is(r.sale, errGaveUp):
		o.gaveUp++
	default:
		o.saleErrs++
		o.firstSaleErr = cmp.Or(o.firstSaleErr, r.sale)
	}
	if r.lock != nil {
		o.lockErrs++
		o.firstLockErr = cmp.Or(o.firstLockErr, r.lock)
	}
}

// raceResult is a verified race: its wall time in ms, go signal → last
// answer, its start skew in ms (the latest contender's start − the
// earliest's, as hammer's start_skew_ms) and what its contenders were told.
type raceResult struct {
	wall, skew Value
	out        raceOutcome
}

// note says what a lock library did besides selling, "" if nothing.
func (r raceResult) note(name string) string {
	if r.out.lockErrs == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d lock commands failed, the first with: %v", name, r.out.lockErrs, r.out.firstLockErr)
}

// race runs r and verifies it: it fails unless exactly r.seats were sold,
// the ledger holds exactly that many rows with no seat twice, and no sale
// failed.
func (b *Bench) race(ctx context.Context, r inProcess) (raceResult, error) {
	res := raceResult{wall: NA(), skew: NA()}
	schema, prefix := b.names(r.name)
	err := seatdb.Create(ctx, b.stack.PGURL, schema, history.Sector{ID: 1, Capacity: r.seats})
	if err != nil {
		return res, fmt.Errorf("%s: %w", r.name, err)
	}
	defer seatdb.Drop(context.WithoutCancel(ctx), b.stack.PGURL, schema)
	defer hammerlock.DeleteAll(context.WithoutCancel(ctx), b.stack.RedisURL, prefix)
	store, err := seatdb.Open(ctx, b.stack.PGURL, schema, r.conns)
	if err != nil {
		return res, fmt.Errorf("%s: %w", r.name, err)
	}
	defer store.Close()
	if err := store.Warm(ctx); err != nil {
		return res, fmt.Errorf("%s: %w", r.name, err)
	}
	c := contender{store: store, warm: func(context.Context) error { return nil }}
	if r.lock != nil {
		rdb, err := b.redisClient(r.goroutines)
		if err != nil {
			return res, fmt.Errorf("%s: %w", r.name, err)
		}
		defer rdb.Close()
		c.lock = r.lock(rdb, prefix+"lock")
		c.warm = func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
	}
	run := contend(ctx, r, c, time.Time{})
	res.out = run.out
	if err := verifyRace(ctx, r, store, run.out); err != nil {
		return res, fmt.Errorf("%s: %w", r.name, err)
	}
	res.wall, res.skew = millisBetween(run.t0, run.last), millisBetween(run.first, run.latest)
	return res, nil
}

// millisBetween is b − a in ms.
func millisBetween(a, b time.Time) Value { return Known(float64(b.Sub(a).Microseconds()) / 1000) }

// contender is what every contender of a race shares.
type contender struct {
	store *seatdb.Store
	lock  raceLock // nil: the atomic update alone
	// warm opens the contender's Redis connection before the go signal,
	// as hammer's workers do.
	warm func(context.Context) error
}

// contended is what contend saw: when it gave the go signal, the earliest
// and the latest start of a contender, the last answer, and the outcomes.
type contended struct {
	t0, first, latest, last time.Time
	out                     raceOutcome
}

// contend starts every contender, lines them up behind one go signal once
// each has warmed up, gives the signal at the instant at (at once when at
// is zero) and returns what it saw.
func contend(ctx context.Context, r inProcess, c contender, at time.Time) (run contended) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	starts := make([]time.Time, r.goroutines)
	ends := make([]time.Time, r.goroutines)
	results := make([]result, r.goroutines)
	for g := range r.goroutines {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			err := c.warm(ctx)
			ready.Done()
			<-start
			starts[g] = time.Now()
			if err != nil {
				results[g] = result{sale: err}
			} else {
				results[g] = c.attempt(ctx, r.name+"-g"+strconv.Itoa(g))
			}
			ends[g] = time.Now()
		}()
	}
	ready.Wait()
	time.Sleep(time.Until(at))
	run.t0 = time.Now()
	close(start)
	done.Wait()
	run.first = starts[0]
	for g, res := range results {
		run.first = earliest(run.first, starts[g])
		run.latest = latest(run.latest, starts[g])
		run.last = latest(run.last, ends[g])
		run.out.add(res)
	}
	return run
}

// attempt is one contender: the lock if any, the atomic sale, the release.
// A lock that could not be taken for an error gives up (the error is the
// lock's); a failed release is the lock's error too, not the sale's.
func (c contender) attempt(ctx context.Context, id string) (res result) {
	if c.lock != nil {
		release, err := c.lock.acquire(ctx)
		switch {
		case errors.Is(err, errGaveUp):
			return result{sale: err}
		case err != nil:
			return result{sale: fmt.Errorf("%w: %w", errGaveUp, err), lock: err}
		}
		defer func() {
			if err := release(context.WithoutCancel(ctx)); err != nil {
				res.lock = fmt.Errorf("release: %w", err)
			}
		}()
	}
	_, res.sale = c.store.SellAtomic(ctx, seatdb.Request{Sector: 1, RequestID: id, Worker: "bench", StartedAt: time.Now()})
	return res
}

// verifyRace checks what the contenders were told against the ledger.
func verifyRace(ctx context.Context, r inProcess, store *seatdb.Store, out raceOutcome) error {
	if out.saleErrs > 0 {
		return fmt.Errorf("%d sales failed, the first with: %w", out.saleErrs, out.firstSaleErr)
	}
	if out.sold != r.seats {
		return fmt.Errorf("wrong race: %d told sold (%d sold out, %d gave up on the lock), want exactly %d",
			out.sold, out.soldOut, out.gaveUp, r.seats)
	}
	return checkLedger(ctx, store, r.seats)
}

// checkLedger checks that the ledger holds exactly want sales, each a seat
// of its own, and that the sector's counter agrees.
func checkLedger(ctx context.Context, store *seatdb.Store, want int) error {
	ledger, err := store.Ledger(ctx, "bench")
	if err != nil {
		return err
	}
	sector, err := store.Sector(ctx, "bench", 1)
	if err != nil {
		return err
	}
	seats := map[int]bool{}
	for _, s := range ledger {
		seats[s.Seat] = true
	}
	if len(ledger) != want || len(seats) != want || sector.Capacity-sector.Available != want {
		return fmt.Errorf("wrong ledger: %d rows, %d distinct seats, the counter says %d sold; want exactly %d",
			len(ledger), len(seats), sector.Capacity-sector.Available, want)
	}
	return nil
}

// redisClient is a client of the bench's Redis with one connection per
// contender, as hammer gives each of its goroutines.
func (b *Bench) redisClient(conns int) (*redis.Client, error) {
	opt, err := redis.ParseURL(b.stack.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opt.PoolSize = conns
	return redis.NewClient(opt), nil
}

// latest is the later of a and b.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// earliest is the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

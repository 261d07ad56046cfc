package target

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/replicas"
	"github.com/hammer-load/hammer/internal/seatdb"
)

// Sale says where the sale of the holder with token on replica proc
// stands: through it once the lock holds another value, else inside it
// when one of the replica's connections to the service's database is in a
// transaction that has written and stays open while the replica is
// stopped (see holding), else not seen inside yet.
func (b *Backend) Sale(ctx context.Context, proc int, token string) (fault.SaleState, error) {
	if b.set == nil {
		return fault.SaleGone, fmt.Errorf("no replica hammer started")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.openLooks(ctx); err != nil {
		return fault.SaleGone, err
	}
	if v, err := b.looks.Get(ctx, b.lockKey).Result(); err != nil || v != token {
		return fault.SaleGone, nil
	}
	look := time.Now()
	writing, err := b.writing(ctx)
	if err != nil {
		return fault.SaleGone, err
	}
	var mine []seatdb.Writer
	for w, r := range writing {
		if r == proc {
			mine = append(mine, w)
		}
	}
	switch held, err := b.holding(ctx, mine, look); {
	case err != nil:
		return fault.SaleGone, err
	case len(held) > 0:
		return fault.SaleInside, nil
	}
	// It has written nothing; or its COMMIT was on its way when it stopped
	// (it is through its sale once it runs again), or its statement still
	// runs: look again.
	return fault.SalePending, nil
}

// openLooks opens, once, what Sale looks through.
func (b *Backend) openLooks(ctx context.Context) error {
	if b.activity != nil {
		return nil
	}
	opt, err := redis.ParseURL(b.watchURL)
	if err != nil {
		return err
	}
	activity, err := seatdb.OpenActivity(ctx, b.pgURL)
	if err != nil {
		return err
	}
	b.looks, b.activity = redis.NewClient(opt), activity
	return nil
}

// CatchWriter steps every replica together (SIGSTOP all, look, SIGCONT
// all for a moment) until one's transaction has written and stays open
// while it is stopped, leaves that one stopped and returns it; ErrMissed
// when ctx ends first. Frozen together, the replicas cannot slip through a
// sale between two looks the way a watch that lags behind them would let
// them.
func (b *Backend) CatchWriter(ctx context.Context) (int, error) {
	if b.set == nil {
		return 0, fmt.Errorf("no replica hammer started")
	}
	all := func(sig syscall.Signal, except int) {
		for i := range b.set.Len() {
			if i != except {
				_, _ = b.set.Signal(i, sig)
			}
		}
	}
	for ctx.Err() == nil {
		all(syscall.SIGSTOP, -1)
		r, ok, err := b.writer(ctx)
		if err == nil && ok {
			all(syscall.SIGCONT, r)
			return r, nil
		}
		all(syscall.SIGCONT, -1)
		if err != nil {
			return 0, err
		}
		fault.Spin(catchStep)
	}
	return 0, fault.ErrMissed
}

// catchStep is how long CatchWriter lets the replicas run between looks.
const catchStep = 200 * time.Microsecond

// writer finds a stopped replica whose transaction has written and stays
// open.
func (b *Backend) writer(ctx context.Context) (int, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.openLooks(ctx); err != nil {
		return 0, false, err
	}
	ctx = context.WithoutCancel(ctx)
	look := time.Now()
	writing, err := b.writing(ctx)
	if err != nil {
		return 0, false, err
	}
	held, err := b.holding(ctx, slices.Collect(maps.Keys(writing)), look)
	if err != nil || len(held) == 0 {
		return 0, false, err
	}
	return writing[held[0]], true, nil
}

// writing maps each connection of a replica in a transaction that has
// written and not committed to the replica; b.mu is held and the looks are
// open. The replicas are stopped while it looks, so it never waits for a
// scan of their sockets: a connection it does not know yet (a replica's
// pool grew, or another client of the database) is known at a later look.
func (b *Backend) writing(ctx context.Context) (map[seatdb.Writer]int, error) {
	ws, err := b.activity.Writing(ctx)
	if err != nil {
		return nil, err
	}
	out := map[seatdb.Writer]int{}
	for _, w := range ws {
		if r, ok := b.set.Known(replicas.Conn{Local: w.Port, Remote: b.pgPort}); ok {
			out[w] = r
		}
	}
	return out, nil
}

// holding returns the writers of ws, of replicas stopped since before the
// look that found them (begun at look), that keep their transaction open
// (see seatdb.Activity.Holding), given the time a COMMIT one of them
// sent before it stopped needs to reach the server and be run: the longer
// of settleMin and twice the look's round trip. With no writer, none.
func (b *Backend) holding(ctx context.Context, ws []seatdb.Writer, look time.Time) ([]seatdb.Writer, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	return b.activity.Holding(ctx, ws, max(settleMin, 2*time.Since(look)))
}

// settleMin is the least time holding gives what a stopped replica sent to
// reach the server and be run.
const settleMin = 5 * time.Millisecond

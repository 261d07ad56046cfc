package target

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/inventory"
	"github.com/hammer-load/hammer/internal/replicas"
)

// Sale says where the sale of the holder with token on replica proc
// stands: through it once the lock holds another value, else inside it
// when one of the replica's connections to the service's database is in a
// transaction that has written and stays open while the replica is
// stopped (see open), else not there yet.
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
	w, ok := writing[proc]
	if !ok {
		return fault.SalePending, nil
	}
	switch open, err := b.open(ctx, w, time.Since(look)); {
	case err != nil:
		return fault.SaleGone, err
	case open:
		return fault.SaleInside, nil
	}
	// Its COMMIT was on its way when it stopped: it is through its sale
	// once it runs again.
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
	activity, err := inventory.OpenActivity(ctx, b.pgURL)
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
	rtt := time.Since(look)
	for r, w := range writing {
		open, err := b.open(ctx, w, rtt)
		if err != nil || open {
			return r, open, err
		}
	}
	return 0, false, nil
}

// writing maps each replica with a connection in a transaction that has
// written and not committed to that connection (one of them); b.mu is
// held and the looks are open. The replicas are stopped while it looks,
// so it never waits for a scan of their sockets: a connection it does not
// know yet (a replica's pool grew, or another client of the database) is
// known at a later look.
func (b *Backend) writing(ctx context.Context) (map[int]inventory.Writer, error) {
	ws, err := b.activity.Writing(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int]inventory.Writer{}
	for _, w := range ws {
		if r, ok := b.set.Known(replicas.Conn{Local: w.Port, Remote: b.pgPort}); ok {
			out[r] = w
		}
	}
	return out, nil
}

// open says whether writer w, of a replica stopped since before the look
// that found it (which took rtt), keeps its transaction open (see
// inventory.Activity.Holds), given the time a COMMIT it sent before it
// stopped needs to reach the server and be run.
func (b *Backend) open(ctx context.Context, w inventory.Writer, rtt time.Duration) (bool, error) {
	return b.activity.Holds(ctx, w, max(settleMin, 2*rtt))
}

// settleMin is the least time open gives what a stopped replica sent to
// reach the server and be run.
const settleMin = 5 * time.Millisecond

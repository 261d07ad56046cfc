package seatdb

import (
	"context"
	"fmt"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/health"
)

// ReadBack is what was read of a run's inventory after its race, and what
// could not be.
type ReadBack struct {
	Sales []history.Sale
	// Sector is the final sector row, nil when it could not be read.
	Sector *history.Sector
	// LedgerErr is set when the ledger could not be read; SectorErr when
	// the sector row could not.
	LedgerErr, SectorErr error
	// NoCounter: there is no sector row to read (a service that keeps no
	// counter).
	NoCounter bool
	// Truncated: the ledger had more rows than its read's Bound let it
	// read; Sales holds the first ones.
	Truncated bool
}

// ReadBackAll reads the ledger and the final row of sector id of the run's
// schema, ledger rows up to bound, trying again for up to wait while
// PostgreSQL fails. A cancelled ctx gets one try.
func ReadBackAll(ctx context.Context, pgURL, schema, run string, id int, bound Bound, wait time.Duration) ReadBack {
	return Retry(ctx, wait, func(ctx context.Context) ReadBack { return readBackOnce(ctx, pgURL, schema, run, id, bound) })
}

// Retry calls once until it reads everything, it fails otherwise than by
// PostgreSQL failing, wait passed, or ctx ended (one try then).
func Retry(ctx context.Context, wait time.Duration, once func(context.Context) ReadBack) ReadBack {
	deadline := time.Now().Add(wait)
	for {
		r := once(ctx)
		err := r.LedgerErr
		if err == nil {
			err = r.SectorErr
		}
		if err == nil || !health.Failure(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return r
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// readBackOnce makes one try at reading the ledger and the sector row.
func readBackOnce(ctx context.Context, pgURL, schema, run string, id int, bound Bound) ReadBack {
	return readWith(ctx, pgURL, schema, func(ctx context.Context, store *Store) ReadBack {
		sales, more, err := store.LedgerUpTo(ctx, run, bound)
		if err != nil {
			return ReadBack{LedgerErr: err}
		}
		sec, err := store.Sector(ctx, run, id)
		if err != nil {
			return ReadBack{Sales: sales, Truncated: more, SectorErr: err}
		}
		return ReadBack{Sales: sales, Truncated: more, Sector: &sec}
	})
}

// readWith makes one try at a read-back with read, over a connection of
// its own to the run's schema, bounded to 5 s even once ctx ended.
func readWith(ctx context.Context, pgURL, schema string, read func(context.Context, *Store) ReadBack) ReadBack {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	store, err := Open(ctx, pgURL, schema, 1)
	if err != nil {
		return ReadBack{LedgerErr: fmt.Errorf("read back: %w", err)}
	}
	defer store.Close()
	return read(ctx, store)
}

package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/health"
	"github.com/hammer-load/hammer/internal/inventory"
)

// defaultReadBackWait is how long the read-back after a race keeps trying
// while PostgreSQL fails, unless Options say otherwise.
const defaultReadBackWait = 15 * time.Second

// readBackResult is what was read back after a race, and what could not be.
type readBackResult struct {
	sales     []history.Sale
	sector    *history.Sector // nil when it could not be read
	ledgerErr error           // set when the ledger could not be read
	sectorErr error
}

// readBack reads the ledger and the final sector row after the race,
// trying again for up to wait while PostgreSQL fails. An interrupted race
// gets one try.
func readBack(ctx context.Context, pgURL, schema, run string, wait time.Duration) readBackResult {
	deadline := time.Now().Add(wait)
	for {
		r := readBackOnce(ctx, pgURL, schema, run)
		err := r.ledgerErr
		if err == nil {
			err = r.sectorErr
		}
		if err == nil || !health.Failure(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return r
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// readBackOnce makes one try at reading the ledger and the sector row.
func readBackOnce(ctx context.Context, pgURL, schema, run string) readBackResult {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	store, err := inventory.Open(ctx, pgURL, schema, 1)
	if err != nil {
		return readBackResult{ledgerErr: fmt.Errorf("read back: %w", err)}
	}
	defer store.Close()
	sales, err := store.Ledger(ctx, run)
	if err != nil {
		return readBackResult{ledgerErr: err}
	}
	sec, err := store.Sector(ctx, run, sectorID)
	if err != nil {
		return readBackResult{sales: sales, sectorErr: err}
	}
	return readBackResult{sales: sales, sector: &sec}
}

// cleanup removes the run's schema and every key under its prefix, and
// nothing else. What it could not remove it reports, naming it.
func cleanup(o Options, schema, prefix string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	if err := inventory.Drop(ctx, o.PGURL, schema); err != nil {
		errs = append(errs, fmt.Errorf("clean-up left schema %s: %w", schema, err))
	}
	opt, err := redis.ParseURL(o.RedisURL)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		if err := rdb.Del(ctx, iter.Val()).Err(); err != nil {
			errs = append(errs, fmt.Errorf("clean-up left key %s: %w", iter.Val(), err))
		}
	}
	if err := iter.Err(); err != nil {
		errs = append(errs, fmt.Errorf("clean-up could not list keys %s*: %w", prefix, err))
	}
	return errors.Join(errs...)
}

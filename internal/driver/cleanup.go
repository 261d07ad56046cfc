package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/hammerlock"
	"github.com/hammer-load/hammer/internal/health"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/wire"
)

// cleanupWait bounds the clean-up of a race whose servers answered.
const cleanupWait = 30 * time.Second

// cleanupDownWait is how long the clean-up keeps trying a server the
// health checks saw stop answering: a Redis that answers again within it
// has the race's keys removed, a PostgreSQL its schema dropped; past it,
// what the race may have left is named and hammer goes on, so that a
// frozen server ends a run within seconds instead of holding it for the
// clean-up's full wait.
const cleanupDownWait = 500 * time.Millisecond

// teardown is what the clean-up after a race needs to know of it.
type teardown struct {
	schema, prefix string
	// keys are the keys the race's workers may make under prefix; set
	// once they are known.
	keys []leftKey
	// redisDown, pgDown: the health checks saw Redis, PostgreSQL stop
	// answering and not answer again.
	redisDown, pgDown bool
}

// leftKey is a key a race may leave in Redis, and its TTL (0: none).
type leftKey struct {
	key string
	ttl time.Duration
}

// raceKeys are the keys the workers of a race told cfg may make: the lock
// (with its TTL, which a holder's extension renews for at most one TTL),
// the fencing and fault counters and the stock counter.
func raceKeys(o Options, cfg wire.Config) []leftKey {
	keys := []leftKey{{cfg.LockKey, o.LockTTL}, {cfg.FenceKey, 0}, {cfg.FaultKey, 0}}
	if cfg.StockKey != "" {
		keys = append(keys, leftKey{cfg.StockKey, 0})
	}
	return keys
}

// downAtEnd reports whether the outages end with server (a
// history.Server name) not answering.
func downAtEnd(outages []history.Outage, server string) bool {
	for _, o := range outages {
		if o.Server == server && o.To == 0 {
			return true
		}
	}
	return false
}

// cleanup removes the run's schema and every key under its prefix, and
// nothing else, from both servers at once. What it could not remove it
// reports, naming it.
func cleanup(o Options, td *teardown) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupWait)
	defer cancel()
	wait := cleanupWait
	if td.redisDown {
		wait = cleanupDownWait
	}
	urls := append([]string{o.RedisURL}, o.RedisPeers...)
	redisErrs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() {
			redisErrs[i] = deleteKeys(ctx, u, td, wait)
			if redisErrs[i] != nil && i > 0 {
				redisErrs[i] = fmt.Errorf("redis node %d: %w", i, redisErrs[i])
			}
		})
	}
	pgCtx := ctx
	if td.pgDown {
		var cancel context.CancelFunc
		pgCtx, cancel = context.WithTimeout(ctx, cleanupDownWait)
		defer cancel()
	}
	pgErr := seatdb.Drop(pgCtx, o.PGURL, td.schema)
	wg.Wait()
	if pgErr != nil {
		pgErr = fmt.Errorf("clean-up left schema %s (drop it with DROP SCHEMA %s CASCADE): %w", td.schema, td.schema, pgErr)
	}
	return errors.Join(append([]error{pgErr}, redisErrs...)...)
}

// deleteKeys removes the keys under td's prefix from the Redis at url,
// waiting up to wait for it to answer, and trying again meanwhile when
// the watch saw it down. When it did not answer, it names each key the
// race may have left there and its TTL, one line each.
func deleteKeys(ctx context.Context, url string, td *teardown, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		err := hammerlock.DeleteAll(ctx, url, td.prefix)
		switch {
		case err == nil || !health.Failure(err):
			return err
		case !td.redisDown || ctx.Err() != nil:
			return unremoved(td, err)
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return unremoved(td, err)
		case <-t.C:
		}
	}
}

// unremoved names, one line each, the keys td's race may have left in a
// Redis that failed the clean-up with err.
func unremoved(td *teardown, err error) error {
	errs := []error{fmt.Errorf("clean-up: Redis did not answer (%w); these keys may be left", err)}
	for _, k := range td.keys {
		ttl := "no TTL: delete it"
		if k.ttl > 0 {
			ttl = fmt.Sprintf("TTL at most %s: it expires on its own", k.ttl)
		}
		errs = append(errs, fmt.Errorf("clean-up may have left key %s (%s)", k.key, ttl))
	}
	errs = append(errs, fmt.Errorf("clean-up may have left other keys under %s* (delete them with: redis-cli --scan --pattern '%s*' | xargs redis-cli del)", td.prefix, td.prefix))
	return errors.Join(errs...)
}

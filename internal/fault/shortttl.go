package fault

import (
	"context"
	"fmt"
	"time"

	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/strategy"
)

// shortTTL makes the critical section of struck holders longer than the
// lock's TTL, with database latency (pg_sleep) inside the sale.
type shortTTL struct{ Base }

// At injects PauseFor of latency into a struck holder's sale.
func (shortTTL) At(ctx context.Context, w *Worker, h Hit) error {
	if !h.Struck || h.Point != strategy.MidWrite {
		return nil
	}
	return latency(ctx, w, h, w.PauseFor, "database latency")
}

// latency runs pg_sleep inside the sale, making the critical section long.
func latency(ctx context.Context, w *Worker, h Hit, d time.Duration, what string) error {
	start := time.Now()
	w.begin(h.Attempt, start)
	if err := sleepIn(ctx, h.Query, d); err != nil {
		return err
	}
	w.Event(h.Attempt, start, fmt.Sprintf("%s of %s injected with pg_sleep in its critical section", what, d))
	return nil
}

func sleepIn(ctx context.Context, q seatdb.Querier, d time.Duration) error {
	if _, err := q.Exec(ctx, "SELECT pg_sleep($1)", d.Seconds()); err != nil {
		return fmt.Errorf("inject latency: %w", err)
	}
	return nil
}

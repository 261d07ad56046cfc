package seatdb

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/history"
)

// LedgerLimit is how many rows a read-back of a race of seats seats and
// attempts attempts reads at most: one more than both. The race's own
// sales are one row per attempt at most, so an honest ledger never goes
// past it; one that does returns rows that are no sale of the race
// (duplicates, other rows), and is cut there rather than read for
// minutes into memory.
func LedgerLimit(seats, attempts int) int { return max(seats, attempts) + 1 }

// Bound is where a read-back stops reading a ledger.
type Bound struct {
	// Rows is how many rows are read at most (0: all).
	Rows int
	// Seats and Ours: the read stops early once its rows hold more than
	// Seats distinct request ids that Ours accepts (the race's own
	// requests), which proves an oversell. Nil Ours never stops early.
	Seats int
	Ours  func(requestID string) bool
}

// Ledger reads every sale row, tagged with the run's name.
func (s *Store) Ledger(ctx context.Context, run string) ([]history.Sale, error) {
	sales, _, err := s.LedgerUpTo(ctx, run, Bound{})
	return sales, err
}

// LedgerUpTo reads the sale rows in order, tagged with the run's name, up
// to bound, and reports whether more were left unread.
func (s *Store) LedgerUpTo(ctx context.Context, run string, bound Bound) ([]history.Sale, bool, error) {
	sales, more, err := scanUpTo(ctx, s, bound,
		"SELECT sector_id, seat, request_id, worker, started_at, sold_at FROM sales ORDER BY id",
		func(rows pgx.Rows) (history.Sale, error) {
			sale := history.Sale{Run: run}
			var started, sold time.Time
			err := rows.Scan(&sale.Sector, &sale.Seat, &sale.RequestID, &sale.Worker, &started, &sold)
			sale.StartedAt, sale.SoldAt = started.UnixNano(), sold.UnixNano()
			return sale, err
		})
	if err != nil {
		return nil, false, fmt.Errorf("read ledger: %w", err)
	}
	return sales, more, nil
}

// scanUpTo runs query and scans its sale rows one at a time, until bound
// (see Bound), and reports whether the query had more. Past the bound it
// cancels the query instead of draining its rows, so a query that would
// return millions of rows costs the rows read.
func scanUpTo(ctx context.Context, s *Store, bound Bound, query string, scan func(pgx.Rows) (history.Sale, error)) ([]history.Sale, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, query)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []history.Sale
	ours := map[string]bool{}
	for rows.Next() {
		if bound.Rows > 0 && len(out) == bound.Rows || bound.Ours != nil && len(ours) > bound.Seats {
			cancel() // before Close, which would read the rest
			return out, true, nil
		}
		v, err := scan(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, v)
		if bound.Ours != nil && bound.Ours(v.RequestID) {
			ours[v.RequestID] = true
		}
	}
	return out, false, rows.Err()
}

package inventory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/history"
)

// LedgerLimit is how many sale rows a read-back of a race of seats seats
// and attempts attempts reads before it stops: one more than both. Rows
// past the seats prove an oversell already, and no race of that many
// attempts makes that many sales honestly, so a ledger that goes on is
// cut there rather than read for minutes into memory.
func LedgerLimit(seats, attempts int) int { return max(seats, attempts) + 1 }

// Ledger reads every sale row, tagged with the run's name.
func (s *Store) Ledger(ctx context.Context, run string) ([]history.Sale, error) {
	sales, _, err := s.LedgerUpTo(ctx, run, 0)
	return sales, err
}

// LedgerUpTo reads the sale rows in order, tagged with the run's name, up
// to limit of them (0: all), and reports whether more were left unread.
func (s *Store) LedgerUpTo(ctx context.Context, run string, limit int) ([]history.Sale, bool, error) {
	sales, more, err := scanUpTo(ctx, s, limit,
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

// scanUpTo runs query and scans its rows one at a time, up to limit of
// them (0: all), and reports whether the query had more. Past the limit it
// cancels the query instead of draining its rows, so a query that would
// return millions of rows costs the rows read.
func scanUpTo[T any](ctx context.Context, s *Store, limit int, query string, scan func(pgx.Rows) (T, error)) ([]T, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, query)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		if limit > 0 && len(out) == limit {
			cancel() // before Close, which would read the rest
			return out, true, nil
		}
		v, err := scan(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, v)
	}
	return out, false, rows.Err()
}

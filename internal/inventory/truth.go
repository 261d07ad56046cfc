package inventory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/history"
)

// ReadTruth reads a user's service's ledger and sector row with its own
// SQL, in the run's schema: ledgerSQL returns (request id, seat) rows,
// sectorSQL (when not empty) one (capacity, available) row of sector id.
func ReadTruth(ctx context.Context, pgURL, schema, run string, id int, ledgerSQL, sectorSQL string) ReadBack {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	store, err := Open(ctx, pgURL, schema, 1)
	if err != nil {
		return ReadBack{LedgerErr: fmt.Errorf("read back: %w", err)}
	}
	defer store.Close()
	rows, err := store.pool.Query(ctx, ledgerSQL)
	if err != nil {
		return ReadBack{LedgerErr: fmt.Errorf("ledger SQL: %w", err)}
	}
	sales, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (history.Sale, error) {
		s := history.Sale{Run: run, Sector: id}
		return s, row.Scan(&s.RequestID, &s.Seat)
	})
	if err != nil {
		return ReadBack{LedgerErr: fmt.Errorf("ledger SQL: %w", err)}
	}
	if sectorSQL == "" {
		return ReadBack{Sales: sales}
	}
	sec := history.Sector{Run: run, ID: id}
	if err := store.pool.QueryRow(ctx, sectorSQL).Scan(&sec.Capacity, &sec.Available); err != nil {
		return ReadBack{Sales: sales, SectorErr: fmt.Errorf("sector SQL: %w", err)}
	}
	return ReadBack{Sales: sales, Sector: &sec}
}

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
		return ReadBack{Sales: sales, NoCounter: true}
	}
	sec := history.Sector{Run: run, ID: id}
	if err := store.pool.QueryRow(ctx, sectorSQL).Scan(&sec.Capacity, &sec.Available); err != nil {
		return ReadBack{Sales: sales, SectorErr: fmt.Errorf("sector SQL: %w", err)}
	}
	return ReadBack{Sales: sales, Sector: &sec}
}

// Activity watches the transactions of the connections to a database,
// over one connection of its own.
type Activity struct {
	conn *pgx.Conn
}

// OpenActivity connects to pgURL's database to watch its transactions.
func OpenActivity(ctx context.Context, pgURL string) (*Activity, error) {
	conn, err := connect(ctx, pgURL)
	if err != nil {
		return nil, err
	}
	return &Activity{conn: conn}, nil
}

// Close closes the watch's connection.
func (a *Activity) Close() { a.conn.Close(context.Background()) }

// Transactions maps the client port of every other connection inside a
// transaction to whether that transaction has written (it has a
// transaction id: its rows are locked until it ends); a transaction at its
// COMMIT or ROLLBACK is left out.
func (a *Activity) Transactions(ctx context.Context) (map[int]bool, error) {
	rows, err := a.conn.Query(ctx, `SELECT client_port, backend_xid IS NOT NULL
		FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()
		AND client_port IS NOT NULL AND xact_start IS NOT NULL
		AND query !~* '^\s*(commit|end|rollback|abort)'`)
	if err != nil {
		return nil, fmt.Errorf("list transactions: %w", err)
	}
	out := map[int]bool{}
	var port int
	var ran bool
	_, err = pgx.ForEachRow(rows, []any{&port, &ran}, func() error {
		out[port] = ran
		return nil
	})
	return out, err
}

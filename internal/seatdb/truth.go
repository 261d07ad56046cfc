package seatdb

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/history"
)

// Truth is a user's service's own SQL for reading back a race: Ledger
// returns (request id, seat) rows, Sector (when not empty) one (capacity,
// available) row.
type Truth struct {
	Ledger, Sector string
	// Bound is where the ledger's read stops; past it the read-back is
	// Truncated.
	Bound Bound
}

// ReadTruth reads a user's service's ledger and the row of sector id with
// its own SQL, in the run's schema.
func ReadTruth(ctx context.Context, pgURL, schema, run string, id int, t Truth) ReadBack {
	return readWith(ctx, pgURL, schema, func(ctx context.Context, store *Store) ReadBack {
		return store.truth(ctx, run, id, t)
	})
}

// truth reads the ledger and sector row with the service's own SQL.
func (s *Store) truth(ctx context.Context, run string, id int, t Truth) ReadBack {
	sales, more, err := scanUpTo(ctx, s, t.Bound, t.Ledger, func(rows pgx.Rows) (history.Sale, error) {
		sale := history.Sale{Run: run, Sector: id}
		err := rows.Scan(&sale.RequestID, &sale.Seat)
		return sale, err
	})
	if err != nil {
		return ReadBack{LedgerErr: fmt.Errorf("ledger SQL: %w", err)}
	}
	back := ReadBack{Sales: sales, Truncated: more}
	if t.Sector == "" {
		back.NoCounter = true
		return back
	}
	sec := history.Sector{Run: run, ID: id}
	if err := s.pool.QueryRow(ctx, t.Sector).Scan(&sec.Capacity, &sec.Available); err != nil {
		back.SectorErr = fmt.Errorf("sector SQL: %w", err)
		return back
	}
	back.Sector = &sec
	return back
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

// Writer is another connection whose transaction has written (it has a
// transaction id: its rows are locked until it ends) and is not at its
// COMMIT or ROLLBACK, as pg_stat_activity shows it.
type Writer struct {
	Port int    // the client's port
	XID  string // the transaction's id
	// Idle: the server has run all the client sent and waits for more
	// (state 'idle in transaction').
	Idle bool
}

// Writing lists the connections to the database that are Writers.
func (a *Activity) Writing(ctx context.Context) ([]Writer, error) {
	rows, err := a.conn.Query(ctx, `SELECT client_port, backend_xid::text,
		COALESCE(state = 'idle in transaction', false) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()
		AND client_port IS NOT NULL AND backend_xid IS NOT NULL
		AND query !~* '^\s*(commit|end|rollback|abort)'`)
	if err != nil {
		return nil, fmt.Errorf("list transactions: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Writer])
}

// Holding returns the writers of ws that keep their transaction open:
// looked at again after settle, the same connection has the same
// transaction and the server waits for the client. Asked while the
// writers' clients are stopped, it tells a transaction that stays open
// from one whose COMMIT was on its way when its client stopped (the server
// reads and runs that COMMIT meanwhile: the sale is through, however
// stopped the client) or whose statement still runs.
func (a *Activity) Holding(ctx context.Context, ws []Writer, settle time.Duration) ([]Writer, error) {
	t := time.NewTimer(settle)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	now, err := a.Writing(ctx)
	if err != nil {
		return nil, err
	}
	var out []Writer
	for _, w := range ws {
		for _, x := range now {
			if x.Port == w.Port && x.XID == w.XID && x.Idle {
				out = append(out, w)
				break
			}
		}
	}
	return out, nil
}

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
	return readWith(ctx, pgURL, schema, func(ctx context.Context, store *Store) ReadBack {
		return store.truth(ctx, run, id, ledgerSQL, sectorSQL)
	})
}

// truth reads the ledger and sector row with the service's own SQL.
func (s *Store) truth(ctx context.Context, run string, id int, ledgerSQL, sectorSQL string) ReadBack {
	rows, err := s.pool.Query(ctx, ledgerSQL)
	if err != nil {
		return ReadBack{LedgerErr: fmt.Errorf("ledger SQL: %w", err)}
	}
	sales, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (history.Sale, error) {
		sale := history.Sale{Run: run, Sector: id}
		err := row.Scan(&sale.RequestID, &sale.Seat)
		return sale, err
	})
	if err != nil {
		return ReadBack{LedgerErr: fmt.Errorf("ledger SQL: %w", err)}
	}
	if sectorSQL == "" {
		return ReadBack{Sales: sales, NoCounter: true}
	}
	sec := history.Sector{Run: run, ID: id}
	if err := s.pool.QueryRow(ctx, sectorSQL).Scan(&sec.Capacity, &sec.Available); err != nil {
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

// Holds says whether writer w keeps its transaction open: looked at again
// after settle, its connection has the same transaction and the server
// waits for the client. Asked while w's client is stopped, it tells a
// transaction that stays open from one whose COMMIT was on its way when
// the client stopped: the server reads and runs that COMMIT meanwhile, and
// the sale is through, however stopped the client.
func (a *Activity) Holds(ctx context.Context, w Writer, settle time.Duration) (bool, error) {
	time.Sleep(settle)
	ws, err := a.Writing(ctx)
	if err != nil {
		return false, err
	}
	for _, x := range ws {
		if x.Port == w.Port && x.XID == w.XID && x.Idle {
			return true, nil
		}
	}
	return false, nil
}

package seatdb

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// saleStatements are the statements the sales send, which Warm prepares on
// every connection: with the BEGIN and COMMIT that SellAtomic queues in its
// batches, which pgx would otherwise prepare in a round trip of their own
// before each connection's first sale (in the start of the race).
func saleStatements() []string {
	return []string{"BEGIN", "COMMIT", sqlReadSector, sqlWriteSector, sqlTakeSeat, sqlClaimSector, sqlWriteFenced, sqlInsertSale}
}

// Warm opens every connection of the pool, prepares the sales' statements
// on each and rehearses a sale on each, so that the race pays neither for
// connection set-up nor for each server process's first parse and plan of
// a statement (Open asks for generic plans, made once per statement) and
// first opening of the tables and their indexes (nor pgx's round trip to
// prepare a statement): the connections of a replica that has been serving
// are warm too. Cold, those firsts cost the server enough
// CPU at the go signal to spread the start out. The connections are warmed
// at once, each held until all are, so that every one of them is (the
// rehearsals queue for the sector's row lock, one after the other).
func (s *Store) Warm(ctx context.Context) error {
	n := int(s.pool.Config().MaxConns)
	conns := make([]*pgxpool.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { conns[i], errs[i] = warmConn(ctx, s.pool) })
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			c.Release()
		}
	}
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("postgres warm-up: %w", err)
		}
	}
	return nil
}

// warmConn acquires a connection of pool, prepares the sales' statements
// on it and rehearses a sale. It returns the connection, still acquired,
// even when warming it failed.
func warmConn(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.Ping(ctx); err != nil {
		return c, err
	}
	for _, sql := range saleStatements() {
		// Named by its text, so that pgx uses it for that text.
		if _, err := c.Conn().Prepare(ctx, sql, sql); err != nil {
			return c, fmt.Errorf("prepare %q: %w", sql, err)
		}
	}
	return c, rehearse(ctx, c)
}

// rehearse takes a seat and records its sale on c, then rolls both back:
// nothing of it stays (but a number of the ledger's id sequence), and the
// server process has the tables and indexes a sale touches open.
func rehearse(ctx context.Context, c *pgxpool.Conn) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var sector, seat int
	if err := tx.QueryRow(ctx, "SELECT id FROM sectors ORDER BY id LIMIT 1").Scan(&sector); err != nil {
		return fmt.Errorf("rehearse a sale: %w", err)
	}
	if err := tx.QueryRow(ctx, sqlTakeSeat, sector).Scan(&seat); err != nil {
		return fmt.Errorf("rehearse a sale: %w", err)
	}
	if _, err := tx.Exec(ctx, sqlInsertSale, sector, seat, "hammer-warm-up", "warm-up", time.Now()); err != nil {
		return fmt.Errorf("rehearse a sale: %w", err)
	}
	return tx.Rollback(ctx)
}

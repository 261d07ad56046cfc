package inventory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// saleStatements are the statements the sales send, which Warm prepares on
// every connection.
func saleStatements() []string {
	return []string{sqlReadSector, sqlWriteSector, sqlTakeSeat, sqlClaimSector, sqlWriteFenced, sqlInsertSale}
}

// Warm opens every connection of the pool, prepares the sales' statements
// on each and rehearses a sale on each, so that the race pays neither for
// connection set-up nor for each server process's first parse of a
// statement and first opening of the tables and their indexes (nor pgx's
// round trip to prepare a statement): the connections of a replica that
// has been serving are warm too. Cold, those firsts cost the server enough
// CPU at the go signal to spread the start out.
func (s *Store) Warm(ctx context.Context) error {
	n := int(s.pool.Config().MaxConns)
	conns := make([]*pgxpool.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	for range n {
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("postgres warm-up: %w", err)
		}
		conns = append(conns, c)
		if err := c.Ping(ctx); err != nil {
			return fmt.Errorf("postgres warm-up: %w", err)
		}
		for _, sql := range saleStatements() {
			// Named by its text, so that pgx uses it for that text.
			if _, err := c.Conn().Prepare(ctx, sql, sql); err != nil {
				return fmt.Errorf("postgres warm-up: prepare %q: %w", sql, err)
			}
		}
		if err := rehearse(ctx, c); err != nil {
			return fmt.Errorf("postgres warm-up: %w", err)
		}
	}
	return nil
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

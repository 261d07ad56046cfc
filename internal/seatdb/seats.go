package seatdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/history"
)

// CreateSeated is Create with one row per seat of the sector in the seats
// table, for the modes that take a seat row (skip-locked).
func CreateSeated(ctx context.Context, pgURL, schema string, sector history.Sector) error {
	return create(ctx, pgURL, schema, sector, true)
}

// insertSeats adds the free seats 1..capacity of sector.
func insertSeats(ctx context.Context, tx pgx.Tx, sector history.Sector) error {
	_, err := tx.Exec(ctx, "INSERT INTO seats (sector_id, seat) SELECT $1, generate_series(1, $2::integer)",
		sector.ID, sector.Capacity)
	if err != nil {
		return fmt.Errorf("insert seats: %w", err)
	}
	return nil
}

// SellSkipLocked locks the lowest free seat row nobody else has locked
// (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1), marks it sold to the request
// and records the sale, in one transaction. Contenders lock different rows,
// so their sales do not queue behind one another; the sector's counter is
// left alone (the seat rows say what is left). A seat row locked by a sale
// still in flight is skipped: a contender that finds only such rows is told
// sold out even if that sale then fails.
func (s *Store) SellSkipLocked(ctx context.Context, r Request) (res Result, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT seat FROM seats WHERE sector_id = $1 AND sold_to IS NULL
			ORDER BY seat LIMIT 1 FOR UPDATE SKIP LOCKED`, r.Sector).Scan(&res.Seat)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrSoldOut
		}
		if err != nil {
			return fmt.Errorf("lock a free seat: %w", err)
		}
		if err := r.midWrite(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE seats SET sold_to = $3 WHERE sector_id = $1 AND seat = $2",
			r.Sector, res.Seat, r.RequestID); err != nil {
			return fmt.Errorf("mark seat sold: %w", err)
		}
		return insertSale(ctx, tx, r, res.Seat)
	})
	return res, err
}

// SellCounted records the sale of the seat a stock counter handed out:
// seat capacity - r.Left, r.Left being what the counter held after it
// admitted the request. It trusts the counter: no counter in PostgreSQL is
// decremented or checked, so a counter that hands out a seat twice (after
// losing its count) sells it twice. This is counter-only, the negative
// control of redis-gate.
func (s *Store) SellCounted(ctx context.Context, r Request) (res Result, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, "SELECT capacity - $2::integer FROM sectors WHERE id = $1", r.Sector, r.Left).Scan(&res.Seat)
		if err != nil {
			return fmt.Errorf("read sector: %w", err)
		}
		if err := r.midWrite(ctx, tx); err != nil {
			return err
		}
		return insertSale(ctx, tx, r, res.Seat)
	})
	return res, err
}

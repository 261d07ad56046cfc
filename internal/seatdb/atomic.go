package seatdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// rollbackWait bounds the rollback of a sale that failed inside its
// transaction.
const rollbackWait = 5 * time.Second

// SellAtomic decrements the sector's available count only if a seat is
// left (the conditional UPDATE, backed by CHECK (available >= 0)) and
// records the sale, in one transaction sent as two round trips: BEGIN with
// the UPDATE, then the sale row with COMMIT. The sector's row — which
// every sale must lock in turn — stays locked for one round trip instead
// of two. MidWrite runs between the two, inside the transaction.
func (s *Store) SellAtomic(ctx context.Context, r Request) (res Result, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return res, fmt.Errorf("update sector: %w", err)
	}
	defer conn.Release() // a connection left inside a transaction is closed, not reused
	c := conn.Conn()
	defer func() {
		if err != nil && c.PgConn().TxStatus() != 'I' {
			// A connection that cannot roll back within rollbackWait is
			// closed by the pool on release instead.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackWait)
			defer cancel()
			_, _ = c.Exec(rctx, "ROLLBACK")
		}
	}()
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(sqlTakeSeat, r.Sector).QueryRow(func(row pgx.Row) error { return row.Scan(&res.Seat) })
	switch err := c.SendBatch(ctx, b).Close(); {
	case errors.Is(err, pgx.ErrNoRows):
		return res, ErrSoldOut
	case err != nil:
		return res, fmt.Errorf("update sector: %w", err)
	}
	if err := r.midWrite(ctx, c); err != nil {
		return res, err
	}
	b = &pgx.Batch{}
	b.Queue(sqlInsertSale, r.Sector, res.Seat, r.RequestID, r.Worker, r.StartedAt)
	b.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error {
		if ct.String() != "COMMIT" { // an aborted transaction answers ROLLBACK
			return fmt.Errorf("commit answered %s", ct)
		}
		return nil
	})
	return res, saleError(c.SendBatch(ctx, b).Close())
}

// saleError is what the insertion of a sale row (and the commit after it)
// failing with err means: ErrDuplicate for a request id already sold.
func saleError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgerrcode.UniqueViolation && pgErr.ConstraintName == "sales_request_id_key" {
		return ErrDuplicate
	}
	if err != nil {
		return fmt.Errorf("insert sale: %w", err)
	}
	return nil
}

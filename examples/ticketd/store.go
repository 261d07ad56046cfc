package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The expected ways a reservation does not sell a seat.
var (
	// errSoldOut means the sector had no seat left (or does not exist).
	errSoldOut = errors.New("sold out")
	// errDuplicate means the request id had already bought a seat.
	errDuplicate = errors.New("request id already bought a seat")
)

// The strategies of STRATEGY.
const (
	naive          = "naive"            // read, then write; no lock
	lockOnly       = "lock-only"        // read, then write, inside the Redis lock
	updateOnly     = "update-only"      // one conditional UPDATE; no lock
	lockPlusUpdate = "lock-plus-update" // the conditional UPDATE inside the Redis lock
)

// store sells the seats of the sectors in PostgreSQL by one strategy.
type store struct {
	pool      *pgxpool.Pool
	lock      *locker // nil for the strategies without a lock
	sell      func(ctx context.Context, sector int, requestID string) (int, error)
	keyPrefix string
}

// newStore returns the store of strategy; lock is used only by the
// strategies that take it.
func newStore(strategy string, pool *pgxpool.Pool, lock *locker, keyPrefix string) (*store, error) {
	s := &store{pool: pool, keyPrefix: keyPrefix}
	switch strategy {
	case naive:
		s.sell = s.readThenWrite
	case lockOnly:
		s.sell, s.lock = s.readThenWrite, lock
	case updateOnly:
		s.sell = s.atomicUpdate
	case lockPlusUpdate:
		s.sell, s.lock = s.atomicUpdate, lock
	default:
		return nil, fmt.Errorf("STRATEGY %q: want naive, lock-only, update-only or lock-plus-update", strategy)
	}
	return s, nil
}

// reserve sells one seat of sector to requestID and returns its number.
func (s *store) reserve(ctx context.Context, sector int, requestID string) (int, error) {
	if s.lock == nil {
		return s.sell(ctx, sector, requestID)
	}
	var seat int
	err := s.lock.with(ctx, s.keyPrefix+"lock:sector:"+strconv.Itoa(sector), func() error {
		var err error
		seat, err = s.sell(ctx, sector, requestID)
		return err
	})
	return seat, err
}

// readThenWrite reads the available count, then writes back that count
// minus one and records a sale for the seat it thinks is next. The read and
// the write are separate statements of a READ COMMITTED transaction, which
// does not serialise them: two requests that read the same count sell the
// same seat. The transaction only keeps the counter and the ledger in step
// when the sale is refused as a duplicate.
func (s *store) readThenWrite(ctx context.Context, sector int, requestID string) (seat int, err error) {
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		var capacity, available int
		err := tx.QueryRow(ctx, "SELECT capacity, available FROM sectors WHERE id = $1", sector).
			Scan(&capacity, &available)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return errSoldOut
		case err != nil:
			return fmt.Errorf("read sector: %w", err)
		case available <= 0:
			return errSoldOut
		}
		if _, err := tx.Exec(ctx, "UPDATE sectors SET available = $2 WHERE id = $1", sector, available-1); err != nil {
			return fmt.Errorf("write sector: %w", err)
		}
		seat = capacity - available + 1
		return insertSale(ctx, tx, sector, seat, requestID)
	})
	return seat, err
}

// atomicUpdate takes a seat with one UPDATE … WHERE available > 0 and
// records the sale in the same transaction: the database decides, so no
// two requests can take the same seat.
func (s *store) atomicUpdate(ctx context.Context, sector int, requestID string) (seat int, err error) {
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx,
			"UPDATE sectors SET available = available - 1 WHERE id = $1 AND available > 0 RETURNING capacity - available AS seat",
			sector).Scan(&seat)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return errSoldOut
		case err != nil:
			return fmt.Errorf("update sector: %w", err)
		}
		return insertSale(ctx, tx, sector, seat, requestID)
	})
	return seat, err
}

// insertSale records a sale; a request id that already bought a seat
// (unique violation) is errDuplicate.
func insertSale(ctx context.Context, tx pgx.Tx, sector, seat int, requestID string) error {
	_, err := tx.Exec(ctx, "INSERT INTO sales (seat, sector_id, request_id) VALUES ($1, $2, $3)", seat, sector, requestID)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgerrcode.UniqueViolation {
		return errDuplicate
	}
	if err != nil {
		return fmt.Errorf("insert sale: %w", err)
	}
	return nil
}

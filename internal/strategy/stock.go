package strategy

import (
	"context"
	"errors"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/redisstock"
	"github.com/hammer-load/hammer/internal/seatdb"
)

// Stock admits contenders: a stock counter that hands out the seats left.
type Stock interface {
	// Take takes one seat if one is left: ok is false when none was, left
	// is what the counter holds after the take.
	Take(ctx context.Context) (left int64, ok bool, err error)
}

var _ Stock = (*redisstock.Counter)(nil)

// Seller takes a seat in PostgreSQL, as inventory's sales do.
type Seller func(context.Context, seatdb.Request) (seatdb.Result, error)

// Gated is a sale behind a stock counter: a contender the counter refuses
// is told sold out without touching PostgreSQL; one it admits is sold by
// sell, which is handed what the counter had left (seatdb.Request.Left).
// With a sell that checks PostgreSQL's own count (redis-gate: the
// conditional UPDATE), the database is the backstop when the counter is
// wrong; with one that trusts the counter (counter-only), nothing is.
//
// An admission is not given back when the sale then fails: the counter can
// only undercount, leaving a seat unsold, never admit a seat twice itself.
func Gated(st Stock, sell Seller) Seller {
	return func(ctx context.Context, r seatdb.Request) (seatdb.Result, error) {
		left, ok, err := st.Take(ctx)
		if err != nil {
			return seatdb.Result{}, admitError{err}
		}
		if !ok {
			return seatdb.Result{}, seatdb.ErrSoldOut
		}
		r.Left = left
		return sell(ctx, r)
	}
}

// admitError is an error of the stock counter, in Redis, so that a failed
// sale is put down to the server that failed.
type admitError struct{ err error }

func (e admitError) Error() string { return "admission: " + e.err.Error() }
func (e admitError) Unwrap() error { return e.err }

// saleServer names the server a failed sale's error came from: Redis for
// the stock counter's admission, PostgreSQL for everything else.
func saleServer(err error) string {
	if errors.As(err, new(admitError)) {
		return history.ServerRedis
	}
	return history.ServerPostgreSQL
}

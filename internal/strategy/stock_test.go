package strategy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/redisstock"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/scenarios"
)

// fakeStock answers Take as told and counts the takes.
type fakeStock struct {
	left  int64
	ok    bool
	err   error
	takes int
}

func (s *fakeStock) Take(context.Context) (int64, bool, error) {
	s.takes++
	return s.left, s.ok, s.err
}

// TestGatedOutcome walks the branches of a sale behind a stock counter,
// through Attempt: a refusal is sold out without a sale, an admission
// hands what was left to the sale, a counter that fails is put down to
// Redis, and the sale's own answers are kept.
func TestGatedOutcome(t *testing.T) {
	tests := []struct {
		name      string
		stock     fakeStock
		sellErr   error
		want      history.Outcome
		wantSeat  int
		wantErr   string
		wantInfra string
		wantSold  bool  // the sale behind the counter ran
		wantLeft  int64 // what the sale was told was left
	}{
		{name: "admitted and sold", stock: fakeStock{left: 4, ok: true}, want: history.Sold, wantSeat: 3, wantSold: true, wantLeft: 4},
		{name: "refused: sold out without a sale", stock: fakeStock{}, want: history.SoldOut},
		{name: "admitted, the backstop says sold out", stock: fakeStock{left: 0, ok: true}, sellErr: seatdb.ErrSoldOut, want: history.SoldOut, wantSold: true},
		{name: "admitted, duplicate request", stock: fakeStock{left: 2, ok: true}, sellErr: seatdb.ErrDuplicate, want: history.Rejected, wantErr: seatdb.ErrDuplicate.Error(), wantSold: true, wantLeft: 2},
		{name: "counter down: redis", stock: fakeStock{err: fmt.Errorf("take: %w", refused)}, want: history.Error, wantErr: "admission: take: " + refused.Error(), wantInfra: history.ServerRedis},
		{name: "counter missing: not the world's", stock: fakeStock{err: redisstock.ErrMissing}, want: history.Error, wantErr: "admission: " + redisstock.ErrMissing.Error()},
		{name: "admitted, postgres down", stock: fakeStock{left: 1, ok: true}, sellErr: reset, want: history.Error, wantErr: reset.Error(), wantInfra: history.ServerPostgreSQL, wantSold: true, wantLeft: 1},
	}
	for _, tt := range tests {
		for _, mode := range []scenarios.Mode{scenarios.RedisGate, scenarios.CounterOnly} {
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				st := tt.stock
				s := &fakeSell{err: tt.sellErr}
				sold := false
				c := &Contender{Mode: mode, Sector: 4, Sell: Gated(&st, func(ctx context.Context, r seatdb.Request) (seatdb.Result, error) {
					sold = true
					return s.sell(ctx, r)
				})}
				a := &history.Attempt{Run: "r", Mode: mode, Proc: 1, Goroutine: 2, RequestID: "p1-g2-0"}
				c.Attempt(context.Background(), a, rand.New(rand.NewPCG(1, 2)))
				got := [...]any{a.Outcome, a.Seat, a.Err, a.Infra, sold, st.takes}
				if want := [...]any{tt.want, tt.wantSeat, tt.wantErr, tt.wantInfra, tt.wantSold, 1}; got != want {
					t.Errorf("outcome, seat, err, infra, sold, takes = %#v; want %#v", got, want)
				}
				if sold && s.req.Left != tt.wantLeft {
					t.Errorf("the sale was told %d left, want %d", s.req.Left, tt.wantLeft)
				}
			})
		}
	}
}

// TestNewWiresEveryMode: New gives every mode a sale, and a lock exactly
// to the modes that take one.
func TestNewWiresEveryMode(t *testing.T) {
	for _, mode := range scenarios.Modes() {
		c := New(mode, Deps{Store: &seatdb.Store{}, StockKey: "k"})
		if c.Sell == nil || (c.Lock != nil) != mode.UsesLock() {
			t.Errorf("%s: sale set %v, lock set %v; want a sale, lock %v", mode, c.Sell != nil, c.Lock != nil, mode.UsesLock())
		}
	}
}

package seatdb_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// seated creates a run schema of seats seats with one row per seat, and
// opens it with a pool of conns connections.
func seated(t *testing.T, seats, conns int) *seatdb.Store {
	t.Helper()
	ctx := context.Background()
	pgURL := stacktest.Get(t).PGURL
	schema := seatdb.SchemaName("test", strings.ToLower(t.Name()))
	if err := seatdb.CreateSeated(ctx, pgURL, schema, history.Sector{ID: 1, Capacity: seats}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := seatdb.Drop(context.Background(), pgURL, schema); err != nil {
			t.Error(err)
		}
	})
	s, err := seatdb.Open(ctx, pgURL, schema, conns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestSkipLockedSkipsASeatInFlight: while one sale holds the lowest free
// seat inside its transaction, another sale takes the next seat instead of
// waiting; once every free seat is sold or held, a contender is told sold
// out; the seat rows are what the read-back counts as left.
func TestSkipLockedSkipsASeatInFlight(t *testing.T) {
	ctx := context.Background()
	s := seated(t, 2, 3)
	var during []string
	slow := request("slow")
	slow.MidWrite = func(ctx context.Context, _ seatdb.Querier) error {
		// Seat 1 is locked by this transaction: the others skip it.
		res, err := s.SellSkipLocked(ctx, request("fast"))
		during = append(during, fmt.Sprintf("fast: seat %d, %v", res.Seat, err))
		_, err = s.SellSkipLocked(ctx, request("late"))
		during = append(during, fmt.Sprintf("late: %v", err))
		return nil
	}
	res, err := s.SellSkipLocked(ctx, slow)
	if err != nil || res.Seat != 1 {
		t.Fatalf("slow sale: seat %d, %v; want seat 1", res.Seat, err)
	}
	want := []string{"fast: seat 2, <nil>", "late: " + seatdb.ErrSoldOut.Error()}
	if !slices.Equal(during, want) {
		t.Errorf("while seat 1 was held: %q, want %q", during, want)
	}
	sec, err := s.Sector(ctx, "r", 1)
	if err != nil || sec.Available != 0 || sec.Capacity != 2 {
		t.Errorf("sector %+v, %v; want 0 of 2 left", sec, err)
	}
}

// TestSkipLockedRace: many sales at once sell every seat exactly once, each
// seat row to the request its sale row names.
func TestSkipLockedRace(t *testing.T) {
	ctx := context.Background()
	const seats, contenders = 10, 40
	s := seated(t, seats, 8)
	var wg sync.WaitGroup
	errs := make([]error, contenders)
	for i := range contenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.SellSkipLocked(ctx, request(fmt.Sprintf("r%d", i)))
		}()
	}
	wg.Wait()
	sold := 0
	for i, err := range errs {
		switch {
		case err == nil:
			sold++
		case !errors.Is(err, seatdb.ErrSoldOut):
			t.Errorf("contender %d: %v", i, err)
		}
	}
	sales, err := s.Ledger(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, sale := range sales {
		got = append(got, sale.Seat)
	}
	slices.Sort(got)
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; sold != seats || !slices.Equal(got, want) {
		t.Errorf("%d told sold, seats %v; want %d told sold, seats %v", sold, got, seats, want)
	}
	var mismatched int
	err = s.Pool().QueryRow(ctx, `SELECT count(*) FROM seats JOIN sales USING (sector_id, seat)
		WHERE seats.sold_to IS DISTINCT FROM sales.request_id`).Scan(&mismatched)
	if err != nil || mismatched != 0 {
		t.Errorf("%d seat rows name another buyer than their sale row (%v)", mismatched, err)
	}
}

// TestSkipLockedDuplicateFreesTheSeat: a request id sold twice is refused
// by the ledger, and its second seat goes back with the rolled back
// transaction.
func TestSkipLockedDuplicateFreesTheSeat(t *testing.T) {
	ctx := context.Background()
	s := seated(t, 2, 1)
	if _, err := s.SellSkipLocked(ctx, request("twice")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SellSkipLocked(ctx, request("twice")); !errors.Is(err, seatdb.ErrDuplicate) {
		t.Fatalf("the same request id again: %v, want ErrDuplicate", err)
	}
	if res, err := s.SellSkipLocked(ctx, request("next")); err != nil || res.Seat != 2 {
		t.Errorf("next sale: seat %d, %v; want seat 2", res.Seat, err)
	}
}

// TestReadBackCountsSoldSeatRows: the read-back subtracts the seat rows
// sold from the sector's counter, so a seat row marked sold without a sale
// row shows up in the conservation sum.
func TestReadBackCountsSoldSeatRows(t *testing.T) {
	ctx := context.Background()
	s := seated(t, 3, 1)
	if _, err := s.Pool().Exec(ctx, "UPDATE seats SET sold_to = 'nobody' WHERE seat = 3"); err != nil {
		t.Fatal(err)
	}
	sec, err := s.Sector(ctx, "r", 1)
	if err != nil || sec.Available != 2 {
		t.Errorf("sector %+v, %v; want 2 left", sec, err)
	}
}

// TestSellCountedTrustsTheCounter: the seat is capacity less what the
// counter had left, and nothing in PostgreSQL stops a count handed out
// twice: counter-only sells the seat again.
func TestSellCountedTrustsTheCounter(t *testing.T) {
	ctx := context.Background()
	s, _ := store(t, 3)
	for i, left := range []int64{2, 1, 2} { // the counter lost its count after two sales
		r := request(fmt.Sprintf("c%d", i))
		r.Left = left
		if res, err := s.SellCounted(ctx, r); err != nil || res.Seat != 3-int(left) {
			t.Fatalf("sale %d with %d left: seat %d, %v; want seat %d", i, left, res.Seat, err, 3-left)
		}
	}
	sales, err := s.Ledger(ctx, "r")
	if err != nil || len(sales) != 3 || sales[0].Seat != sales[2].Seat {
		t.Errorf("ledger %+v, %v; want seat 1 sold twice", sales, err)
	}
}

package seatdb_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

func TestMain(m *testing.M) { os.Exit(stacktest.Main(m)) }

func TestSchemaName(t *testing.T) {
	tests := []struct {
		name, runID, run, want string
	}{
		{"plain", "20261129-072942-90b550", "lock-only", "hammer_20261129_072942_90b550_lock_only"},
		{"upper case and symbols", "RUN.1", "a/b c", "hammer_run_1_a_b_c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := seatdb.SchemaName(tt.runID, tt.run); got != tt.want {
				t.Errorf("SchemaName(%q, %q) = %q, want %q", tt.runID, tt.run, got, tt.want)
			}
		})
	}
	long := seatdb.SchemaName("20261129-072942-90b550", "lock-plus-update/slow-release+extend")
	other := seatdb.SchemaName("20261129-072942-90b550", "lock-plus-update/slow-release+extenf")
	if len(long) > 63 || long == other {
		t.Errorf("long names: %q and %q; want distinct names of at most 63 bytes", long, other)
	}
}

// TestLongSchemaNameIsUsable: the longest names hammer makes can be created.
func TestLongSchemaNameIsUsable(t *testing.T) {
	ctx := context.Background()
	pgURL := stacktest.Get(t).PGURL
	schema := seatdb.SchemaName("20261129-072942-90b550", "lock-plus-update/slow-release+extend")
	if err := seatdb.Create(ctx, pgURL, schema, history.Sector{ID: 1, Capacity: 1}); err != nil {
		t.Fatal(err)
	}
	if err := seatdb.Drop(ctx, pgURL, schema); err != nil {
		t.Fatal(err)
	}
}

// store creates a run schema of seats seats and opens it.
func store(t *testing.T, seats int) (*seatdb.Store, string) {
	t.Helper()
	ctx := context.Background()
	pgURL := stacktest.Get(t).PGURL
	schema := seatdb.SchemaName("test", strings.ToLower(t.Name()))
	if err := seatdb.Create(ctx, pgURL, schema, history.Sector{ID: 1, Capacity: seats}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := seatdb.Drop(context.Background(), pgURL, schema); err != nil {
			t.Error(err)
		}
	})
	s, err := seatdb.Open(ctx, pgURL, schema, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, pgURL
}

type seller func(context.Context, seatdb.Request) (seatdb.Result, error)

// fenced sells with a fresh, growing fencing token each time.
func fenced(s *seatdb.Store) seller {
	var token int64
	return func(ctx context.Context, r seatdb.Request) (seatdb.Result, error) {
		token++
		r.Token = token
		return s.SellFenced(ctx, r)
	}
}

// TestFencedRejectsStaleToken: once a newer token touched the sector, an
// older holder can neither read-claim nor write.
func TestFencedRejectsStaleToken(t *testing.T) {
	ctx := context.Background()
	s, _ := store(t, 5)
	stale := request("stale")
	stale.Token = 1
	var newer seatdb.Result
	stale.MidWrite = func(ctx context.Context, _ seatdb.Querier) error {
		// While the old holder sits between its read and its write, a newer
		// holder claims the sector and sells.
		r := request("newer")
		r.Token = 2
		var err error
		newer, err = s.SellFenced(ctx, r)
		return err
	}
	if _, err := s.SellFenced(ctx, stale); !errors.Is(err, seatdb.ErrFenced) {
		t.Fatalf("stale write: %v, want ErrFenced", err)
	}
	if newer.Seat != 1 {
		t.Fatalf("newer holder got seat %d, want 1", newer.Seat)
	}
	late := request("late")
	late.Token = 1
	if _, err := s.SellFenced(ctx, late); !errors.Is(err, seatdb.ErrFenced) {
		t.Fatalf("stale claim: %v, want ErrFenced", err)
	}
	if sales, _ := s.Ledger(ctx, "r"); len(sales) != 1 {
		t.Fatalf("%d sales, want 1", len(sales))
	}
}

func request(id string) seatdb.Request {
	return seatdb.Request{Sector: 1, RequestID: id, Worker: "test", StartedAt: time.Now()}
}

// TestSellUntilSoldOut: both ways of selling hand out seats 1..n in order
// when nobody races, then say sold out, and the ledger matches.
func TestSellUntilSoldOut(t *testing.T) {
	tests := []struct {
		name string
		sell func(*seatdb.Store) seller
	}{
		{"atomic", func(s *seatdb.Store) seller { return s.SellAtomic }},
		{"read-write", func(s *seatdb.Store) seller { return s.SellReadWrite }},
		{"fenced", func(s *seatdb.Store) seller { return fenced(s) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := store(t, 3)
			// The warm-up rehearses a sale on every connection and leaves
			// nothing of it: the seats still sell from the first.
			if err := s.Warm(ctx); err != nil {
				t.Fatalf("Warm: %v", err)
			}
			sell := tt.sell(s)
			for want := 1; want <= 3; want++ {
				res, err := sell(ctx, request(tt.name+string(rune('a'+want))))
				if err != nil || res.Seat != want {
					t.Fatalf("sale %d: seat %d, err %v", want, res.Seat, err)
				}
			}
			if _, err := sell(ctx, request(tt.name+"-late")); !errors.Is(err, seatdb.ErrSoldOut) {
				t.Fatalf("fourth sale of three seats: %v, want ErrSoldOut", err)
			}
			sales, err := s.Ledger(ctx, "r")
			if err != nil || len(sales) != 3 {
				t.Fatalf("ledger: %d rows, err %v", len(sales), err)
			}
			sec, err := s.Sector(ctx, "r", 1)
			if err != nil || sec.Available != 0 || sec.Capacity != 3 {
				t.Fatalf("sector %+v, err %v", sec, err)
			}
		})
	}
}

// TestDatabaseBackstops checks the constraints the verdict relies on: the
// counter cannot go negative, and a request id sells at most once.
func TestDatabaseBackstops(t *testing.T) {
	ctx := context.Background()
	s, pgURL := store(t, 1)
	if _, err := s.SellAtomic(ctx, request("once")); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := pgx.Identifier{seatdb.SchemaName("test", strings.ToLower(t.Name()))}.Sanitize()
	if _, err := conn.Exec(ctx, "UPDATE "+schema+".sectors SET available = -1"); err == nil {
		t.Error("available went below zero: the CHECK constraint is missing")
	}
	if _, err := conn.Exec(ctx, "UPDATE "+schema+".sectors SET available = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SellAtomic(ctx, request("once")); !errors.Is(err, seatdb.ErrDuplicate) {
		t.Errorf("the same request id again: %v, want ErrDuplicate", err)
	}
}

// TestOnlyOwnSchemas: hammer refuses to create over an existing schema and
// to drop one that is not named like its own.
func TestOnlyOwnSchemas(t *testing.T) {
	ctx := context.Background()
	_, pgURL := store(t, 1)
	schema := seatdb.SchemaName("test", strings.ToLower(t.Name()))
	if err := seatdb.Create(ctx, pgURL, schema, history.Sector{ID: 1, Capacity: 1}); err == nil {
		t.Error("Create reused an existing schema")
	}
	for _, name := range []string{"public", "hammer", "other_schema"} {
		if err := seatdb.Drop(ctx, pgURL, name); err == nil {
			t.Errorf("Drop(%q) was allowed", name)
		}
	}
}

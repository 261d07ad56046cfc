package seatdb_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestWarmLeavesNothingToPrepare: after Warm, a connection's first sales
// (sold, then sold out) neither prepare a statement of their own (a round
// trip each, in the start of a race) nor make the server plan one anew:
// each statement was planned once, generically (checked on PostgreSQL 14
// and later, which count the plans).
func TestWarmLeavesNothingToPrepare(t *testing.T) {
	ctx := context.Background()
	pgURL := stacktest.Get(t).PGURL
	schema := seatdb.SchemaName("test", strings.ToLower(t.Name()))
	if err := seatdb.Create(ctx, pgURL, schema, history.Sector{ID: 1, Capacity: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := seatdb.Drop(context.Background(), pgURL, schema); err != nil {
			t.Error(err)
		}
	})
	s, err := seatdb.Open(ctx, pgURL, schema, 1) // one connection: every query below runs on it
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Warm(ctx); err != nil {
		t.Fatalf("Warm: %v", err)
	}
	before := prepared(ctx, t, s)
	if _, err := s.SellAtomic(ctx, request("first")); err != nil {
		t.Fatalf("first sale: %v", err)
	}
	if _, err := s.SellAtomic(ctx, request("second")); err == nil {
		t.Fatal("second sale of one seat succeeded")
	}
	after := prepared(ctx, t, s)
	if !slices.Equal(names(before), names(after)) {
		t.Errorf("statements prepared: %v after the sales, %v after Warm: a sale prepared its own", names(after), names(before))
	}
	for _, st := range after {
		if st.custom > 0 {
			t.Errorf("%q was planned for its parameters %d times, want a generic plan only", st.name, st.custom)
		}
	}
}

// statement is a row of pg_prepared_statements.
type statement struct {
	name            string
	generic, custom int64
}

// prepared lists the statements prepared on s's connection, by name, with
// how often each was planned (PostgreSQL 14 and later; 0 before).
func prepared(ctx context.Context, t *testing.T, s *seatdb.Store) []statement {
	t.Helper()
	// The simple protocol, so that the queries prepare nothing themselves.
	var version int
	if err := s.Pool().QueryRow(ctx, "SELECT current_setting('server_version_num')::int", pgx.QueryExecModeSimpleProtocol).Scan(&version); err != nil {
		t.Fatal(err)
	}
	plans := "generic_plans, custom_plans"
	if version < 140000 {
		plans = "0::bigint, 0::bigint"
	}
	rows, err := s.Pool().Query(ctx, "SELECT name, "+plans+" FROM pg_prepared_statements ORDER BY name",
		pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	var out []statement
	for rows.Next() {
		var st statement
		if err := rows.Scan(&st.name, &st.generic, &st.custom); err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// names are the statements' names.
func names(sts []statement) []string {
	var out []string
	for _, st := range sts {
		out = append(out, st.name)
	}
	return out
}

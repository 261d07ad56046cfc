package seatdb_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/internal/seatdb"
)

// TestCommitLatency: the probe measures something, leaves the run's schema
// with the tables it had, and refuses a schema hammer did not name.
func TestCommitLatency(t *testing.T) {
	ctx := context.Background()
	_, pgURL := store(t, 1)
	schema := seatdb.SchemaName("test", strings.ToLower(t.Name()))
	d, err := seatdb.CommitLatency(ctx, pgURL, schema, 3)
	if err != nil || d <= 0 {
		t.Fatalf("CommitLatency = %s, %v; want a positive latency", d, err)
	}
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", schema)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sales", "seats", "sectors"}; !slices.Equal(tables, want) {
		t.Errorf("tables after the probe %q, want %q", tables, want)
	}
	if _, err := seatdb.CommitLatency(ctx, pgURL, "public", 3); err == nil {
		t.Error("CommitLatency probed the public schema")
	}
}

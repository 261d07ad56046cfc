package seatdb_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestCreateWithLeftTransaction: setup SQL that commits the race's
// transaction half-way fails CreateWith with ErrLeftTransaction, and the
// schema it committed is dropped; a setup that stays in it is kept.
func TestCreateWithLeftTransaction(t *testing.T) {
	ctx := context.Background()
	conn, pgURL := stacktest.PGConn(t)
	exists := func(schema string) bool {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = $1)", schema).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	schema := seatdb.SchemaName("test", "left_transaction")
	err := seatdb.CreateWith(ctx, pgURL, schema, "CREATE TABLE a (x int); COMMIT; SELECT 1")
	if !errors.Is(err, seatdb.ErrLeftTransaction) {
		t.Errorf("CreateWith with a COMMIT: %v, want ErrLeftTransaction", err)
	}
	if exists(schema) {
		t.Errorf("schema %s left behind", schema)
		_ = seatdb.Drop(ctx, pgURL, schema)
	}
	if err := seatdb.CreateWith(ctx, pgURL, schema, "CREATE TABLE a (x int); SAVEPOINT s; INSERT INTO a VALUES (1); RELEASE s"); err != nil {
		t.Fatalf("CreateWith in one transaction: %v", err)
	}
	if !exists(schema) {
		t.Errorf("schema %s not made", schema)
	}
	if err := seatdb.Drop(ctx, pgURL, schema); err != nil {
		t.Fatal(err)
	}
}

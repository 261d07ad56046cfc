package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestCheckSetupLeftTransaction: setup SQL that gets past the load-time
// refusal and still ends or leaves the check's transaction is the
// setup's mistake (ErrSetup, exit 2): the check's schema is dropped, and
// what the SQL made outside it is named (a backstop: such SQL already
// ran as one query).
func TestCheckSetupLeftTransaction(t *testing.T) {
	ctx := context.Background()
	conn, pgURL := stacktest.PGConn(t)
	table := fmt.Sprintf("hammer_test_leak_%d", os.Getpid()) // what would leak into public
	drop := func() {
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS public."+table); err != nil {
			t.Fatal(err)
		}
	}
	const fill = "CREATE TABLE sectors (x int); INSERT INTO sectors VALUES ({{seats}}); "
	tests := []struct {
		name, sql, want string
		leaks           bool // the SQL made public.table before the check could see
	}{
		{"commit", fill + "CREATE TABLE a (x int); COMMIT; CREATE TABLE " + table + " (x int)", "public." + table, true},
		{"commit then error", fill + "CREATE TABLE a (x int); COMMIT; SELECT 1/0", "nothing made outside it was found", false},
		{"commit then begin", fill + "COMMIT; BEGIN; CREATE TABLE " + table + " (x int)", "nothing made outside it was found", false},
		{"commit, begin, error", fill + "COMMIT; BEGIN; SELECT 1/0", "nothing made outside it was found", false},
		{"rollback", fill + "ROLLBACK; CREATE TABLE " + table + " (x int)", "public." + table, true},
		{"search_path by function", fill + "SELECT set_config('search_path', 'public', true); CREATE TABLE " + table + " (x int)", "nothing made outside it was found", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			drop()
			before := checkSchemas(t, conn)
			err := CheckSetup(ctx, &File{Path: "target.yaml", Setup: tt.sql}, pgURL, 10)
			if !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), "left the transaction") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckSetup: %v, want ErrSetup saying it left the transaction and %q", err, tt.want)
			}
			if after := checkSchemas(t, conn); after != before {
				t.Errorf("check schemas: %d before, %d after", before, after)
			}
			var leaked bool
			if err := conn.QueryRow(ctx, "SELECT to_regclass('public."+table+"') IS NOT NULL").Scan(&leaked); err != nil {
				t.Fatal(err)
			}
			if leaked != tt.leaks {
				t.Errorf("public.%s made: %v, want %v", table, leaked, tt.leaks)
			}
			drop()
		})
	}
}

// TestCheckSetupCommitInBody: a COMMIT inside a DO body is left to
// PostgreSQL, which refuses it inside the check's transaction: the
// setup's mistake, naming the statement.
func TestCheckSetupCommitInBody(t *testing.T) {
	ctx := context.Background()
	conn, pgURL := stacktest.PGConn(t)
	before := checkSchemas(t, conn)
	setup := "CREATE TABLE sectors (x int); DO $$ BEGIN INSERT INTO sectors VALUES ({{seats}}); COMMIT; END $$"
	err := CheckSetup(ctx, &File{Path: "target.yaml", Setup: setup}, pgURL, 10)
	if want := "statement 2 (DO $$"; !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "SQLSTATE 2D000") {
		t.Errorf("CheckSetup: %v, want ErrSetup saying %q and SQLSTATE 2D000", err, want)
	}
	if after := checkSchemas(t, conn); after != before {
		t.Errorf("check schemas: %d before, %d after", before, after)
	}
}

// checkSchemas counts the schemas CheckSetup makes.
func checkSchemas(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE starts_with(nspname, 'hammer_setup_check_')").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestCheckSetupServerDown: a server that cannot be reached is the
// world's failure, never the setup's (exit 3, not 2).
func TestCheckSetupServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	f := &File{Path: "target.yaml", Setup: "CREATE TABLE t (x int);"}
	err = CheckSetup(context.Background(), f, "postgres://u@"+addr+"/db?sslmode=disable&connect_timeout=2", 10)
	if err == nil || errors.Is(err, ErrSetup) {
		t.Errorf("CheckSetup against a closed port: %v, want an error that is not ErrSetup", err)
	}
}

func TestUsersSQLState(t *testing.T) {
	for code, want := range map[string]bool{
		"42601": true,  // syntax error
		"42P01": true,  // undefined table
		"25001": true,  // active SQL transaction: DROP DATABASE
		"23505": true,  // unique violation
		"P0001": true,  // RAISE EXCEPTION
		"08006": false, // connection failure
		"57P01": false, // admin shutdown
		"53300": false, // too many connections
		"40P01": false, // deadlock
		"XX000": false, // internal error
		"":      false,
	} {
		if got := usersSQLState(code); got != want {
			t.Errorf("usersSQLState(%q) = %v, want %v", code, got, want)
		}
	}
}

// TestCheckSetupNoCreate: a role that may not create the schema the check
// runs the setup SQL in is told so (ErrRights, exit 2), not blamed on the
// setup SQL. Before, it read "setup: permission denied" as ErrSetup.
func TestCheckSetupNoCreate(t *testing.T) {
	st := stacktest.Get(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, st.PGURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	role := fmt.Sprintf("hammer_test_setup_nocreate_%d", os.Getpid())
	if _, err := conn.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := conn.Exec(context.Background(), "DROP ROLE "+role); err != nil {
			t.Errorf("drop the test's role: %v", err)
		}
	}()
	cfg := conn.Config()
	pgURL := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", role, cfg.Host, cfg.Port, cfg.Database)
	f := &File{Path: "target.yaml", Setup: "CREATE TABLE t (x int);"}
	err = CheckSetup(ctx, f, pgURL, 10)
	if err == nil || errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), "may not create schemas") {
		t.Errorf("CheckSetup as a role without CREATE: %v, want the role's rights named, not the setup SQL", err)
	}
}

// TestTruthErrorBlame: a truth query's failure is the target file's
// mistake (exit 2) only when PostgreSQL refused its SQL or its rows have
// the wrong shape; a connection that broke or a check that was stopped is
// the world's (exit 3).
func TestTruthErrorBlame(t *testing.T) {
	for _, tt := range []struct {
		err   error
		users bool
	}{
		{&pgconn.PgError{Code: "42P01", Message: `relation "salez" does not exist`}, true},
		{&shapeError{errors.New("returns 1 column, want 2")}, true},
		{fmt.Errorf("scan: %w", &shapeError{errors.New("can't scan")}), true},
		{&pgconn.PgError{Code: "08006", Message: "connection failure"}, false},
		{&pgconn.PgError{Code: "57014", Message: "canceling statement due to user request"}, false},
		{context.Canceled, false},
		{context.DeadlineExceeded, false},
		{errors.New("unexpected EOF"), false},
	} {
		if got := newTruthError("truth.ledger", tt.err).users; got != tt.users {
			t.Errorf("%v: the target file's mistake = %v, want %v", tt.err, got, tt.users)
		}
	}
}

package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hammer-load/hammer/internal/seatdb"
)

// ErrSetup matches the error of CheckSetup when PostgreSQL refuses the
// setup SQL itself (a syntax error, a statement that cannot run in a
// transaction, a table that is not there): the target file's mistake,
// not the server's.
var ErrSetup = errors.New("setup SQL refused")

// ErrRights matches the error of CheckSetup when the PostgreSQL role may
// not create the schema the setup SQL runs in: the role's rights, not
// the target file's mistake, and the user's configuration all the same.
var ErrRights = errors.New("postgresql role may not create schemas")

// setupCheckTimeout bounds CheckSetup.
const setupCheckTimeout = 30 * time.Second

// CheckSetup runs the file's setup SQL for a race of seats seats the way
// each race will (in a fresh schema, inside a transaction), then its truth
// queries on the tables the setup made, then rolls it all back, so that
// SQL PostgreSQL refuses is found before anything starts and nothing is
// left behind. When the server refuses the SQL itself, or a truth query
// returns columns hammer cannot read, the error matches ErrSetup and
// names the failing statement or query; any other error (the server is
// down, the connection broke) does not.
func CheckSetup(ctx context.Context, f *File, pgURL string, seats int) error {
	ctx, cancel := context.WithTimeout(ctx, setupCheckTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return fmt.Errorf("check the setup SQL: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// Expanded as each race's is; no key is made, so any prefix does.
	vals := raceVals(seats, "hammer:setup-check:")
	sql := Expand(f.Setup, vals)
	err = rolledBack(ctx, conn, func(tx pgx.Tx, schema string) error {
		if err := seatdb.ExecSetup(ctx, tx, schema, sql); err != nil {
			return err
		}
		return checkTruth(ctx, tx, f.Truth, vals)
	})
	var pgErr *pgconn.PgError
	var schemaErr *schemaError
	var truthErr *truthError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &truthErr):
		if !truthErr.users {
			return fmt.Errorf("check the truth SQL: %w", err)
		}
		return &setupError{msg: fmt.Sprintf("%s: %s", f.Path, oneLine(err.Error()))}
	case errors.Is(err, seatdb.ErrLeftTransaction):
		return &setupError{msg: fmt.Sprintf("%s: setup: %s", f.Path, oneLine(err.Error()))}
	case errors.As(err, &schemaErr) && errors.As(err, &pgErr) && pgErr.Code == "42501":
		return fmt.Errorf("%w (user %s, database %s), and the setup SQL runs in a schema of its own: %s (SQLSTATE %s)",
			ErrRights, conn.Config().User, conn.Config().Database, oneLine(pgErr.Message), pgErr.Code)
	case errors.As(err, &schemaErr), !errors.As(err, &pgErr) || !usersSQLState(pgErr.Code):
		return fmt.Errorf("check the setup SQL: %w", err)
	}
	where := ""
	if n, stmt, ok := failing(ctx, conn, sql); ok {
		where = fmt.Sprintf(" statement %d (%s):", n, stmt)
	}
	return &setupError{msg: fmt.Sprintf("%s: setup:%s %s (SQLSTATE %s)", f.Path, where, oneLine(pgErr.Message), pgErr.Code)}
}

// setupError is setup SQL the server refused; it matches ErrSetup.
type setupError struct{ msg string }

func (e *setupError) Error() string        { return e.msg }
func (e *setupError) Is(target error) bool { return target == ErrSetup }

// schemaError is the server refusing the check's own CREATE SCHEMA,
// before any of the setup SQL ran.
type schemaError struct{ err error }

func (e *schemaError) Error() string { return "create the check's schema: " + e.err.Error() }
func (e *schemaError) Unwrap() error { return e.err }

// rolledBack runs fill in a transaction, in a schema of its own made
// for it (named to fill) and on the search_path, as seatdb.CreateWith
// does, and rolls the transaction back whatever fill did.
func rolledBack(ctx context.Context, conn *pgx.Conn, fill func(tx pgx.Tx, schema string) error) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a failed rollback leaves nothing: the connection closes
	var b [4]byte
	_, _ = rand.Read(b[:])
	schema := seatdb.SchemaPrefix + "setup_check_" + hex.EncodeToString(b[:])
	quoted := pgx.Identifier{schema}.Sanitize()
	if _, err := tx.Exec(ctx, "CREATE SCHEMA "+quoted); err != nil {
		return &schemaError{err}
	}
	if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+quoted); err != nil {
		return err
	}
	return fill(tx, schema)
}

// failing runs the statements of sql one by one, in a transaction it
// rolls back, and returns the number and text of the first the server
// refuses; false when none is (the statements could not be told apart)
// or one leaves the transaction (seatdb.ExecSetup cleans up then).
func failing(ctx context.Context, conn *pgx.Conn, sql string) (int, string, bool) {
	var n int
	var stmt string
	err := rolledBack(ctx, conn, func(tx pgx.Tx, schema string) error {
		for i, s := range statements(sql) {
			if err := seatdb.ExecSetup(ctx, tx, schema, s); err != nil {
				if !errors.Is(err, seatdb.ErrLeftTransaction) {
					n, stmt = i+1, s
				}
				return err
			}
		}
		return nil
	})
	if err == nil || n == 0 {
		return 0, "", false
	}
	return n, shorten(oneLine(stmt), 80), true
}

// usersSQLState says whether an error of this SQLSTATE is the SQL's own
// mistake: its syntax, its objects, its data, a statement that cannot
// run in a transaction, missing rights. The rest (the connection, the
// server's resources, a deadlock, the operator) is the world's.
func usersSQLState(code string) bool {
	switch code[:min(2, len(code))] {
	case "0A", // feature not supported
		"21", // cardinality violation
		"22", // data exception
		"23", // integrity constraint violation
		"25", // invalid transaction state: DROP DATABASE, VACUUM in a transaction
		"26", // invalid SQL statement name
		"28", // invalid authorization specification
		"2D", // invalid transaction termination: COMMIT in a DO body or a procedure
		"2B", // dependent privilege descriptors still exist
		"2F", // SQL routine exception
		"34", // invalid cursor name
		"38", // external routine exception
		"39", // external routine invocation exception
		"3D", // invalid catalog name
		"3F", // invalid schema name
		"42", // syntax error or access rule violation
		"44", // WITH CHECK OPTION violation
		"54", // program limit exceeded: too many columns, too complex
		"P0": // PL/pgSQL: RAISE EXCEPTION, assert failure
		return true
	}
	return false
}

// oneLine folds s onto one line, its runs of white space made one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shorten cuts s to at most n runes, marking the cut with "…".
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

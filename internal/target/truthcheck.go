package target

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// truthError is a truth query that failed on the tables the setup SQL
// made: part names it (truth.ledger, truth.sector). users says the query
// itself is wrong: PostgreSQL refused it for its own SQL (usersSQLState),
// or it returns columns the read-back cannot read; any other failure (the
// connection, a timeout) is the world's.
type truthError struct {
	part  string
	err   error
	users bool
}

func (e *truthError) Error() string {
	var pgErr *pgconn.PgError
	if errors.As(e.err, &pgErr) {
		return fmt.Sprintf("%s: %s (SQLSTATE %s)", e.part, pgErr.Message, pgErr.Code)
	}
	return e.part + ": " + e.err.Error()
}

func (e *truthError) Unwrap() error { return e.err }

// checkTruth runs the truth queries, expanded with vals, in tx, on the
// tables the setup SQL has just made, and reads what they return as the
// read-back after a race will: the ledger's rows as (request id, seat),
// the sector's row as (capacity, available). A sector with no row yet is
// not a mistake: a service may make it at its first request.
func checkTruth(ctx context.Context, tx pgx.Tx, t Truth, vals map[string]string) error {
	if t.Ledger == "" {
		return nil // a file that was not parsed: parsing requires one
	}
	var id string
	var seat int
	if err := checkRows(ctx, tx, Expand(t.Ledger, vals), "the request id and the seat", &id, &seat); err != nil {
		return newTruthError("truth.ledger", err)
	}
	if t.Sector == "" {
		return nil
	}
	var capacity, available int
	if err := checkRows(ctx, tx, Expand(t.Sector, vals), "the capacity and the seats available", &capacity, &available); err != nil {
		return newTruthError("truth.sector", err)
	}
	return nil
}

// newTruthError is the truth query part's err, told as the query's own
// mistake or the world's.
func newTruthError(part string, err error) *truthError {
	var pgErr *pgconn.PgError
	var shape *shapeError
	users := errors.As(err, &shape) || errors.As(err, &pgErr) && usersSQLState(pgErr.Code)
	return &truthError{part: part, err: err, users: users}
}

// shapeError is a truth query whose rows the read-back cannot read: the
// wrong number of columns, or values of the wrong type.
type shapeError struct{ err error }

func (e *shapeError) Error() string { return e.err.Error() }
func (e *shapeError) Unwrap() error { return e.err }

// checkRows runs query and reads each row it returns into dest, whose
// columns are what (for the message when their number is wrong).
func checkRows(ctx context.Context, tx pgx.Tx, query, what string, dest ...any) error {
	rows, err := tx.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	if n := len(rows.FieldDescriptions()); n != len(dest) {
		unit := "columns"
		if n == 1 {
			unit = "column"
		}
		return &shapeError{fmt.Errorf("returns %d %s, want %d: %s", n, unit, len(dest), what)}
	}
	// The types too: a query over tables that hold no row yet returns
	// nothing to scan, and its first rows would come only after a race.
	// A type pgx does not know (an extension's, such as citext) is let
	// through: its rows, if any, tell.
	for i, fd := range rows.FieldDescriptions() {
		t, known := tx.Conn().TypeMap().TypeForOID(fd.DataTypeOID)
		if want, ok := columnFits(fd.DataTypeOID, dest[i]); known && !ok {
			return &shapeError{fmt.Errorf("returns %s for column %d (%s), want %s: %s", t.Name, i+1, fd.Name, want, what)}
		}
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			var argErr pgx.ScanArgError
			if errors.As(err, &argErr) {
				return &shapeError{err}
			}
			return err
		}
	}
	return rows.Err()
}

// columnFits reports whether a column of the built-in type oid reads
// into dest as the read-back reads it, and if not what it wants: text of
// some kind for a *string (a request id), an integer for an *int (a seat,
// a count).
func columnFits(oid uint32, dest any) (want string, ok bool) {
	switch dest.(type) {
	case *string:
		switch oid {
		case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.UUIDOID:
			return "", true
		}
		return "text (text, varchar, char or uuid)", false
	case *int:
		switch oid {
		case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.NumericOID:
			return "", true
		}
		return "an integer (smallint, integer, bigint or numeric)", false
	}
	return "", true
}

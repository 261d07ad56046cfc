package seatdb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ErrLeftTransaction matches the error of ExecSetup when the setup SQL
// ended the transaction it ran in (COMMIT, ROLLBACK, a new BEGIN) or
// moved its search_path out of the schema made for it: what it made
// after that could land outside the schema, where hammer cannot remove
// it.
var ErrLeftTransaction = errors.New("the setup SQL left the transaction and schema hammer runs it in")

// ExecSetup runs setup in tx, a transaction whose search_path is schema
// alone, as one simple-protocol query, and checks after it that the
// connection is still in the same transaction with the same
// search_path. When it is not, ExecSetup ends whatever transaction the
// SQL left open, drops schema (which the SQL may have committed) and
// returns an error matching ErrLeftTransaction that names the relations
// and schemas created since tx began outside schema, as far as the
// server's catalog tells (another session's may be among them); it
// removes none of those. Otherwise it returns the error of the SQL.
func ExecSetup(ctx context.Context, tx pgx.Tx, schema, setup string) error {
	var xid int64
	var path string
	if err := tx.QueryRow(ctx, "SELECT txid_current(), current_setting('search_path')").Scan(&xid, &path); err != nil {
		return fmt.Errorf("mark the setup's transaction: %w", err)
	}
	_, execErr := tx.Exec(ctx, setup)
	conn := tx.Conn()
	left := false
	switch conn.PgConn().TxStatus() {
	case 'I': // the SQL ended the transaction, committing or not
		left = true
	case 'T':
		var now int64
		var nowPath string
		if err := conn.QueryRow(ctx, "SELECT txid_current(), current_setting('search_path')").Scan(&now, &nowPath); err != nil {
			return fmt.Errorf("check the setup's transaction: %w", err)
		}
		left = now != xid || nowPath != path
	default: // 'E': failed, in this transaction or in one the SQL began
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			return fmt.Errorf("roll back the setup: %w", err)
		}
		var kept bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = $1)", schema).Scan(&kept); err != nil {
			return fmt.Errorf("check the setup's schema: %w", err)
		}
		left = kept // rolled back, schema would be gone: a COMMIT kept it
	}
	if !left {
		return execErr
	}
	return leftTransaction(ctx, conn, schema, xid)
}

// leftTransaction cleans up after setup SQL that left its transaction
// begun as xid: it ends the transaction the connection is in, drops
// schema and returns the error that names what was made outside it.
func leftTransaction(ctx context.Context, conn *pgx.Conn, schema string, xid int64) error {
	if conn.PgConn().TxStatus() != 'I' {
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			return fmt.Errorf("%w; roll back: %v", ErrLeftTransaction, err)
		}
	}
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		return fmt.Errorf("%w; drop schema %s: %v", ErrLeftTransaction, schema, err)
	}
	rows, err := conn.Query(ctx, sqlMadeSince, strconv.FormatUint(uint64(uint32(xid)), 10), schema)
	if err != nil {
		return fmt.Errorf("%w; look for what it made: %v", ErrLeftTransaction, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	switch {
	case err != nil:
		return fmt.Errorf("%w; look for what it made: %v", ErrLeftTransaction, err)
	case len(names) == 0:
		return fmt.Errorf("%w; nothing made outside it was found", ErrLeftTransaction)
	case len(names) > maxMadeNames:
		names = append(names[:maxMadeNames], "…")
	}
	return fmt.Errorf("%w; made since, outside it, and left in place: %s", ErrLeftTransaction, strings.Join(names, ", "))
}

// maxMadeNames is the most names leftTransaction lists.
const maxMadeNames = 10

// sqlMadeSince lists the schemas and relations (tables, views,
// sequences, …) made by transactions no older than $1 (the 32-bit
// transaction id), outside schema $2 and the system's schemas.
const sqlMadeSince = `
SELECT name FROM (
	SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name, age(c.xmin) AS age
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
	UNION ALL
	SELECT 'schema ' || quote_ident(n.nspname), age(n.xmin) FROM pg_namespace n
) made
WHERE age <= age($1::text::xid)
	AND name NOT LIKE 'pg\_%' AND name NOT LIKE 'schema pg\_%' AND name NOT LIKE 'information\_schema.%'
	AND name NOT LIKE quote_ident($2) || '.%' AND name <> 'schema ' || quote_ident($2)
ORDER BY name LIMIT 11`

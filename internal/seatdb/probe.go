package seatdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// ProbeTable is the table CommitLatency creates in a run's schema and
// drops again.
const ProbeTable = "hammer_commit_probe"

// CommitLatency measures how long the PostgreSQL at pgURL takes to commit
// a single-row update: n serial autocommit UPDATEs of one row of a table
// it creates in the run's schema (which must already exist) and drops
// again, after one update not counted (it warms the connection). It
// returns the median. Every sale commits one such update of the sector's
// row, one after the other, so seats × this is the shortest a sell-out
// can take.
func CommitLatency(ctx context.Context, pgURL, schema string, n int) (_ time.Duration, err error) {
	if !schemaName.MatchString(schema) || n < 1 {
		return 0, fmt.Errorf("commit probe: %q is not a hammer schema name, or %d probes", schema, n)
	}
	conn, err := connect(ctx, pgURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	table := pgx.Identifier{schema, ProbeTable}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (id integer PRIMARY KEY, n bigint NOT NULL); INSERT INTO "+table+" VALUES (1, 0)"); err != nil {
		return 0, fmt.Errorf("commit probe: create %s: %w", table, err)
	}
	defer func() {
		if _, derr := conn.Exec(context.WithoutCancel(ctx), "DROP TABLE "+table); derr != nil {
			err = errors.Join(err, fmt.Errorf("commit probe: drop %s: %w", table, derr))
		}
	}()
	update := "UPDATE " + table + " SET n = n + 1 WHERE id = 1"
	took := make([]time.Duration, 0, n)
	for i := range n + 1 {
		start := time.Now()
		if _, err := conn.Exec(ctx, update); err != nil {
			return 0, fmt.Errorf("commit probe: %w", err)
		}
		if i > 0 {
			took = append(took, time.Since(start))
		}
	}
	slices.Sort(took)
	return took[len(took)/2], nil
}

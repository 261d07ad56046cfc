package target

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// schemaCheckTimeout bounds each look of the schema check.
const schemaCheckTimeout = 5 * time.Second

// schemaCheck finds a service that does not use the race's schema: one
// that ignores the variable the file hands {{pg_schema}} in and keeps its
// own search_path, or whose PostgreSQL client ignores PGOPTIONS. Before
// the replicas start it notes the tables the race's setup made and the
// rows of every table of the same name outside hammer's schemas (none
// when there is no such table); after a race whose ledger came back empty
// it looks again, and a table of those names that gained rows meanwhile
// is where the service sold.
type schemaCheck struct {
	schema string
	names  []string         // the tables of the race's schema
	before map[string]int64 // rows of the tables outside, by qualified name
}

// noteTables makes the check of the race's schema on PostgreSQL at
// pgURL; nil when it could not look (the check is a diagnosis only: the
// race goes on).
func noteTables(ctx context.Context, pgURL, schema string) *schemaCheck {
	ctx, cancel := context.WithTimeout(ctx, schemaCheckTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return nil
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, _ := conn.Query(ctx, "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY 1", schema)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(names) == 0 {
		return nil
	}
	before, err := outsideRows(ctx, conn, names)
	if err != nil {
		return nil
	}
	return &schemaCheck{schema: schema, names: names, before: before}
}

// outsideRows counts the rows of each table named one of names in a
// schema that is neither hammer's nor the system's.
func outsideRows(ctx context.Context, conn *pgx.Conn, names []string) (map[string]int64, error) {
	rows, _ := conn.Query(ctx, `SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relname = ANY($1) AND c.relkind IN ('r', 'p') AND n.nspname NOT LIKE 'hammer\_%'
		AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'`, names)
	tables, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Schema, Name string }])
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, t := range tables {
		id := pgx.Identifier{t.Schema, t.Name}.Sanitize()
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+id).Scan(&n); err == nil {
			out[t.Schema+"."+t.Name] = n
		}
	}
	return out, nil
}

// elsewhere looks again after a race whose ledger was empty, and says
// where the service sold instead, with the fix in vars' terms (the
// variables the file hands {{pg_schema}} in); "" when no table of the
// race's names gained rows outside hammer's schemas.
func (c *schemaCheck) elsewhere(ctx context.Context, pgURL string, vars []string) string {
	ctx, cancel := context.WithTimeout(ctx, schemaCheckTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return ""
	}
	defer conn.Close(context.WithoutCancel(ctx))
	after, err := outsideRows(ctx, conn, c.names)
	if err != nil {
		return ""
	}
	var grew []string
	for _, t := range slices.Sorted(maps.Keys(after)) {
		if n := after[t] - c.before[t]; n > 0 {
			unit := "rows"
			if n == 1 {
				unit = "row"
			}
			grew = append(grew, fmt.Sprintf("%s (+%d %s)", t, n, unit))
		}
	}
	if len(grew) == 0 {
		return ""
	}
	fix := "make its PostgreSQL client take the search_path from PGOPTIONS, which hammer sets (docs/target.md, \"The race's schema\")"
	if len(vars) > 0 {
		fix = fmt.Sprintf("make it use the schema the file hands it in %s, or drop that and let PGOPTIONS, which hammer sets, choose its search_path (docs/target.md, \"The race's schema\")", strings.Join(vars, ", "))
	}
	return fmt.Sprintf("the service's tables are not in the race's schema %s: it sold none there, and %s gained rows during the race; %s",
		c.schema, strings.Join(grew, ", "), fix)
}

// schemaVars names the variables of variant v's environment that hand the
// service {{pg_schema}}, sorted.
func (f *File) schemaVars(v Variant) []string {
	if f.Service == nil {
		return nil
	}
	env := maps.Clone(f.Service.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, v.Env)
	var out []string
	for k, val := range env {
		if slices.Contains(Placeholders(val), VarPGSchema) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

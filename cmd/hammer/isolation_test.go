package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestIsolation puts unrelated keys and tables into the same Redis and
// PostgreSQL — including ones that look like another hammer run's — races
// every mode, and checks that all of them are byte-for-byte untouched.
func TestIsolation(t *testing.T) {
	ctx := context.Background()
	st := stacktest.Get(t)
	opt, err := redis.ParseURL(st.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	conn, err := pgx.Connect(ctx, st.PGURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	keys := []string{"isolation:precious", "hammer:someone-elses-run:lock:sector:1"}
	for _, k := range keys {
		if err := rdb.Set(ctx, k, "do not touch "+k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { rdb.Del(context.Background(), keys...) })
	for _, sql := range []string{
		"CREATE SCHEMA isolation_other",
		"CREATE TABLE isolation_other.sales (id int PRIMARY KEY, note text)",
		"INSERT INTO isolation_other.sales VALUES (1, 'precious'), (2, 'also precious')",
		"CREATE SCHEMA hammer_someone_elses_run",
		"CREATE TABLE hammer_someone_elses_run.sectors (id int PRIMARY KEY, available int)",
		"INSERT INTO hammer_someone_elses_run.sectors VALUES (1, 42)",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), st.PGURL)
		if err == nil {
			c.Exec(context.Background(), "DROP SCHEMA isolation_other, hammer_someone_elses_run CASCADE")
			c.Close(context.Background())
		}
	})

	snapshot := func() map[string]string {
		s := map[string]string{}
		for _, k := range keys {
			dump, err := rdb.Dump(ctx, k).Result()
			if err != nil {
				t.Fatalf("dump %s: %v", k, err)
			}
			s["redis "+k] = dump
			s["ttl "+k] = rdb.PTTL(ctx, k).Val().String()
		}
		for _, table := range []string{"isolation_other.sales", "hammer_someone_elses_run.sectors"} {
			var rows string
			if err := conn.QueryRow(ctx, "SELECT coalesce(string_agg(t::text, ';' ORDER BY t::text), '') FROM "+table+" t").Scan(&rows); err != nil {
				t.Fatalf("read %s: %v", table, err)
			}
			s["pg "+table] = rows
		}
		return s
	}
	before := snapshot()

	dir := filepath.Join(t.TempDir(), "out")
	// 200 contenders for 20 seats: with 80 for 10, the negative control
	// once sold exactly its 10 in .ci/run (2.5 ms, no two reads met).
	args := append([]string{"load", "--procs", "2", "--goroutines", "100", "--seats", "20", "--quiet", "--out", dir}, stackArgs(t)...)
	if code, stdout, stderr := hammer(t, args...); code != exitOK {
		t.Fatalf("load exit %d\n%s\n%s", code, stdout, stderr)
	}

	after := snapshot()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed: before %q, after %q", k, v, after[k])
		}
	}
	// What the run created, it removed.
	runID := readSummary(t, dir).RunID
	var leftover int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE starts_with(nspname, $1)",
		seatdb.SchemaName(runID, "")).Scan(&leftover); err != nil {
		t.Fatal(err)
	}
	if leftover != 0 {
		t.Errorf("%d schemas of run %s left behind", leftover, runID)
	}
	if n := len(rdb.Keys(ctx, "hammer:"+runID+":*").Val()); n != 0 {
		t.Errorf("%d keys of run %s left behind", n, runID)
	}
}

package driver

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestCleanupWaitsForFrozenRedis: a Redis that answers again within the
// clean-up's wait has the race's keys removed, and only those; one that
// does not answer in time leaves each key named with its TTL, one line
// each.
func TestCleanupWaitsForFrozenRedis(t *testing.T) {
	st := stacktest.Private(t)
	rdb, pid := stacktest.FreezableRedis(t, st.RedisURL)
	ctx := context.Background()
	td := &teardown{prefix: "hammer:t:r:", keys: []leftKey{{"hammer:t:r:lock", 10 * time.Second}, {"hammer:t:r:fence", 0}}}
	seed := func() {
		t.Helper()
		for _, k := range []string{"hammer:t:r:lock", "hammer:t:r:fence", "other:key"} {
			if err := rdb.Set(ctx, k, "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}

	seed()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	if err := deleteKeys(ctx, st.RedisURL, td, 5*time.Second); err != nil {
		t.Fatalf("deleteKeys with Redis back after 300ms: %v", err)
	}
	if got := rdb.Keys(ctx, "*").Val(); strings.Join(got, ",") != "other:key" {
		t.Errorf("keys left: %v, want only other:key", got)
	}

	seed()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := deleteKeys(ctx, st.RedisURL, td, 300*time.Millisecond)
	took := time.Since(start)
	_ = syscall.Kill(pid, syscall.SIGCONT)
	if err == nil {
		t.Fatal("deleteKeys with Redis frozen: nil, want the keys named")
	}
	// The wait plus a second for a host busy enough to be late waking.
	if took > 300*time.Millisecond+time.Second {
		t.Errorf("deleteKeys took %s with a wait of 300ms", took)
	}
	lines := strings.Split(err.Error(), "\n")
	for _, want := range []string{"hammer:t:r:lock (TTL at most 10s", "hammer:t:r:fence (no TTL", "other keys under hammer:t:r:*"} {
		n := 0
		for _, l := range lines {
			if strings.Contains(l, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d lines name %q, want 1:\n%s", n, want, err)
		}
	}
}

// TestCleanupGivesUpOnFrozenPostgres: with the health checks having seen
// PostgreSQL stop answering, the clean-up tries a frozen one for
// cleanupDownWait and goes on, naming the schema it left and how to drop
// it, instead of waiting out a connection's timeout.
func TestCleanupGivesUpOnFrozenPostgres(t *testing.T) {
	st := stacktest.Private(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, st.PGURL)
	if err != nil {
		t.Fatal(err)
	}
	var dataDir string
	err = conn.QueryRow(ctx, "SHOW data_directory").Scan(&dataDir)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pidFile, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	postmaster, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	// A frozen postmaster accepts no connection: the clean-up's hangs.
	if err := syscall.Kill(postmaster, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(postmaster, syscall.SIGCONT) })
	schema := seatdb.SchemaName("20261206_000000_abcdef", "frozen")
	td := &teardown{schema: schema, prefix: "hammer:t:p:", pgDown: true}
	start := time.Now()
	err = cleanup(Options{RedisURL: st.RedisURL, PGURL: st.PGURL}, td)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "clean-up left schema "+schema+" (drop it with DROP SCHEMA "+schema+" CASCADE)") {
		t.Errorf("clean-up with PostgreSQL frozen: %v, want the schema named with how to drop it", err)
	}
	// The wait plus a second for a host busy enough to be late waking.
	if took > cleanupDownWait+time.Second {
		t.Errorf("clean-up took %s with PostgreSQL seen down, want at most %s", took, cleanupDownWait+time.Second)
	}
}

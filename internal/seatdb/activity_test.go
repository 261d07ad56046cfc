package seatdb_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/internal/seatdb"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// writer opens a connection that has begun a transaction and taken a
// transaction id, and returns it with its client port.
func writer(t *testing.T, ctx context.Context, pgURL string) (*pgx.Conn, int) {
	t.Helper()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT txid_current()"); err != nil {
		t.Fatal(err)
	}
	return conn, conn.PgConn().Conn().LocalAddr().(*net.TCPAddr).Port
}

// find returns the Writer of port, if Writing lists it.
func find(t *testing.T, ctx context.Context, a *seatdb.Activity, port int) (seatdb.Writer, bool) {
	t.Helper()
	ws, err := a.Writing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Port == port {
			return w, true
		}
	}
	return seatdb.Writer{}, false
}

// TestHolding: a transaction that has written and waits for its client
// is listed and held. A Writer found before its COMMIT ran no longer
// holds, even once its connection has begun another transaction; nor does
// one whose statement still runs. That is how a look at a stopped replica
// tells a sale it stopped inside from one whose COMMIT was on its way.
func TestHolding(t *testing.T) {
	ctx := context.Background()
	pgURL := stacktest.Get(t).PGURL
	a, err := seatdb.OpenActivity(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	open, openPort := writer(t, ctx, pgURL)
	done, donePort := writer(t, ctx, pgURL)
	busy, busyPort := writer(t, ctx, pgURL)
	w, ok := find(t, ctx, a, openPort)
	if !ok || !w.Idle || w.XID == "" {
		t.Fatalf("Writing: %+v, listed %t; want the open transaction, idle in it, with its id", w, ok)
	}
	gone, ok := find(t, ctx, a, donePort)
	if !ok {
		t.Fatal("Writing does not list the second transaction before its COMMIT")
	}
	// The second commits and begins again: same port, another transaction.
	for _, sql := range []string{"COMMIT", "BEGIN", "SELECT txid_current()"} {
		if _, err := done.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if again, ok := find(t, ctx, a, donePort); !ok || again.XID == gone.XID {
		t.Fatalf("after COMMIT and BEGIN: %+v, listed %t; want a new transaction", again, ok)
	}
	// The third runs a statement while it is looked at.
	running, ok := find(t, ctx, a, busyPort)
	if !ok {
		t.Fatal("Writing does not list the third transaction")
	}
	slept := make(chan error, 1)
	go func() { _, err := busy.Exec(ctx, "SELECT pg_sleep(1)"); slept <- err }()
	defer func() {
		if err := <-slept; err != nil {
			t.Error(err)
		}
	}()
	for deadline := time.Now().Add(5 * time.Second); ; {
		if x, _ := find(t, ctx, a, busyPort); !x.Idle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the third transaction's statement never showed running")
		}
		time.Sleep(5 * time.Millisecond)
	}
	held, err := a.Holding(ctx, []seatdb.Writer{w, gone, running}, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 1 || held[0] != w {
		t.Errorf("Holding = %+v; want only the open transaction %+v", held, w)
	}
	if _, err := open.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, ok := find(t, ctx, a, openPort); ok {
		t.Error("Writing lists a transaction that was rolled back")
	}
}

package inventory_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hammer-load/hammer/internal/inventory"
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
func find(t *testing.T, ctx context.Context, a *inventory.Activity, port int) (inventory.Writer, bool) {
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
	return inventory.Writer{}, false
}

// TestHolds: a transaction that has written and waits for its client is
// listed and held; once its COMMIT has run, the Writer found before it no
// longer holds, which is how a look at a stopped replica tells a sale it
// stopped inside from one whose COMMIT was already on its way.
func TestHolds(t *testing.T) {
	ctx := context.Background()
	pgURL := stacktest.Get(t).PGURL
	a, err := inventory.OpenActivity(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	open, openPort := writer(t, ctx, pgURL)
	done, donePort := writer(t, ctx, pgURL)
	w, ok := find(t, ctx, a, openPort)
	if !ok || !w.Idle || w.XID == "" {
		t.Fatalf("Writing: %+v, listed %t; want the open transaction, idle in it, with its id", w, ok)
	}
	gone, ok := find(t, ctx, a, donePort)
	if !ok {
		t.Fatal("Writing does not list the second transaction before its COMMIT")
	}
	if _, err := done.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if held, err := a.Holds(ctx, w, time.Millisecond); err != nil || !held {
		t.Errorf("Holds(open transaction) = %t, %v; want true", held, err)
	}
	if held, err := a.Holds(ctx, gone, time.Millisecond); err != nil || held {
		t.Errorf("Holds(committed transaction) = %t, %v; want false", held, err)
	}
	if _, err := open.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, ok := find(t, ctx, a, openPort); ok {
		t.Error("Writing lists a transaction that was rolled back")
	}
}

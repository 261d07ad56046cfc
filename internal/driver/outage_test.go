package driver_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

// onStack points o at st.
func onStack(o driver.Options, st *stack.Stack) driver.Options {
	o.RedisURL, o.PGURL, o.Managed = st.RedisURL, st.PGURL, nil
	return o
}

// after runs f d after the go signal, without holding up the race.
func after(d time.Duration, f func()) func([]int) {
	return func([]int) { go func() { time.Sleep(d); f() }() }
}

// undetermined is the verdict's reasons on one line, for messages.
func undetermined(v verify.Verdict) string { return strings.Join(v.Undetermined, " | ") }

// TestRedisKilledMidRace: a Redis killed while contenders wait for its lock
// makes the run unknown, noticed within seconds, and names Redis and when
// it went; nobody waits out the minute of --lock-wait and no attempt's
// connection error is taken for the strategy's.
func TestRedisKilledMidRace(t *testing.T) {
	st := stacktest.Private(t)
	o := onStack(options(t, scenarios.LockPlusUpdate), st)
	o.Goroutines, o.Seats = 100, 200 // the race outlives the kill
	o.OnGo = after(50*time.Millisecond, func() { _ = st.KillRedis() })
	start := time.Now()
	res, err := driver.Race(context.Background(), o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the race took %s after Redis died, want the failure noticed within seconds", d)
	}
	v := check(res)
	if v.Status != verify.Unknown {
		t.Fatalf("verdict %s, want unknown", v.Summary())
	}
	why := undetermined(v)
	if !strings.Contains(why, "redis") || !strings.Contains(why, "+") {
		t.Errorf("the reasons do not name Redis and when it failed: %s", why)
	}
	for _, x := range v.Violations {
		if x.Check == verify.CheckUnexpectedError {
			t.Errorf("a dead Redis counted against the strategy: %s", x.Detail)
		}
	}
}

// TestPostgresStoppedMidRace: PostgreSQL shut down mid-race (immediate
// shutdown, as `pg_ctl stop -m immediate` does) and left down: the ledger
// cannot be read back, so nothing that needs it is judged and the run is
// unknown, naming PostgreSQL, when, and what was not judged.
func TestPostgresStoppedMidRace(t *testing.T) {
	st := stacktest.Private(t)
	o := onStack(options(t, scenarios.LockPlusUpdate), st)
	o.Goroutines, o.Attempts, o.Seats = 100, 4, 800 // never sold out: runs well past the kill
	o.ReadBackWait = time.Second
	pid := postmasterPID(t, st.PGURL)
	// Well after the go signal (sent 50 ms ahead of it): a health ping in
	// flight when PostgreSQL goes dates the outage from its own start.
	o.OnGo = after(200*time.Millisecond, func() { _ = syscall.Kill(pid, syscall.SIGQUIT) })
	res, err := driver.Race(context.Background(), o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	v := check(res)
	if v.Status != verify.Unknown || len(v.Violations) > 0 {
		t.Fatalf("verdict %s with %d violations, want unknown with none", v.Summary(), len(v.Violations))
	}
	why := undetermined(v)
	// The outage is dated from the start of the health ping that found it
	// down: a ping the host stalled can have begun before the go signal,
	// so the instant may be negative (seen: -49 ms beside busy loops).
	for _, want := range []string{"postgresql became unreachable at ", "the ledger could not be read back", "oversell", "were not judged"} {
		if !strings.Contains(why, want) {
			t.Errorf("the reasons lack %q: %s", want, why)
		}
	}
	if res.Run.LedgerUnread == "" {
		t.Error("the run does not record that its ledger was not read")
	}
}

// postmasterPID reads the pid of the PostgreSQL server at pgURL from its
// data directory.
func postmasterPID(t *testing.T, pgURL string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var dir string
	if err := conn.QueryRow(context.Background(), "SHOW data_directory").Scan(&dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		t.Fatalf("postmaster.pid: %v", err)
	}
	return pid
}

// TestOversellReadAfterPostgresReturns: PostgreSQL becomes unreachable for
// two seconds, for the workers and the coordinator alike, once the negative
// control has been told of more sales than there are seats. The oversell
// is read back once the server answers again and still makes the run
// invalid: what was proven from data that was read stands.
func TestOversellReadAfterPostgresReturns(t *testing.T) {
	o := options(t, scenarios.None)
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	u, err := pgx.ParseConfig(o.PGURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := toxiproxy.NewProxy(server, "pg", "127.0.0.1:0", u.Host+":"+strconv.Itoa(int(u.Port)))
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Stop)
	o.PGURL = strings.Replace(o.PGURL, u.Host+":"+strconv.Itoa(int(u.Port)), proxy.Listen, 1)
	sold := 0
	o.OnAttempt = func(a history.Attempt) {
		if a.Outcome == history.Sold {
			sold++
		}
		if sold == o.Seats+5 {
			sold++ // cut once
			go func() {
				proxy.Stop()
				time.Sleep(2 * time.Second)
				_ = proxy.Start()
			}()
		}
	}
	res, err := driver.Race(context.Background(), o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	v := check(res)
	if v.Status != verify.Invalid || v.Oversold == 0 {
		t.Fatalf("verdict %s, want invalid with an oversell counted after PostgreSQL came back", v.Summary())
	}
	if res.Run.LedgerUnread != "" {
		t.Errorf("the ledger was not read back: %s", res.Run.LedgerUnread)
	}
}

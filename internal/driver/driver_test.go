package driver_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/realtime/realtimetest"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/internal/worker"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

// workerArg makes this test binary act as a worker process when the driver
// re-executes it, the way the hammer binary does with its hidden subcommand.
const workerArg = "_driver_test_worker"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workerArg {
		os.Exit(worker.Main(context.Background(), os.Stdin, os.Stdout, worker.Kit{Plants: plants(), Contenders: contenders()}))
	}
	os.Exit(stacktest.Main(m))
}

// options returns a small race against the shared stack.
func options(t *testing.T, mode scenarios.Mode) driver.Options {
	t.Helper()
	st := stacktest.Get(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return driver.Options{
		RunID:    "t" + time.Now().Format("150405.000000"),
		Scenario: scenarios.Scenario{Name: string(mode), Mode: mode},
		Procs:    2, Goroutines: 60, Attempts: 1, Seats: 20, PoolSize: 8,
		RedisURL: st.RedisURL, PGURL: st.PGURL,
		LockTTL: 10 * time.Second, LockWait: time.Minute,
		Timeout: time.Minute, ReadyTimeout: 30 * time.Second,
		Seed:   1,
		Worker: driver.Command{Path: exe, Args: []string{workerArg}},
	}
}

func check(res *driver.Result) verify.Verdict {
	return verify.Check(verify.RunInput(res.Run, res.Records))
}

// TestRaceModes races every mode against the real stack: the negative
// control oversells, the three strategies sell exactly the seats. In the
// modes with a lock the lock is handed over on release, and once the
// sector sold out the sold-out hint answers waiters, unless it is off.
func TestRaceModes(t *testing.T) {
	tests := []struct {
		mode         scenarios.Mode
		noHint       bool
		wantStatus   verify.Status
		wantOversell bool
		ordinary     bool // OrdinaryStart
	}{
		{scenarios.None, false, verify.Invalid, true, false},
		{scenarios.LockOnly, false, verify.Valid, false, false},
		{scenarios.UpdateOnly, false, verify.Valid, false, false},
		{scenarios.LockPlusUpdate, false, verify.Valid, false, false},
		{scenarios.LockPlusUpdate, true, verify.Valid, false, true},
	}
	for _, tt := range tests {
		sc := scenarios.Scenario{Mode: tt.mode, NoHint: tt.noHint}.Named()
		t.Run(sc.Name, func(t *testing.T) {
			o := options(t, tt.mode)
			o.Scenario = sc
			o.OrdinaryStart = tt.ordinary
			var seen int
			o.OnAttempt = func(history.Attempt) { seen++ }
			res, err := driver.Race(context.Background(), o)
			if err != nil {
				t.Fatalf("Race: %v", err)
			}
			if got, want := len(res.Attempts), o.Procs*o.Goroutines; got != want || seen != want {
				t.Fatalf("got %d attempts (%d streamed), want %d", got, seen, want)
			}
			v := check(res)
			if v.Status != tt.wantStatus || (v.Oversold > 0) != tt.wantOversell {
				t.Fatalf("verdict %s; want %s with oversell %v", v.Summary(), tt.wantStatus, tt.wantOversell)
			}
			if !tt.wantOversell && v.Sold != o.Seats {
				t.Errorf("sold %d, want exactly %d", v.Sold, o.Seats)
			}
			if len(res.Run.Incomplete) > 0 {
				t.Errorf("incomplete: %v", res.Run.Incomplete)
			}
			checkHandoff(t, res, tt.mode.UsesLock(), tt.mode.UsesLock() && !tt.noHint)
			if tt.mode.UsesLock() {
				lockSentBeforeAnswer(t, res.Attempts)
			}
			// The workers are this test binary: where a burst may be had,
			// each starts in one unless told not to.
			want := o.Procs
			if tt.ordinary || !realtimetest.Supported(t) {
				want = 0
			}
			if res.Run.RealtimeWorkers != want {
				t.Errorf("%d of %d workers started in real time, want %d", res.Run.RealtimeWorkers, o.Procs, want)
			}
			checkShare(t, res.Run.WorkerGoMaxProcs, o.Procs)
			if res.Run.CommitLatency <= 0 || len(res.Warnings) > 0 {
				t.Errorf("commit latency %d ns, warnings %q; want a measured latency and no warning", res.Run.CommitLatency, res.Warnings)
			}
		})
	}
}

// checkHandoff checks that a race of a mode with a lock recorded lock
// handoffs, and that the sold-out hint answered some waiters exactly when
// it was on, each without the lock or the database.
func checkHandoff(t *testing.T, res *driver.Result, lock, hint bool) {
	t.Helper()
	if n := res.Latency.Histogram(res.Run.Name, latency.Handoff).TotalCount(); (n > 0) != lock {
		t.Errorf("%d lock handoffs recorded; want some: %v", n, lock)
	}
	hinted := 0
	for _, a := range res.Attempts {
		if !a.Hinted {
			continue
		}
		hinted++
		if a.Outcome != history.SoldOut || a.LockAcquired != 0 || a.DBStart != 0 {
			t.Errorf("hinted attempt %s: outcome %s, lock at %d, database at %d; want sold out without either",
				a.RequestID, a.Outcome, a.LockAcquired, a.DBStart)
		}
	}
	if (hinted > 0) != hint {
		t.Errorf("%d attempts answered by the sold-out hint; want some: %v", hinted, hint)
	}
}

// TestWorkerDeathIsUnknown kills a worker right after the go signal: the
// verdict must be unknown, never valid.
func TestWorkerDeathIsUnknown(t *testing.T) {
	o := options(t, scenarios.UpdateOnly)
	o.OnGo = func(pids []int) { _ = syscall.Kill(pids[0], syscall.SIGKILL) }
	res, err := driver.Race(context.Background(), o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	if len(res.Run.Incomplete) == 0 {
		t.Fatal("a killed worker left the history complete")
	}
	if v := check(res); v.Status != verify.Unknown {
		t.Fatalf("verdict %s, want unknown", v.Summary())
	}
	unknown := 0
	for _, a := range res.Attempts {
		if a.Outcome == history.Unknown {
			unknown++
		}
	}
	if unknown == 0 {
		t.Error("no attempt of the dead worker was marked unknown")
	}
}

// TestTimeoutIsUnknown stops a race that outlives --timeout.
func TestTimeoutIsUnknown(t *testing.T) {
	o := options(t, scenarios.LockOnly)
	o.Timeout = time.Millisecond
	res, err := driver.Race(context.Background(), o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	if v := check(res); v.Status != verify.Unknown {
		t.Fatalf("verdict %s, want unknown", v.Summary())
	}
}

// TestStopKeepsEndedAttempts stops a race (as Ctrl-C does) 600 ms in,
// before a worker sends its records of its own (once a second): the
// workers are asked for what they hold before they are killed, so every
// attempt that had ended by then keeps its outcome.
func TestStopKeepsEndedAttempts(t *testing.T) {
	o := options(t, scenarios.UpdateOnly)
	o.Rate, o.Duration, o.Goroutines, o.Seats = 200, 10*time.Second, 20, 5000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stopped atomic.Int64
	o.OnGo = func([]int) {
		time.AfterFunc(600*time.Millisecond, func() {
			stopped.Store(time.Now().UnixNano())
			cancel()
		})
	}
	res, err := driver.Race(ctx, o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	if took := time.Duration(time.Now().UnixNano() - stopped.Load()); took > 5*time.Second {
		t.Errorf("the stopped race took %s to end", took)
	}
	if len(res.Run.Incomplete) == 0 {
		t.Fatal("a stopped race left the history complete")
	}
	endedBefore, known := 0, 0
	for _, a := range res.Attempts {
		if a.Outcome == history.Unknown {
			continue
		}
		known++
		if a.Complete < stopped.Load() {
			endedBefore++
		}
	}
	// 200 attempts a second for 600 ms: about 120 had ended.
	if endedBefore < 60 {
		t.Errorf("%d attempts that ended before the stop kept their outcome (%d known of %d), want the ~120 that had ended",
			endedBefore, known, len(res.Attempts))
	}
}

// TestUnreachableWorkerFailsSetup: a worker that cannot reach Redis fails
// the race before anything is attempted.
func TestUnreachableWorkerFailsSetup(t *testing.T) {
	o := options(t, scenarios.UpdateOnly)
	o.RedisURL = "redis://127.0.0.1:1/0"
	start := time.Now()
	if _, err := driver.Race(context.Background(), o); err == nil {
		t.Fatal("Race succeeded with an unreachable Redis")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s to fail", d)
	}
}

// TestFaultThatNeverStruckIsUnknown: a race too small for its scheduled
// fault must not pass as if the fault had struck.
func TestFaultThatNeverStruckIsUnknown(t *testing.T) {
	o := options(t, scenarios.LockOnly)
	o.Scenario = scenarios.Scenario{Name: "lock-only/pause", Mode: scenarios.LockOnly, Fault: scenarios.Pause}
	o.Procs, o.Goroutines, o.Seats = 1, 1, 4
	res, err := driver.Race(context.Background(), o)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	if v := check(res); v.Status != verify.Unknown {
		t.Fatalf("verdict %s, want unknown", v.Summary())
	}
}

// checkShare checks that the procs workers of a race on this host raced
// with their share of its CPUs, or with the GOMAXPROCS the environment
// sets (one the runtime takes). The default GOMAXPROCS may be below NumCPU (a container's CPU
// limit), never above it.
func checkShare(t *testing.T, got, procs int) {
	t.Helper()
	if want, err := strconv.Atoi(os.Getenv("GOMAXPROCS")); err == nil && want > 0 {
		if got != want {
			t.Errorf("workers raced with GOMAXPROCS %d, want the environment's %d", got, want)
		}
		return
	}
	if most := (runtime.NumCPU() + procs - 1) / procs; got < 1 || got > most {
		t.Errorf("workers raced with GOMAXPROCS %d, want 1 to %d (%d CPUs shared by %d workers)", got, most, runtime.NumCPU(), procs)
	}
}

package fault

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/hammer-load/hammer/internal/strategy"
	"github.com/hammer-load/hammer/scenarios"
)

// TestSchedule checks that the strikes are as many as the table says,
// deterministic for a seed, in the first half of the sale and never next
// to each other (slow-release also strikes the next holder).
func TestSchedule(t *testing.T) {
	for _, f := range append(scenarios.Faults(), scenarios.NoFault) {
		for _, seed := range []uint64{1, 42, 1 << 40} {
			got := Schedule(f, seed, "run", 100, 1000)
			if again := Schedule(f, seed, "run", 100, 1000); !slices.Equal(got, again) {
				t.Errorf("%s seed %d: %v then %v; want the same for one seed", f, seed, got, again)
			}
			if len(got) != f.Strikes() {
				t.Errorf("%s seed %d: %d strikes %v, want %d", f, seed, len(got), got, f.Strikes())
			}
			for i, n := range got {
				if n < 2 || n > 50 {
					t.Errorf("%s seed %d: holder %d, want 2..50 (first half of 100 seats)", f, seed, n)
				}
				if i > 0 && n-got[i-1] < 2 {
					t.Errorf("%s seed %d: holders %v next to each other", f, seed, got)
				}
			}
		}
	}
}

// TestCountsAt pins where each fault numbers holders.
func TestCountsAt(t *testing.T) {
	points := []strategy.Point{strategy.AcquireGap, strategy.Holding, strategy.MidWrite, strategy.AfterWrite}
	want := map[scenarios.Fault][]strategy.Point{
		scenarios.Crash:       {strategy.AcquireGap, strategy.MidWrite},
		scenarios.SlowRelease: {strategy.Holding, strategy.MidWrite}, // with a lock
	}
	for _, f := range scenarios.Faults() {
		inj, err := New(f)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[f]
		if !ok {
			w = []strategy.Point{strategy.MidWrite}
		}
		for _, p := range points {
			if got := inj.CountsAt(p, true); got != slices.Contains(w, p) {
				t.Errorf("%s: CountsAt(%s, lock) = %v, want %v", f, p, got, !got)
			}
		}
		// Without a lock nobody holds; the faults that take away what Redis
		// holds race only modes with a stock counter then, and number
		// contenders before the counter admits them.
		wantHolding := f.TakesRedisState()
		if got := inj.CountsAt(strategy.Holding, false); got != wantHolding {
			t.Errorf("%s: CountsAt(holding, no lock) = %v, want %v", f, got, wantHolding)
		}
		if wantHolding && inj.CountsAt(strategy.MidWrite, false) {
			t.Errorf("%s: CountsAt(mid-write, no lock) = true, want false: numbered before the admission only", f)
		}
	}
}

// TestWindowMatchesTable checks that the faults whose row says Proxied
// have a window, and the others none: the engine runs a window only for
// the former.
func TestWindowMatchesTable(t *testing.T) {
	ctx := context.Background()
	for _, f := range scenarios.Faults() {
		inj, err := New(f)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Proxied() {
			if _, err := inj.Window(ctx, time.Millisecond); !errors.Is(err, errNoWindow) {
				t.Errorf("%s: Window = %v, want errNoWindow for a fault the table does not proxy", f, err)
			}
			continue
		}
		// The proxies listen at once; nothing dials the servers behind them.
		if _, err := inj.SetUp(ctx, Race{RedisURL: "redis://127.0.0.1:1", PGURL: "postgres://u@127.0.0.1:2/db"}); err != nil {
			t.Fatalf("%s: SetUp: %v", f, err)
		}
		detail, err := inj.Window(ctx, time.Millisecond)
		inj.TearDown(ctx)
		if err != nil || detail == "" {
			t.Errorf("%s: Window = %q, %v; want what it did, and no error", f, detail, err)
		}
	}
}

// procsLog is Procs that records what it is asked; SIGSTOP fails.
type procsLog struct {
	signals []syscall.Signal
	resumed []Target
}

func (p *procsLog) Name(proc int) string { return "worker" }
func (p *procsLog) Crashed(int)          {}
func (p *procsLog) Resume(t Target)      { p.resumed = append(p.resumed, t) }
func (p *procsLog) Signal(_ int, sig syscall.Signal) (int, error) {
	p.signals = append(p.signals, sig)
	if sig == syscall.SIGSTOP {
		return 0, errors.New("the agent did not answer")
	}
	return 42, nil
}

// TestPauseStopThatFailedLetsGo: a SIGSTOP that may not have been sent
// (an agent that did not answer) fails the strike, and the worker is sent
// SIGCONT and its contender resumed, so that nothing stays stopped.
func TestPauseStopThatFailedLetsGo(t *testing.T) {
	p := &procsLog{}
	c := &Coordinator{Procs: p, PauseFor: time.Millisecond}
	target := Target{Proc: 1, Key: "k"}
	if _, err := (pauseStop{}).Strike(context.Background(), c, &target); err == nil {
		t.Fatal("Strike = nil, want the SIGSTOP's error")
	}
	if !slices.Equal(p.signals, []syscall.Signal{syscall.SIGSTOP, syscall.SIGCONT}) || len(p.resumed) != 1 {
		t.Errorf("signals %v, resumed %v: want SIGSTOP then SIGCONT, and the contender resumed", p.signals, p.resumed)
	}
}

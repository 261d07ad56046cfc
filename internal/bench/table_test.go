package bench

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenReport has two rounds: one as today's hammer measures (no
// peak_in_flight, no handoff phase, the flash sale refused), one with
// every field there and a failed step.
func goldenReport() Report {
	today := Round{PgbenchTPS: Known(1000), HammerTPS: Known(980), MinimalWall: Known(500), UpdateOnlyWall: Known(600),
		LockPlusUpdateWall: Known(1200), RedsyncWall: Known(4800), RedislockWall: Known(2400),
		RedsyncGaveUp: Known(12), RedislockGaveUp: Known(0),
		Skew: [skewCount]Value{Known(0.4), Known(2.5), Known(30)}, PeakInFlight: [skewCount]Value{NA(), NA(), NA()},
		FlashExit: Known(2), FlashRSS: NA(), FlashSkew: NA(), FlashPeak: NA(), GoStartSkew: Known(60), HandoffP50: NA(),
		SetRPS: Known(100000), ReleaseRPS: Known(90000),
		LockOpsPerSec: Known(25000), Notes: []string{"100k contenders: hammer exit 2: too many connections"}}
	later := today
	later.HammerTPS, later.PeakInFlight = Known(1010), [skewCount]Value{Known(25), Known(100), Known(1000)}
	later.Realtime = [skewCount]Value{Known(1), Known(3), Known(4)}
	later.FlashExit, later.FlashVerdict, later.FlashRSS, later.FlashProcs = Known(0), "valid", Known(970<<20), 9
	later.FlashSkew, later.FlashPeak, later.GoStartSkew = Known(80), Known(100000), Known(55)
	later.HandoffP50, later.RedsyncWall, later.OneProcWall, later.MinimalProcsWall = Known(0.2), NA(), Known(520), Known(620)
	later.MinimalSkew, later.MinimalProcsSkew, later.MinimalSmallSkew = Known(20), Known(40), Known(2)
	later.Notes, later.Errors = nil, []string{"redsync race failed: wrong race"}
	return Report{
		Machine: Machine{Cores: 2, CPU: "Test CPU", Kernel: "6.1", Go: "go1.26", Hammer: "bin/hammer (commit abc)",
			Redis: "7.0.15", PostgreSQL: "15.18, fsync off", Pgbench: "pgbench 15.18", RedisBenchmark: "redis-benchmark 7.0.15"},
		Config: Config{Rounds: 2, Conns: 16, TxPerConn: 400, FlashTimeout: 90 * time.Second},
		Rounds: []Round{today, later},
	}
}

func TestRenderGolden(t *testing.T) {
	var got bytes.Buffer
	Render(&got, goldenReport())
	path := filepath.Join("testdata", "render.golden")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/bench -update)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("Render differs from %s (go test ./internal/bench -update rewrites it):\n%s", path, got.String())
	}
}

// TestGoStart: the flash sale's anchor starts the goroutines it is told
// to, reports their start skew, and refuses a count that is not one.
func TestGoStart(t *testing.T) {
	var out, errs bytes.Buffer
	if code := GoStart([]string{"1000"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var rep goStartReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Goroutines != 1000 || rep.SkewNs <= 0 {
		t.Errorf("report %q (%v), want 1000 goroutines and a positive skew", out.String(), err)
	}
	for _, args := range [][]string{nil, {"x"}, {"0"}, {"1", "2"}} {
		if code := GoStart(args, &out, &errs); code != 2 {
			t.Errorf("GoStart(%q) = %d, want 2", args, code)
		}
	}
}

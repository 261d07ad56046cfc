package bench

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenReport has two rounds: one as today's hammer measures (no
// peak_in_flight, no handoff phase, the 20k run refused), one with
// every field there and a failed step.
func goldenReport() Report {
	today := Round{PgbenchTPS: Known(1000), HammerTPS: Known(980), MinimalWall: Known(500), UpdateOnlyWall: Known(600),
		LockPlusUpdateWall: Known(1200), RedsyncWall: Known(4800), RedislockWall: Known(2400),
		RedsyncGaveUp: Known(12), RedislockGaveUp: Known(0),
		Skew: [skewCount]Value{Known(0.4), Known(2.5), Known(30)}, PeakInFlight: [skewCount]Value{NA(), NA(), NA()},
		BigExit: Known(2), BigRSS: NA(), HandoffP50: NA(), SetRPS: Known(100000), ReleaseRPS: Known(90000),
		LockOpsPerSec: Known(25000), Notes: []string{"20k contenders: hammer exit 2: too many connections"}}
	later := today
	later.HammerTPS, later.PeakInFlight = Known(1010), [skewCount]Value{Known(25), Known(100), Known(1000)}
	later.Realtime = [skewCount]Value{Known(1), Known(3), Known(4)}
	later.BigExit, later.BigVerdict, later.BigRSS, later.BigProcs = Known(0), "valid", Known(600<<20), 9
	later.HandoffP50, later.RedsyncWall, later.OneProcWall, later.MinimalProcsWall = Known(0.2), NA(), Known(520), Known(620)
	later.MinimalSkew, later.MinimalProcsSkew, later.MinimalSmallSkew = Known(20), Known(40), Known(2)
	later.Notes, later.Errors = nil, []string{"redsync race failed: wrong race"}
	return Report{
		Machine: Machine{Cores: 2, CPU: "Test CPU", Kernel: "6.1", Go: "go1.26", Hammer: "bin/hammer (commit abc)",
			Redis: "7.0.15", PostgreSQL: "15.18, fsync off", Pgbench: "pgbench 15.18", RedisBenchmark: "redis-benchmark 7.0.15"},
		Config: Config{Rounds: 2, Conns: 16, TxPerConn: 400, BigTimeout: 90 * time.Second},
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

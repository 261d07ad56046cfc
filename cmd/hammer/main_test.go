package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/internal/stack/stacktest"
	"github.com/hammer-load/hammer/report"
	"github.com/hammer-load/hammer/scenarios"
)

// TestMain lets this test binary stand in for the hammer binary: the races
// below re-execute it with the hidden worker subcommand.
func TestMain(m *testing.M) {
	if spec := os.Getenv(envTestProxy); spec != "" {
		proxyMain(spec) // the namespace test's delaying proxy
	}
	if os.Getenv(envTestMain) == "1" {
		main() // a test runs the binary itself, signals and all
	}
	if len(os.Args) > 1 && os.Args[1] == workerCommand {
		os.Exit(run(context.Background(), os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
	}
	os.Exit(stacktest.Main(m))
}

// envTestMain, set to 1, makes this test binary run hammer's main: tests
// that need a real process (signals, scripts) start it that way.
const envTestMain = "HAMMER_TEST_MAIN"

// hammer runs the CLI in-process and returns its exit code, stdout and stderr.
func hammer(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// stackArgs points hammer at the shared test stack.
func stackArgs(t *testing.T) []string {
	t.Helper()
	st := stacktest.Get(t)
	return []string{"--stack", "external", "--redis-url", st.RedisURL, "--pg-url", st.PGURL}
}

func readSummary(t *testing.T, dir string) report.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, folder.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRunVerdicts is the acceptance check: update-only sells
// exactly 100 and exits 0, none oversells and exits 1, and verify agrees
// offline.
func TestRunVerdicts(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStatus string
		oversold   bool
	}{
		{"update-only sells exactly the seats", []string{"--mode", "update-only", "--goroutines", "100"}, exitOK, "valid", false},
		{"none oversells", []string{"--mode", "none", "--goroutines", "250"}, exitFail, "invalid", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--procs", "2", "--seats", "100", "--quiet", "--out", dir}, tt.args...)
			code, stdout, stderr := hammer(t, append(args, stackArgs(t)...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			s := readSummary(t, dir)
			r := s.Runs[0]
			if string(r.Verdict) != tt.wantStatus || (r.Sold > 100) != tt.oversold || (!tt.oversold && r.Sold != 100) {
				t.Fatalf("summary: verdict %s, sold %d; want %s, oversold %v", r.Verdict, r.Sold, tt.wantStatus, tt.oversold)
			}
			if s.Schema == "" || r.StartSkewMs <= 0 || r.PeakInFlight < 1 || r.PeakInFlight > r.Contenders {
				t.Errorf("summary lacks schema, start skew or a peak in flight within 1..%d: %+v", r.Contenders, s)
			}
			if r.CommitLatencyMs == nil || *r.CommitLatencyMs <= 0 || r.FloorMs == nil || r.Efficiency == nil {
				t.Errorf("summary lacks the physical floor of a run that sold out: commit %v, floor %v, efficiency %v",
					r.CommitLatencyMs, r.FloorMs, r.Efficiency)
			}
			for _, f := range []string{"history.jsonl", "ledger.jsonl", "manifest.json", "sectors.jsonl"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("results folder: %v", err)
				}
			}
			if code, _, stderr := hammer(t, "verify", dir); code != tt.wantCode {
				t.Errorf("verify exit %d, want %d (%s)", code, tt.wantCode, stderr)
			}
		})
	}
}

// TestLoad runs the default matrix small: every expectation must hold.
func TestLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := append([]string{"load", "--procs", "2", "--goroutines", "60", "--seats", "20", "--quiet", "--out", dir}, stackArgs(t)...)
	code, stdout, stderr := hammer(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	s := readSummary(t, dir)
	if want := len(scenarios.Load()); len(s.Runs) != want {
		t.Fatalf("%d runs, want %d", len(s.Runs), want)
	}
	for _, r := range s.Runs {
		if !r.ExpectOK {
			t.Errorf("%s: %s", r.Name, r.ExpectReason)
		}
	}
	for _, col := range []string{"MODE", "SOLD/SEATS", "OVERSOLD", "P99", "SELLOUT", "EFF", "SKEW", "PEAK", "EXPECTED", "VERDICT"} {
		if !strings.Contains(stdout, col) {
			t.Errorf("verdict table lacks column %s:\n%s", col, stdout)
		}
	}
}

// TestUnreachable: servers that do not answer give exit 3 with one line
// within 10 seconds, and no results folder.
func TestUnreachable(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	start := time.Now()
	code, _, stderr := hammer(t, "run", "--mode", "update-only", "--quiet", "--out", out,
		"--stack", "external", "--redis-url", "redis://127.0.0.1:1/0", "--pg-url", "postgres://hammer@127.0.0.1:1/hammer")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s, want under 10s", d)
	}
	if code != exitInfra {
		t.Errorf("exit %d, want %d", code, exitInfra)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 {
		t.Errorf("stderr = %q, want one line", stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a results folder was created")
	}
}

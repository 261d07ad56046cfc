package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/scenarios"
	"github.com/hammer-load/hammer/verify"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestVerifyGolden re-verifies saved results folders offline and compares
// the verdict table with golden files.
func TestVerifyGolden(t *testing.T) {
	tests := []struct {
		name     string
		dir      string
		wantCode int
	}{
		{"load matrix holds every expectation", "load-small", exitOK},
		{"negative control without expectation is invalid", "none-only", exitFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := hammer(t, "verify", filepath.Join("testdata", tt.dir))
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			golden := filepath.Join("testdata", tt.dir+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("stdout differs from %s (rerun with -update to accept):\ngot:\n%s\nwant:\n%s", golden, stdout, want)
			}
		})
	}
}

// TestVerifyTampered re-verifies copies of testdata/load-small whose record
// files were cut or changed after the run: the verdict cannot be determined
// (exit 3), and the verdict table says why.
func TestVerifyTampered(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		change func(string) string
		want   []string
		absent []string // what stdout must not say
	}{
		{
			name: "history lost its last lines at a line boundary",
			file: "history.jsonl",
			change: func(s string) string {
				lines := strings.SplitAfter(s, "\n")
				return strings.Join(lines[:len(lines)-1-5], "")
			},
			want: []string{
				// The negative control's oversell stands on the intact ledger.
				"unsafe    invalid (as expected)",
				"none (invalid):\n  not judged: history.jsonl holds 27 records but manifest.json recorded 32",
				"undetermined: history.jsonl holds 27 records but manifest.json recorded 32",
				"undetermined: history.jsonl holds 1 attempt of lock-plus-update for worker 0, the race made 4",
				"undetermined: history.jsonl holds 2 attempts of lock-plus-update for worker 1, the race made 4",
			},
		},
		{
			// The oversell stands on the intact ledger, but its story is
			// told from the attempts, which the edit could make say anything.
			name: "a history record edited",
			file: "history.jsonl",
			change: func(s string) string {
				return strings.Replace(s, `"complete_ns":1795937026389331436`, `"complete_ns":1795937026399331436`, 1)
			},
			want: []string{
				"unsafe    invalid (as expected)",
				"none (invalid):\n  not judged: history.jsonl does not match the SHA-256 manifest.json recorded for it (changed after the run)",
			},
			absent: []string{"was sold to both"},
		},
		{
			name: "ledger row appended",
			file: "ledger.jsonl",
			change: func(s string) string {
				return s + `{"run":"update-only","sector":1,"seat":4,"request_id":"ghost","worker":"w","started_ns":0,"sold_ns":0}` + "\n"
			},
			want: []string{"undetermined: ledger.jsonl holds 18 records but manifest.json recorded 17"},
		},
		{
			name:   "a line of the ledger garbled",
			file:   "ledger.jsonl",
			change: func(s string) string { return strings.Replace(s, `{"run"`, `{"run"::`, 2) },
			want:   []string{"undetermined: ledger.jsonl does not parse (record 1: invalid character"},
		},
		{
			name:   "history deleted",
			file:   "history.jsonl",
			change: nil,
			want:   []string{"undetermined: history.jsonl is missing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "load-small")
			copyDir(t, filepath.Join("testdata", "load-small"), dir)
			path := filepath.Join(dir, tt.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.change == nil {
				err = os.Remove(path)
			} else {
				err = os.WriteFile(path, []byte(tt.change(string(b))), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := hammer(t, "verify", dir)
			if code != exitInfra {
				t.Errorf("exit %d, want %d (stderr %q)", code, exitInfra, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(stdout, a) {
					t.Errorf("stdout says %q:\n%s", a, stdout)
				}
			}
		})
	}
}

func TestVerifyExitCode(t *testing.T) {
	validFull := verify.Verdict{Status: verify.Valid, Seats: 100, Sold: 100}
	oversold := verify.Verdict{Status: verify.Invalid, Seats: 100, Sold: 137, Oversold: 37,
		Violations: []verify.Violation{{Check: verify.CheckOversell, Detail: "sold 137 of 100 seats: 37 more than exist"}}}
	doubleSold := verify.Verdict{Status: verify.Invalid, Seats: 100, Sold: 100,
		Violations: []verify.Violation{{Check: verify.CheckDoubleSold, Detail: "seat 5 sold 2 times (requests a, b)"}}}
	unknown := verify.Verdict{Status: verify.Unknown, Seats: 100, Sold: 80,
		Undetermined: []string{"history incomplete: worker 2 died"}}
	run := func(v verify.Verdict, e scenarios.Expectation) verify.RunVerdict {
		return verify.RunVerdict{Run: history.Run{Name: "r", Expected: e}, Verdict: v}
	}
	tests := []struct {
		name string
		rs   []verify.RunVerdict
		want int
	}{
		{name: "no runs: nothing was verified", rs: nil, want: exitInfra},
		{name: "valid without expectation", rs: []verify.RunVerdict{run(validFull, "")}, want: exitOK},
		{name: "safe and unsafe both hold", rs: []verify.RunVerdict{run(validFull, scenarios.Safe), run(oversold, scenarios.Unsafe)}, want: exitOK},
		{name: "invalid without expectation", rs: []verify.RunVerdict{run(oversold, "")}, want: exitFail},
		{name: "invalid but expected safe", rs: []verify.RunVerdict{run(oversold, scenarios.Safe)}, want: exitFail},
		{name: "unsafe shown by a double sale", rs: []verify.RunVerdict{run(doubleSold, scenarios.Unsafe)}, want: exitOK},
		{name: "detection lost: nothing broke, nothing shown", rs: []verify.RunVerdict{run(validFull, scenarios.Unsafe)}, want: exitInfra},
		{name: "a strategy caught beats detection lost", rs: []verify.RunVerdict{run(validFull, scenarios.Unsafe), run(oversold, scenarios.Safe)}, want: exitFail},
		{name: "unknown", rs: []verify.RunVerdict{run(validFull, scenarios.Safe), run(unknown, scenarios.Safe)}, want: exitInfra},
		{name: "unknown unsafe", rs: []verify.RunVerdict{run(unknown, scenarios.Unsafe)}, want: exitInfra},
		{name: "failure beats unknown", rs: []verify.RunVerdict{run(unknown, scenarios.Safe), run(oversold, scenarios.Safe)}, want: exitFail},
		{name: "failure after unknown still fails", rs: []verify.RunVerdict{run(unknown, ""), run(oversold, scenarios.Safe)}, want: exitFail},
		{name: "stale ExpectOK is not trusted", rs: []verify.RunVerdict{{Run: history.Run{Expected: scenarios.Safe}, Verdict: oversold, ExpectOK: true}}, want: exitFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verdictsExitCode(tt.rs); got != tt.want {
				t.Errorf("verdictsExitCode() = %d, want %d", got, tt.want)
			}
		})
	}
}

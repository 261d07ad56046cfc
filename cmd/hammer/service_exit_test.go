package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hammer-load/hammer/internal/stack/stacktest"
)

// TestServiceExitByCommand pins what the exit code of a service's race
// means, as docs/target.md#exit-codes says: run judges one race and
// ignores the variant's expect (an unsafe variant caught exits 1, as
// `run --mode none` does), while load judges each variant against its
// expect (the same variant caught, expected unsafe, exits 0; expected
// safe, 1).
func TestServiceExitByCommand(t *testing.T) {
	stacktest.Get(t) // first: skips under -short
	build := exec.Command("go", "build", "-o", "bin/ticketd", ".")
	build.Dir = "../../examples/ticketd"
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example: %v: %s", err, out)
	}
	// Only the naive variant, expected as given.
	naiveOnly := func(expect string) func(string) string {
		return func(s string) string {
			var keep []string
			for _, line := range strings.Split(s, "\n") {
				if strings.Contains(line, "{env: {STRATEGY:") && !strings.Contains(line, "naive:") {
					continue
				}
				keep = append(keep, strings.Replace(line, "naive}, expect: unsafe}", "naive}, expect: "+expect+"}", 1))
			}
			return strings.Join(keep, "\n")
		}
	}
	tests := []struct {
		name, command, expect string
		wantCode              int
		wantVerdict           string
		wantExpected          string // the EXPECTED summary.json records
	}{
		{"run ignores expect unsafe", "run", "unsafe", exitFail, "invalid", ""},
		{"run ignores expect safe", "run", "safe", exitFail, "invalid", ""},
		{"load: unsafe caught as expected", "load", "unsafe", exitOK, "invalid", "unsafe"},
		{"load: safe variant oversold", "load", "safe", exitFail, "invalid", "safe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := ticketdFile(t, naiveOnly(tt.expect))
			dir := filepath.Join(t.TempDir(), "out")
			args := []string{tt.command, "--target", path}
			if tt.command == "run" {
				args = append(args, "--variant", "naive")
			}
			code, stdout, stderr := hammer(t, append(args, serviceArgs(t, dir)...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			s := readSummary(t, dir)
			if len(s.Runs) != 1 {
				t.Fatalf("%d runs, want naive alone", len(s.Runs))
			}
			r := s.Runs[0]
			if string(r.Verdict) != tt.wantVerdict || string(r.Expected) != tt.wantExpected || s.ExitCode != tt.wantCode {
				t.Errorf("verdict %s, expected %q, summary exit %d; want %s, %q, %d",
					r.Verdict, r.Expected, s.ExitCode, tt.wantVerdict, tt.wantExpected, tt.wantCode)
			}
		})
	}
}

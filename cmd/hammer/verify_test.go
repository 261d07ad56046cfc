package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
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

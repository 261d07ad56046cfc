package scenarios

import (
	"testing"

	"github.com/hammer-load/hammer/history"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Mode
		wantErr bool
	}{
		{"none", "none", None, false},
		{"lock-plus-update", "lock-plus-update", LockPlusUpdate, false},
		{"unknown", "lock", "", true},
		{"case matters", "NONE", "", true},
		{"empty", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMode(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestLoadMatrix(t *testing.T) {
	seen := map[Mode]history.Expectation{}
	for _, s := range Load() {
		seen[s.Mode] = s.Expected
	}
	for _, m := range Modes() {
		want := history.Safe
		if m == None {
			want = history.Unsafe
		}
		if got, ok := seen[m]; !ok || got != want {
			t.Errorf("mode %s: expectation %q, want %q", m, got, want)
		}
	}
}

package verify

import (
	"strings"
	"testing"
	"time"
)

// TestClockUncertainty: two lock-only holders on different agents whose
// records overlap by 2 ms. With clocks known to within 0.1 ms each, that
// is a proven overlap; with clocks known only to within 3 ms each, it may
// never have happened: no violation, a note instead. On one agent (one
// clock) the overlap is proven whatever the uncertainty.
func TestClockUncertainty(t *testing.T) {
	overlap := func(procB int, unc time.Duration) Input {
		return new(race).locked("p0-g1-a0", 0, 10, 12, 1).locked("p1-g2-a0", procB, 10, 20, 2).
			input(2, 2, 0).with(lockOnly).with(func(in *Input) {
			in.ClockUncertainty = []time.Duration{unc, unc}
		})
	}
	tests := []struct {
		name   string
		in     Input
		want   Status
		noting string
	}{
		{"tight clocks prove it", overlap(1, 100*time.Microsecond), Invalid, ""},
		{"loose clocks cannot", overlap(1, 3*time.Millisecond), Valid, "1 pair of lock holders on different agents overlapped by less than their clocks could be off (up to 6.05ms)"},
		{"one clock proves it", overlap(0, 3*time.Millisecond), Invalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Check(tt.in)
			if v.Status != tt.want {
				t.Fatalf("status %s (%s), want %s", v.Status, v.Summary(), tt.want)
			}
			if notes := strings.Join(v.Notes, "; "); !strings.Contains(notes, tt.noting) {
				t.Errorf("notes %q, want %q", notes, tt.noting)
			}
		})
	}
}

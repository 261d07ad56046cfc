package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/hammer-load/hammer/scenarios"
)

// TestClockUncertainty: lock holders on different agents whose records
// overlap by 2 ms. With clocks known to within 0.1 ms each, the overlap is
// proven; with clocks known only to within 3 ms each, it may never have
// happened: in lock-only, mutual exclusion cannot be told (unknown, never
// valid, never invalid for it), and in lock-plus-update it is a note. On
// one agent (one clock) it is proven whatever the uncertainty. A host
// stall stays the world's even when its overlap is that short.
func TestClockUncertainty(t *testing.T) {
	overlap := func(procB int, unc time.Duration, mode scenarios.Mode) Input {
		return new(race).locked("p0-g1-a0", 0, 10, 12, 1).locked("p1-g2-a0", procB, 10, 20, 2).
			input(2, 2, 0).with(lockOnly).with(func(in *Input) {
			in.Mode = mode
			in.ClockUncertainty = []time.Duration{unc, unc}
		})
	}
	stall := new(race).locked("p0-g1-a0", 0, 10, 163, 1).locked("p1-g2-a0", 1, 160, 165, 1).
		input(1, 1, 0).with(lockOnly).with(func(in *Input) { in.ClockUncertainty = []time.Duration{3 * time.Millisecond, 3 * time.Millisecond} })
	// A 2 ms overlap the clocks cannot tell, and a 100 ms one they can.
	proven := new(race).locked("p0-g1-a0", 0, 10, 12, 1).locked("p1-g2-a0", 1, 10, 20, 2).
		locked("p0-g3-a0", 0, 100, 300, 3).locked("p1-g4-a0", 1, 150, 160, 4).
		input(4, 4, 0).with(lockOnly).with(func(in *Input) { in.ClockUncertainty = []time.Duration{3 * time.Millisecond, 3 * time.Millisecond} })
	tests := []struct {
		name string
		in   Input
		want Status
		says string
	}{
		{"tight clocks prove it", overlap(1, 100*time.Microsecond, scenarios.LockOnly), Invalid, "mutual-exclusion"},
		{"loose clocks cannot tell", overlap(1, 3*time.Millisecond, scenarios.LockOnly), Unknown,
			"mutual exclusion cannot be told: 1 pair of lock holders on different agents overlapped by less than their clocks could be off (up to 6.05ms)"},
		{"one clock proves it", overlap(0, 3*time.Millisecond, scenarios.LockOnly), Invalid, "mutual-exclusion"},
		{"a note behind the backstop", overlap(1, 3*time.Millisecond, scenarios.LockPlusUpdate), Valid,
			"1 pair of lock holders on different agents overlapped by less than their clocks could be off"},
		{"a stall stays the world's", stall, Unknown, "host stall"},
		{"a proven break needs no more", proven, Invalid, "mutual-exclusion (1 overlapping pair of holders)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Check(tt.in)
			all := v.Summary() + " " + strings.Join(v.Notes, "; ") + " " + strings.Join(v.Undetermined, "; ")
			if v.Status != tt.want || !strings.Contains(all, tt.says) {
				t.Fatalf("%s, want %s saying %q", all, tt.want, tt.says)
			}
		})
	}
}

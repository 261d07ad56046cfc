package worker

import (
	"runtime"
	"testing"
)

// A worker sharing its host takes ceil(CPUs ÷ workers) of GOMAXPROCS; a
// worker alone, or one whose environment sets GOMAXPROCS, keeps its own.
func TestShareCPUs(t *testing.T) {
	t.Cleanup(runtime.SetDefaultGOMAXPROCS)
	tests := []struct {
		name        string
		env         string
		cpus, share int
		want        int
	}{
		{"four workers on two CPUs", "", 2, 4, 1},
		{"three workers on eight CPUs", "", 8, 3, 3},
		{"two workers on two CPUs", "", 2, 2, 1},
		{"alone", "", 8, 1, 8},
		{"set in the environment", "8", 8, 4, 8},
		{"set to what the runtime ignores", "0", 8, 4, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", tt.env)
			runtime.GOMAXPROCS(tt.cpus)
			shareCPUs(tt.share)
			if got := runtime.GOMAXPROCS(0); got != tt.want {
				t.Errorf("GOMAXPROCS %d, want %d", got, tt.want)
			}
		})
	}
}

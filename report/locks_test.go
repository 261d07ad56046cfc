package report

import (
	"strings"
	"testing"

	"github.com/hammer-load/hammer/scenarios"
)

// TestMarkdownNamesLockLibraries: report.md says which lock library ran,
// and says nothing of locks when every run took hammer's own.
func TestMarkdownNamesLockLibraries(t *testing.T) {
	row := "| lock library | redsync (github.com/go-redsync/redsync/v4): the runs named `+redsync` |"
	for _, tt := range []struct {
		name string
		lock scenarios.Lock
		want bool
	}{
		{"hammer's own", scenarios.HammerLock, false},
		{"redsync", scenarios.Redsync, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := sample(true)
			s.Runs[1].Lock = tt.lock
			var b strings.Builder
			if err := writeMarkdown(&b, s, nil, nil); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), row); got != tt.want {
				t.Errorf("report.md has the row %q: %v, want %v", row, got, tt.want)
			}
			if !tt.want && strings.Contains(b.String(), "lock library") {
				t.Error("report.md names a lock library though every run took hammer's lock")
			}
		})
	}
}

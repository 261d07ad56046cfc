package latency

import (
	"slices"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

func TestHandoffs(t *testing.T) {
	ms := func(n float64) int64 { return int64(n * float64(time.Millisecond)) }
	holder := func(invoke, acquired, releasing float64) history.Attempt {
		return history.Attempt{Run: "r", Outcome: history.Sold, Invoke: ms(invoke), LockAcquired: ms(acquired), LockReleasing: ms(releasing)}
	}
	lost := holder(0, 20, 25)
	lost.LockLost = true
	tests := []struct {
		name string
		in   []history.Attempt
		want []time.Duration
	}{
		{"a queue passes the lock on", []history.Attempt{holder(0, 1, 2), holder(0, 2.5, 3), holder(0, 3.25, 4)},
			[]time.Duration{500 * time.Microsecond, 250 * time.Microsecond}},
		{"order of records does not matter", []history.Attempt{holder(0, 3.25, 4), holder(0, 1, 2), holder(0, 2.5, 3)},
			[]time.Duration{500 * time.Microsecond, 250 * time.Microsecond}},
		{"nobody waited: idle, not a handoff", []history.Attempt{holder(0, 1, 2), holder(10, 10, 11)}, nil},
		{"taken before the release was sent: an overlap, not a handoff", []history.Attempt{holder(0, 1, 5), holder(0, 3, 6)}, nil},
		{"passed on by expiry", []history.Attempt{lost, holder(0, 30, 31)}, nil},
		{"never released (crashed)", []history.Attempt{holder(0, 1, 0), holder(0, 30, 31)}, nil},
		{"attempts without the lock are no holders", []history.Attempt{holder(0, 1, 2), {Run: "r", Invoke: 1, Outcome: history.SoldOut, Hinted: true}, holder(0, 3, 4)},
			[]time.Duration{time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Handoffs(tt.in); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	s := NewSet()
	s.ObserveHandoffs(tests[0].in)
	if h := s.Histogram("r", Handoff); h.TotalCount() != 2 || h.Max() < 499 || h.Max() > 501 {
		t.Errorf("handoff histogram: %d values, max %dµs; want 2, max 500µs", h.TotalCount(), h.Max())
	}
}

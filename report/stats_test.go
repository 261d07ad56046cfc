package report

import (
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

func TestCompute(t *testing.T) {
	ms := int64(time.Millisecond)
	run := history.Run{Procs: 2, Goroutines: 2, Seats: 2, GoAt: 1000 * ms}
	attempt := func(p, g int, invoke, dbEnd, complete int64, o history.Outcome) history.Attempt {
		return history.Attempt{Proc: p, Goroutine: g, Invoke: invoke * ms, DBEnd: dbEnd * ms, Complete: complete * ms, Outcome: o}
	}
	tests := []struct {
		name        string
		attempts    []history.Attempt
		wantSkew    time.Duration
		wantP50     time.Duration
		wantP99     time.Duration
		wantSellout time.Duration
		wantSoldOut bool
	}{
		{
			name: "sold out by the second sale",
			attempts: []history.Attempt{
				attempt(0, 0, 1001, 1010, 1011, history.Sold),
				attempt(0, 1, 1002, 1030, 1031, history.Sold),
				attempt(1, 0, 1004, 1020, 1021, history.Sold),
				attempt(1, 1, 1003, 1040, 1041, history.SoldOut),
			},
			wantSkew: 3 * time.Millisecond, wantP50: 17 * time.Millisecond, wantP99: 38 * time.Millisecond,
			wantSellout: 20 * time.Millisecond, wantSoldOut: true,
		},
		{
			name: "never sold out; unknown attempts have no latency",
			attempts: []history.Attempt{
				attempt(0, 0, 1001, 1010, 1011, history.Sold),
				{Proc: 1, Goroutine: 0, Outcome: history.Unknown},
			},
			wantP50: 10 * time.Millisecond, wantP99: 10 * time.Millisecond,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Compute(run, tt.attempts)
			if s.StartSkew != tt.wantSkew || s.P50 != tt.wantP50 || s.P99 != tt.wantP99 ||
				s.Sellout != tt.wantSellout || s.SoldOut != tt.wantSoldOut {
				t.Errorf("got skew %s p50 %s p99 %s sellout %s/%v; want %s %s %s %s/%v",
					s.StartSkew, s.P50, s.P99, s.Sellout, s.SoldOut,
					tt.wantSkew, tt.wantP50, tt.wantP99, tt.wantSellout, tt.wantSoldOut)
			}
			if s.Contenders != 4 {
				t.Errorf("contenders %d, want 4", s.Contenders)
			}
		})
	}
}

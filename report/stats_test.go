package report

import (
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

func TestMeasure(t *testing.T) {
	ms := int64(time.Millisecond)
	run := history.Run{Procs: 2, Goroutines: 2, Seats: 2, GoAt: 1000 * ms}
	attempt := func(p, g int, invoke, dbEnd, complete int64, o history.Outcome) history.Attempt {
		return history.Attempt{Proc: p, Goroutine: g, Invoke: invoke * ms, DBEnd: dbEnd * ms, Complete: complete * ms, Outcome: o}
	}
	tests := []struct {
		name        string
		attempts    []history.Attempt
		wantSkew    time.Duration
		wantElapsed time.Duration
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
			wantSkew: 3 * time.Millisecond, wantElapsed: 41 * time.Millisecond,
			wantSellout: 20 * time.Millisecond, wantSoldOut: true,
		},
		{
			name: "never sold out; unknown attempts have no latency",
			attempts: []history.Attempt{
				attempt(0, 0, 1001, 1010, 1011, history.Sold),
				{Proc: 1, Goroutine: 0, Outcome: history.Unknown},
			},
			wantElapsed: 11 * time.Millisecond,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := measure(run, tt.attempts)
			if s.StartSkew != tt.wantSkew || s.Elapsed != tt.wantElapsed ||
				s.Sellout != tt.wantSellout || s.SoldOut != tt.wantSoldOut {
				t.Errorf("got skew %s elapsed %s sellout %s/%v; want %s %s %s/%v",
					s.StartSkew, s.Elapsed, s.Sellout, s.SoldOut,
					tt.wantSkew, tt.wantElapsed, tt.wantSellout, tt.wantSoldOut)
			}
			if s.Contenders != 4 {
				t.Errorf("contenders %d, want 4", s.Contenders)
			}
		})
	}
}

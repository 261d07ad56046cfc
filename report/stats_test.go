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
		wantPeak    int
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
			wantSellout: 20 * time.Millisecond, wantSoldOut: true, wantPeak: 4,
		},
		{
			name: "never sold out; unknown attempts have no latency",
			attempts: []history.Attempt{
				attempt(0, 0, 1001, 1010, 1011, history.Sold),
				{Proc: 1, Goroutine: 0, Outcome: history.Unknown},
			},
			wantElapsed: 11 * time.Millisecond, wantPeak: 1,
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
			if s.PeakInFlight != tt.wantPeak {
				t.Errorf("peak in flight %d, want %d", s.PeakInFlight, tt.wantPeak)
			}
			if s.Contenders != 4 {
				t.Errorf("contenders %d, want 4", s.Contenders)
			}
		})
	}
}

func TestPeakInFlight(t *testing.T) {
	span := func(invoke, complete int64) history.Attempt {
		return history.Attempt{Invoke: invoke, Complete: complete}
	}
	tests := []struct {
		name     string
		attempts []history.Attempt
		want     int
	}{
		{name: "none", want: 0},
		{name: "one", attempts: []history.Attempt{span(1, 2)}, want: 1},
		{name: "one after the other", attempts: []history.Attempt{span(1, 2), span(3, 4), span(5, 6)}, want: 1},
		{name: "an answer at the instant of the next start is not overlap",
			attempts: []history.Attempt{span(1, 3), span(3, 5)}, want: 1},
		{name: "all at once", attempts: []history.Attempt{span(1, 10), span(2, 9), span(3, 8)}, want: 3},
		{name: "two waves, the second wider", attempts: []history.Attempt{
			span(1, 4), span(2, 5), // 2 at once
			span(10, 20), span(11, 14), span(12, 13), span(15, 16), // 3 at once at 12
		}, want: 3},
		{name: "out of order", attempts: []history.Attempt{span(12, 13), span(1, 4), span(10, 20), span(2, 5), span(11, 14)}, want: 3},
		{name: "never reported attempts are left out", attempts: []history.Attempt{
			span(1, 10), {Outcome: history.Unknown}, {Invoke: 2, Outcome: history.Unknown}, span(3, 4),
		}, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := peakInFlight(tt.attempts); got != tt.want {
				t.Errorf("peakInFlight = %d, want %d", got, tt.want)
			}
		})
	}
}

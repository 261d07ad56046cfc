package report

import (
	"strconv"
	"testing"
	"time"

	"github.com/hammer-load/hammer/history"
)

func TestPhysicalFloor(t *testing.T) {
	commit := int64(200 * time.Microsecond)
	soldOut := func(d time.Duration) stats { return stats{Sellout: d, SoldOut: true} }
	tests := []struct {
		name                  string
		run                   history.Run
		st                    stats
		wantCommit, wantFloor string
		wantEff               string
	}{
		{"sold out at five times the floor", history.Run{Seats: 100, CommitLatency: commit}, soldOut(100 * time.Millisecond),
			"0.2", "20", "0.2"},
		{"at the floor", history.Run{Seats: 100, CommitLatency: commit}, soldOut(20 * time.Millisecond),
			"0.2", "20", "1"},
		{"never sold out: a floor, no efficiency", history.Run{Seats: 100, CommitLatency: commit}, stats{},
			"0.2", "20", "null"},
		{"sold out at the go signal: no efficiency", history.Run{Seats: 100, CommitLatency: commit}, soldOut(0),
			"0.2", "20", "null"},
		{"open model: the rate sets the sell-out", history.Run{Seats: 100, CommitLatency: commit, Rate: 50}, soldOut(time.Second),
			"0.2", "20", "null"},
		{"never raced: no commit latency", history.Run{Seats: 100}, soldOut(100 * time.Millisecond),
			"null", "null", "null"},
		{"no seats", history.Run{CommitLatency: commit}, soldOut(100 * time.Millisecond),
			"null", "null", "null"},
	}
	show := func(v *float64) string {
		if v == nil {
			return "null"
		}
		return fmtNum(*v)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := physicalFloor(tt.run, tt.st)
			if got := [3]string{show(f.CommitLatencyMs), show(f.FloorMs), show(f.Efficiency)}; got != [3]string{tt.wantCommit, tt.wantFloor, tt.wantEff} {
				t.Errorf("commit, floor, efficiency = %q, want %q", got, [3]string{tt.wantCommit, tt.wantFloor, tt.wantEff})
			}
		})
	}
}

func TestFmtEff(t *testing.T) {
	tests := []struct {
		name string
		eff  *float64
		want string
	}{
		{"none", nil, "-"},
		{"a fifth", ptr(0.2), "20%"},
		{"small", ptr(0.043), "4.3%"},
		{"above the floor", ptr(1.05), "105%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fmtEff(tt.eff); got != tt.want {
				t.Errorf("fmtEff = %q, want %q", got, tt.want)
			}
		})
	}
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

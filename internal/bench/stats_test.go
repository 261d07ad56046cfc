package bench

import (
	"testing"
)

// statCase is one input of a statistic over values and what it gives.
type statCase struct {
	name string
	in   []Value
	want Value
}

// checkStat runs stat, named name in messages, over every case.
func checkStat(t *testing.T, name string, stat func([]Value) Value, tests []statCase) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stat(tt.in); got != tt.want {
				t.Errorf("%s(%v) = %v, want %v", name, tt.in, got, tt.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	checkStat(t, "Median", Median, []statCase{
		{name: "odd", in: []Value{Known(3), Known(1), Known(2)}, want: Known(2)},
		{name: "even takes the mean of the middle two", in: []Value{Known(4), Known(1), Known(2), Known(10)}, want: Known(3)},
		{name: "missing values are left out", in: []Value{NA(), Known(5), NA()}, want: Known(5)},
		{name: "all missing", in: []Value{NA(), NA()}, want: NA()},
		{name: "none", in: nil, want: NA()},
	})
}

func TestLeast(t *testing.T) {
	checkStat(t, "Least", Least, []statCase{
		{name: "smallest", in: []Value{Known(4), Known(3), Known(4)}, want: Known(3)},
		{name: "missing values are left out", in: []Value{NA(), Known(4), Known(0)}, want: Known(0)},
		{name: "all missing", in: []Value{NA()}, want: NA()},
		{name: "none", in: nil, want: NA()},
	})
}

func TestRatio(t *testing.T) {
	tests := []struct {
		name string
		a, b Value
		want Value
	}{
		{name: "plain", a: Known(3), b: Known(2), want: Known(1.5)},
		{name: "missing numerator", a: NA(), b: Known(2), want: NA()},
		{name: "missing anchor", a: Known(3), b: NA(), want: NA()},
		{name: "zero anchor", a: Known(3), b: Known(0), want: NA()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ratio(tt.a, tt.b); got != tt.want {
				t.Errorf("Ratio(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestGoalMet(t *testing.T) {
	rounds := []Value{Known(1), Known(2), Known(3)}
	tests := []struct {
		name   string
		goal   Goal
		rounds []Value
		want   string
	}{
		{name: "at least, met by the median", goal: Goal{Op: AtLeast, Limit: 2}, rounds: rounds, want: "yes"},
		{name: "at least, missed", goal: Goal{Op: AtLeast, Limit: 2.5}, rounds: rounds, want: "no"},
		{name: "at most, met", goal: Goal{Op: AtMost, Limit: 2}, rounds: rounds, want: "yes"},
		{name: "at most, missed", goal: Goal{Op: AtMost, Limit: 1.5}, rounds: rounds, want: "no"},
		{name: "nothing measured", goal: Goal{Op: AtMost, Limit: 1}, rounds: []Value{NA()}, want: "n/a"},
		{name: "info", goal: Goal{}, rounds: rounds, want: "-"},
		{name: "every round, all equal", goal: Goal{Op: Every}, rounds: []Value{Known(0), Known(0)}, want: "yes"},
		{name: "every round, one bad round fails", goal: Goal{Op: Every}, rounds: []Value{Known(0), Known(3), Known(0)}, want: "no"},
		{name: "every round, one missing fails", goal: Goal{Op: Every}, rounds: []Value{Known(0), NA()}, want: "no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.goal.Met(tt.rounds, Median(tt.rounds)); got != tt.want {
				t.Errorf("Met = %q, want %q", got, tt.want)
			}
		})
	}
}

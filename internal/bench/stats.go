package bench

import (
	"math"
	"slices"
)

// Value is one measured number, or none when it could not be had (a
// field the hammer under test does not write yet, a failed step): the
// table prints "n/a" for it. The zero Value is none.
type Value struct {
	V   float64
	Has bool
}

// Known is a measured value.
func Known(v float64) Value { return Value{V: v, Has: true} }

// NA is a value that could not be had.
func NA() Value { return Value{} }

// Missing reports that the value could not be had.
func (v Value) Missing() bool { return !v.Has }

// Optional is *p, or NA when p is nil.
func Optional(p *float64) Value {
	if p == nil {
		return NA()
	}
	return Known(*p)
}

// Ratio is a ÷ b; NA when either is missing or b is not positive.
func Ratio(a, b Value) Value {
	if a.Missing() || b.Missing() || b.V <= 0 || math.IsNaN(a.V) {
		return NA()
	}
	return Known(a.V / b.V)
}

// Least is the smallest of the values that are not missing; NA when every
// value is missing.
func Least(vs []Value) Value {
	least := NA()
	for _, v := range vs {
		if !v.Missing() && (least.Missing() || v.V < least.V) {
			least = v
		}
	}
	return least
}

// Median is the median of the values that are not missing (the mean of
// the middle two for an even count); NA when every value is missing.
func Median(vs []Value) Value {
	var xs []float64
	for _, v := range vs {
		if !v.Missing() {
			xs = append(xs, v.V)
		}
	}
	if len(xs) == 0 {
		return NA()
	}
	slices.Sort(xs)
	mid := len(xs) / 2
	if len(xs)%2 == 1 {
		return Known(xs[mid])
	}
	return Known((xs[mid-1] + xs[mid]) / 2)
}

// Op is how a goal compares a figure with its limit.
type Op int

// The kinds of goal.
const (
	// Info rows have no goal: they are printed for what they tell.
	Info Op = iota
	// AtLeast is met when the median is at least the limit.
	AtLeast
	// AtMost is met when the median is at most the limit.
	AtMost
	// Every is met when every round's value equals the limit (an exit
	// code: one bad round is a failure, whatever the median).
	Every
)

// Goal is what a figure should reach.
type Goal struct {
	Op    Op
	Limit float64
	// Text is how the table prints the goal, e.g. "≥ 0.95 ×".
	Text string
}

// Met says whether the goal is met by the rounds' values and their median:
// "yes", "no", "n/a" (nothing to judge) or "-" for an Info row.
func (g Goal) Met(rounds []Value, median Value) string {
	switch g.Op {
	case Info:
		return "-"
	case Every:
		if len(rounds) == 0 {
			return "n/a"
		}
		for _, v := range rounds {
			if v.Missing() || v.V != g.Limit {
				return "no"
			}
		}
		return "yes"
	}
	if median.Missing() {
		return "n/a"
	}
	if (g.Op == AtLeast && median.V >= g.Limit) || (g.Op == AtMost && median.V <= g.Limit) {
		return "yes"
	}
	return "no"
}

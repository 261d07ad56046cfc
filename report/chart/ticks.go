package chart

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

var (
	_ plot.Ticker = percentileTicks{}
	_ plot.Ticker = logTicks{}
	_ plot.Ticker = linearTicks{}
)

// percentileTicks marks an axis of 1/(1−p) with the percentiles 50%, 90%,
// 99%, 99.9%, … that fall inside it, and unlabelled ticks at 0% and in
// between.
type percentileTicks struct{}

// Ticks returns the ticks between min and max.
func (percentileTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	add := func(x float64, label string) {
		if x >= min*(1-1e-9) && x <= max*(1+1e-9) {
			ticks = append(ticks, plot.Tick{Value: x, Label: label})
		}
	}
	add(1, "")
	for x := 1.0; x < max; x *= 10 {
		for k := 2.0; k <= 9; k++ {
			label := ""
			if x == 1 && k == 2 {
				label = "50%"
			}
			add(x*k, label)
		}
		add(x*10, percentLabel(x*10))
	}
	return ticks
}

// percentLabel is the percentile at x = 1/(1−p), e.g. "99.9%" at 1000.
func percentLabel(x float64) string {
	digits := int(math.Round(math.Log10(x))) - 2
	return strconv.FormatFloat(100*(1-1/x), 'f', max(digits, 0), 64) + "%"
}

// logTicks marks a logarithmic axis at 1, 2 and 5 times the powers of ten
// (only the powers when the axis spans more than three decades), with
// unlabelled minor ticks in between.
type logTicks struct{}

// Ticks returns the ticks between min and max.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || min > max {
		return nil
	}
	wide := math.Log10(max/min) > 3
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(min))); e <= int(math.Ceil(math.Log10(max))); e++ {
		for k := 1; k <= 9; k++ {
			v := decimal(k, e)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			label := ""
			if k == 1 || (!wide && (k == 2 || k == 5)) {
				label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: label})
		}
	}
	return ticks
}

// decimal is k·10^e, parsed from its decimal form so that 3·10^-1 is
// exactly the float nearest 0.3.
func decimal(k, e int) float64 {
	v, _ := strconv.ParseFloat(strconv.Itoa(k)+"e"+strconv.Itoa(e), 64)
	return v
}

// linearTicks marks a linear axis at about n round values — 1, 2 or 5
// times a power of ten apart — with an unlabelled tick halfway between.
type linearTicks struct{ n int }

// Ticks returns the ticks between min and max.
func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', -1, 64)}}
	}
	raw := (hi - lo) / float64(t.n)
	e := int(math.Floor(math.Log10(raw)))
	k := 10
	for _, c := range []int{1, 2, 5} {
		if decimal(c, e) >= raw {
			k = c
			break
		}
	}
	step := decimal(k, e)
	var ticks []plot.Tick
	for i := math.Ceil(lo / step * 2); i/2*step <= hi+step*1e-9; i++ {
		v := i / 2 * step
		label := ""
		if math.Mod(i, 2) == 0 {
			label = strconv.FormatFloat(v, 'f', max(-e, 0), 64)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

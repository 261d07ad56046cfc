package report

import (
	"fmt"
	"math"
)

// scale fits the time shown to every instant of the story, padded.
func (d *storyDrawing) scale() {
	lo, hi := int64(math.MaxInt64), int64(0)
	see := func(ts ...int64) {
		for _, t := range ts {
			if t > 0 {
				lo, hi = min(lo, t), max(hi, t)
			}
		}
	}
	for _, a := range d.actors {
		for _, at := range a.attempts {
			see(at.Invoke, at.LockAcquired, at.ReadAt, at.DBEnd, at.LockReleasing, at.LockReleased, at.Complete)
			if e, ok := d.expiry(at); ok {
				see(e)
			}
		}
		for _, f := range d.faultsOf(a) {
			see(f.Start, f.End)
		}
	}
	pad := max((hi-lo)/30, 1000)
	d.from, d.width = lo-pad, hi-lo+2*pad
}

// x is the horizontal position of instant t.
func (d *storyDrawing) x(t int64) float64 {
	return lanesLabel + (lanesWidth-lanesLabel-lanesRight)*float64(t-d.from)/float64(d.width)
}

// clampX is the position of instant t, kept within the plot.
func (d *storyDrawing) clampX(t int64) float64 {
	return min(max(d.x(t), lanesLabel), lanesWidth-lanesRight)
}

// shown says whether instant t falls in the time shown.
func (d *storyDrawing) shown(t int64) bool { return t >= d.from && t <= d.from+d.width }

// ms is instant t in milliseconds from the go signal.
func (d *storyDrawing) ms(t int64) float64 { return math.Round(float64(t-d.run.GoAt)/1e3) / 1e3 }

// ticks labels the time axis at about eight round steps.
func (d *storyDrawing) ticks() []tick {
	step := niceStep(float64(d.width) / 8)
	var out []tick
	for t := math.Ceil(float64(d.from-d.run.GoAt)/step) * step; t <= float64(d.from+d.width-d.run.GoAt); t += step {
		out = append(out, tick{X: d.x(d.run.GoAt + int64(t)), Label: tickLabel(t, step)})
	}
	return out
}

// tickLabel renders instant t (ns from the go signal) with as many
// decimals as the step between ticks needs, in ms or, from a second on,
// in seconds.
func tickLabel(t, step float64) string {
	unit, scale := "ms", 1e6
	if step >= 1e9 || (t >= 1e9 && step >= 1e8) {
		unit, scale = "s", 1e9
	}
	decimals := max(0, int(-math.Floor(math.Log10(step/scale)+1e-9)))
	v := t / scale
	if math.Abs(v) < step/scale/2 {
		v = 0 // no "-0"
	}
	return fmt.Sprintf("+%.*f%s", decimals, v, unit)
}

// niceStep rounds a step in ns up to 1, 2 or 5 times a power of ten.
func niceStep(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(max(v, 1))))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

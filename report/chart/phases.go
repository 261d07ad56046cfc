package chart

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"

	"github.com/hammer-load/hammer/latency"
)

// buildPhases returns the mean of each phase of every run; the runs of a
// user's service (service) have one, the whole request.
func buildPhases(runs []Run, lat *latency.Set, service bool) []Phases {
	out := make([]Phases, 0, len(runs))
	mean := func(run string, p latency.Phase) float64 { return usToMs(lat.Histogram(run, p).Mean()) }
	for _, r := range runs {
		ph := Phases{
			Run:        r.Name,
			Lock:       r.Lock,
			LockWaitMs: mean(r.Name, latency.LockWait),
			CriticalMs: mean(r.Name, latency.Critical),
			ReleaseMs:  mean(r.Name, latency.Release),
			HandoffMs:  mean(r.Name, latency.Handoff),
		}
		if service {
			// A service is a black box: its one phase is the whole request.
			ph.Lock, ph.RequestMs = false, mean(r.Name, latency.Attempt)
		}
		out = append(out, ph)
	}
	return out
}

// phase is one segment of a phases bar: its name, its value and the
// colour it takes from the mode's.
type phase struct {
	name   string
	ms     float64
	colour func(color.RGBA) color.RGBA
}

// phaseList is the segments of ph in bar order, left to right: waiting
// for the lock in a pale tint, the critical section in the mode's colour,
// the release darker, the handoff to the next holder darkest (critical
// section, release and handoff are the lock's cycle per holder). Runs
// without a lock have only a critical section.
func phaseList(ph Phases) []phase {
	if ph.RequestMs > 0 {
		return []phase{{"whole request, of a service (full colour)", ph.RequestMs, func(c color.RGBA) color.RGBA { return c }}}
	}
	crit := phase{"critical section (full colour)", ph.CriticalMs, func(c color.RGBA) color.RGBA { return c }}
	if !ph.Lock {
		return []phase{crit}
	}
	return []phase{
		{"lock wait (pale)", ph.LockWaitMs, func(c color.RGBA) color.RGBA { return tint(c, 0.6) }},
		crit,
		{"release (dark)", ph.ReleaseMs, func(c color.RGBA) color.RGBA { return shade(c, 0.5) }},
		{"handoff to the next holder, per handoff (darkest)", ph.HandoffMs, func(c color.RGBA) color.RGBA { return shade(c, 0.2) }},
	}
}

// phasesFigure draws one horizontal bar per run, the first run on top,
// stacking the mean lock wait, critical section and release.
func phasesFigure(d Data) figure {
	f := figure{
		xLabel: "mean time per attempt that reached the phase (ms)",
		yLabel: "run",
		legend: phaseLegend(d),
	}
	p := newPanel("", true)
	f.panels = []*plot.Plot{p}
	runs := runIndex(d)
	n := len(d.Phases)
	b := bars{thickness: 0.7, labels: map[float64]string{}, labelSize: tickSize(n)}
	names := make([]string, n)
	for i, ph := range d.Phases {
		y := float64(n - 1 - i)
		names[n-1-i] = ph.Run
		c := modeColour(runs[ph.Run].Colour)
		x := 0.0
		for _, seg := range phaseList(ph) {
			b.segs = append(b.segs, bar{y: y, x0: x, x1: x + seg.ms, fill: seg.colour(c), edge: shade(c, 0.5)})
			x += seg.ms
		}
		b.labels[y] = formatMs(x)
	}
	if n == 0 {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		f.note = "no runs recorded"
		return f
	}
	p.Add(b)
	p.NominalY(names...)
	p.Y.Tick.Label.Font = sans(tickSize(n))
	p.X.Min, p.X.Max = 0, p.X.Max*1.12
	if !(p.X.Max > 0) {
		p.X.Max, f.note = 1, "no attempts recorded"
	}
	return f
}

// phaseLegend explains the shades of a bar, then the mode colours.
func phaseLegend(d Data) []entry {
	if len(d.Phases) == 0 {
		return nil
	}
	out := []entry{{label: "phase, left to right"}}
	g := neutral()
	for _, seg := range phaseList(Phases{Lock: true}) {
		out = append(out, entry{label: seg.name, thumb: boxThumb{fill: seg.colour(g), edge: shade(g, 0.5)}})
	}
	if slices.ContainsFunc(d.Phases, func(ph Phases) bool { return ph.RequestMs > 0 }) {
		seg := phaseList(Phases{RequestMs: 1})[0]
		out = append(out, entry{label: seg.name, thumb: boxThumb{fill: seg.colour(g), edge: shade(g, 0.5)}})
	}
	out = append(out, entry{label: "at the end: sum of the means", thumb: heading{}})
	return append(out, modeBoxes(d, "mode")...)
}

// tickSize is the font size of row labels when there are n rows.
func tickSize(n int) float64 {
	switch {
	case n > 30:
		return 7.5
	case n > 20:
		return 8.5
	default:
		return 10
	}
}

// formatMs writes a duration in milliseconds to three significant figures.
func formatMs(ms float64) string {
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	default:
		return fmt.Sprintf("%.2f ms", ms)
	}
}

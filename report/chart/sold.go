package chart

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
)

// buildSold returns every run's seats sold over time and its fault windows.
func buildSold(runs []folder.Run) []Sold {
	out := make([]Sold, 0, len(runs))
	for _, run := range runs {
		at := origin(run.Run, run.Records.Attempts)
		out = append(out, Sold{
			Run:    run.Name,
			Seats:  run.Seats,
			Steps:  soldSteps(at, run.Records.Attempts),
			Faults: faultWindows(at, run.Records.Faults),
		})
	}
	return out
}

// soldSteps counts the sold attempts by the time the database confirmed
// them (DBEnd, or Complete when DBEnd is missing), from (0, 0) to the
// run's last answer.
func soldSteps(origin int64, attempts []history.Attempt) []Step {
	var times []int64
	var last int64
	for _, a := range attempts {
		last = max(last, a.Complete)
		if a.Outcome != history.Sold {
			continue
		}
		t := a.DBEnd
		if t == 0 {
			t = a.Complete
		}
		if t > 0 {
			times = append(times, t)
			last = max(last, t)
		}
	}
	slices.Sort(times)
	steps := []Step{{Ms: 0, N: 0}}
	for i, t := range times {
		steps = append(steps, Step{Ms: sinceMs(origin, t), N: i + 1})
	}
	if last > 0 && sinceMs(origin, last) > steps[len(steps)-1].Ms {
		steps = append(steps, Step{Ms: sinceMs(origin, last), N: len(times)})
	}
	return steps
}

// faultWindows places a run's faults in time since its go signal.
func faultWindows(origin int64, faults []history.FaultEvent) []Window {
	var out []Window
	for _, f := range faults {
		end := max(f.End, f.Start)
		out = append(out, Window{Fault: f.Fault, StartMs: sinceMs(origin, f.Start), EndMs: sinceMs(origin, end)})
	}
	return out
}

// soldFigure draws one step line of seats sold per run over its fault
// windows, shaded in the run's colour, and a line at the seat count, on
// one panel or one panel per fault. Each panel's axes fit its own runs:
// runs under different faults last very differently. A run that sold more
// seats than exist is labelled with its count.
func soldFigure(d Data) figure {
	f := figure{
		xLabel: "time since the run's go signal (ms)",
		yLabel: "seats sold (cumulative count)",
	}
	runs := runIndex(d)
	for _, fc := range facets(d) {
		f.panels = append(f.panels, soldPanel(d, fc, runs))
	}
	var shown []string
	var faults bool
	sold := map[string]Sold{}
	for _, s := range d.Sold {
		shown = append(shown, s.Run)
		faults = faults || len(s.Faults) > 0
		sold[s.Run] = s
	}
	f.legend = runLegend(d, shown, func(name string) string { return soldLabel(sold[name]) })
	if len(shown) > 0 {
		f.legend = append(f.legend, entry{label: "seats in the sector", thumb: lineThumb{line: seatLine()}})
	}
	if faults {
		f.legend = append(f.legend, entry{label: "fault window (run's colour)", thumb: lineThumb{fill: faultFill(neutral(), 0.35)}})
	}
	if len(shown) == 0 {
		f.note = "no runs recorded"
	}
	return f
}

// soldPanel draws the runs of one facet: their fault windows first, so
// that the lines stay on top, then their step lines.
func soldPanel(d Data, fc facet, runs map[string]Run) *plot.Plot {
	p := newPanel(fc.title, false)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	var in []Sold
	faulted := 0
	for _, s := range d.Sold {
		if fc.runs[s.Run] {
			in = append(in, s)
			faulted += min(len(s.Faults), 1)
		}
	}
	for _, s := range in {
		addFaults(p, s, runs[s.Run], faulted)
	}
	for _, s := range in {
		addSold(p, s, runs[s.Run])
	}
	p.Y.Max *= 1.12
	return p
}

// addFaults shades the run's fault windows on p, extending the x axis to
// cover them. The shade is lighter when more of the panel's runs (faulted)
// have windows, so that overlapping windows stay light.
func addFaults(p *plot.Plot, s Sold, r Run, faulted int) {
	alpha := 0.22 / math.Pow(float64(max(faulted, 1)), 0.6)
	for _, w := range s.Faults {
		p.Add(span{from: w.StartMs, to: w.EndMs, fill: faultFill(modeColour(r.Colour), alpha), minWidth: vg.Points(2)})
		p.X.Max = max(p.X.Max, w.EndMs)
	}
}

// addSold draws the run's step line and seat line on p, labelling an
// oversold run with its count.
func addSold(p *plot.Plot, s Sold, r Run) {
	xys := make(plotter.XYs, len(s.Steps))
	for i, st := range s.Steps {
		xys[i].X, xys[i].Y = st.Ms, float64(st.N)
	}
	addLine(p, xys, runLine(r), plotter.PostStep)
	if s.Seats > 0 {
		p.Add(hline{y: float64(s.Seats), style: seatLine()})
		p.Y.Max = max(p.Y.Max, float64(s.Seats))
	}
	if n := len(xys); n > 0 && soldCount(s) > s.Seats {
		p.Add(note{x: xys[n-1].X, y: xys[n-1].Y, text: fmt.Sprintf("%d sold", soldCount(s)), colour: shade(modeColour(r.Colour), 0.3), size: 8})
	}
}

// faultFill is the translucent shade of a fault window of colour c.
func faultFill(c color.RGBA, alpha float64) color.RGBA { return translucent(tint(c, 0.3), alpha) }

// soldLabel is a run's legend line: its name and the seats it sold.
func soldLabel(s Sold) string {
	return fmt.Sprintf("%s: %d/%d sold", s.Run, soldCount(s), s.Seats)
}

// soldCount is how many seats the run sold in all.
func soldCount(s Sold) int {
	if len(s.Steps) == 0 {
		return 0
	}
	return s.Steps[len(s.Steps)-1].N
}

package chart

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/hammer-load/hammer/latency"
)

// buildLockWait bins the lock wait of every run that takes a lock on
// logarithmic bins shared by all of them: 10 per decade, or 5 when no run
// has 1000 waits, so small runs do not break up into single counts. Each
// HDR bucket counts at its middle value.
func buildLockWait(runs []Run, lat *latency.Set) LockWait {
	type hist struct {
		run  string
		bars []hdrhistogram.Bar
		n    int64
	}
	var hs []hist
	lo, hi, most := math.Inf(1), math.Inf(-1), int64(0)
	for _, r := range runs {
		if !r.Lock {
			continue
		}
		h := lat.Histogram(r.Name, latency.LockWait)
		if h.TotalCount() == 0 {
			continue
		}
		var bars []hdrhistogram.Bar
		for _, b := range h.Distribution() {
			if b.Count > 0 {
				bars = append(bars, b)
				lo, hi = min(lo, midMs(b)), max(hi, midMs(b))
			}
		}
		hs = append(hs, hist{r.Name, bars, h.TotalCount()})
		most = max(most, h.TotalCount())
	}
	out := LockWait{EdgesMs: []float64{}, Runs: []LockWaitRun{}}
	if len(hs) == 0 {
		return out
	}
	perDecade := 5.0
	if most >= 1000 {
		perDecade = 10
	}
	first := int(math.Floor(math.Log10(lo) * perDecade))
	bins := int(math.Floor(math.Log10(hi)*perDecade)) + 1 - first
	for k := range bins + 1 {
		out.EdgesMs = append(out.EdgesMs, significant(math.Pow(10, float64(first+k)/perDecade), 6))
	}
	for _, h := range hs {
		counts := make([]int64, bins)
		for _, b := range h.bars {
			i := int(math.Floor(math.Log10(midMs(b))*perDecade)) - first
			counts[min(max(i, 0), bins-1)] += b.Count
		}
		out.Runs = append(out.Runs, LockWaitRun{Run: h.run, Count: h.n, Counts: counts})
	}
	return out
}

// midMs is the middle of an HDR bucket in milliseconds.
func midMs(b hdrhistogram.Bar) float64 { return usToMs(float64(b.From+b.To) / 2) }

// lockWaitFigure draws each locking run's lock-wait histogram as a step
// outline on a logarithmic time axis, on one panel or one panel per fault
// with shared axes. Faults whose runs take no lock get no panel.
func lockWaitFigure(d Data) figure {
	lw := d.LockWait
	f := figure{
		xLabel: "lock wait, until held or given up (ms, log scale)",
		yLabel: "attempts per bin (count)",
	}
	runs := runIndex(d)
	ymax := 1.0
	var shown []string
	for _, fc := range facets(d) {
		p := newPanel(fc.title, false)
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		lines := 0
		for _, r := range lw.Runs {
			if fc.runs[r.Run] {
				addLine(p, outline(lw.EdgesMs, r.Counts), runLine(runs[r.Run]), plotter.PostStep)
				shown = append(shown, r.Run)
				ymax = max(ymax, float64(slices.Max(r.Counts)))
				lines++
			}
		}
		if lines > 0 {
			f.panels = append(f.panels, p)
		}
	}
	count := map[string]int64{}
	for _, r := range lw.Runs {
		count[r.Run] = r.Count
	}
	f.legend = runLegend(d, shown, func(name string) string { return fmt.Sprintf("%s (n=%d)", name, count[name]) })
	xmin, xmax := 0.1, 1000.0
	if len(shown) == 0 {
		p := newPanel("", false)
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		f.panels, f.note = []*plot.Plot{p}, "no run takes a lock"
	} else {
		xmin, xmax = lw.EdgesMs[0], lw.EdgesMs[len(lw.EdgesMs)-1]
	}
	for _, p := range f.panels {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, 0, ymax*1.08
	}
	return f
}

// outline is the step outline of one histogram from its first to its last
// non-empty bin, starting and ending at zero.
func outline(edges []float64, counts []int64) plotter.XYs {
	first, last := -1, -1
	for i, c := range counts {
		if c > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil
	}
	xys := plotter.XYs{{X: edges[first], Y: 0}}
	for i := first; i <= last; i++ {
		xys = append(xys, plotter.XY{X: edges[i], Y: float64(counts[i])})
	}
	return append(xys, plotter.XY{X: edges[last+1], Y: float64(counts[last])}, plotter.XY{X: edges[last+1], Y: 0})
}

// significant rounds v to n significant digits.
func significant(v float64, n int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	return r
}

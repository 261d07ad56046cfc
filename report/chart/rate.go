package chart

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
)

// buckets is about how many buckets the longest run is cut into.
const buckets = 50

// buildRate counts attempts by outcome and completion time, summed over
// runs with each run's time counted from its go signal.
func buildRate(runs []folder.Run) Rate {
	type done struct {
		outcome history.Outcome
		ns      int64
	}
	var all []done
	var longest int64
	var rate Rate
	for _, run := range runs {
		at := origin(run.Run, run.Records.Attempts)
		for _, a := range run.Records.Attempts {
			if a.Outcome == history.Unknown || a.Complete == 0 {
				rate.NoTime++
				continue
			}
			ns := max(a.Complete-at, 0)
			all = append(all, done{a.Outcome, ns})
			longest = max(longest, ns)
		}
	}
	width := bucketWidth(longest)
	rate.BucketMs = float64(width) / 1e6
	n := int(longest/width) + 1
	for _, o := range outcomes() {
		counts := make([]int, n)
		s := OutcomeRate{Outcome: o, PerSecond: make([]float64, n)}
		for _, a := range all {
			if a.outcome == o {
				s.Total++
				counts[a.ns/width]++
			}
		}
		for i, c := range counts {
			s.PerSecond[i] = round(float64(c)*1e9/float64(width), 3)
		}
		rate.Series = append(rate.Series, s)
	}
	return rate
}

// bucketWidth is the bucket width, in nanoseconds, for runs as long as
// longest: the 1, 2 or 5 times a power of ten nearest (on a log scale) to
// 1/50 of it, and at least 1 ms.
func bucketWidth(longest int64) int64 {
	const ms = int64(1e6)
	raw := float64(longest) / buckets
	best := ms
	for w := ms; float64(w) <= raw*10; w *= 10 {
		for _, k := range []int64{1, 2, 5} {
			if math.Abs(math.Log(float64(k*w)/raw)) < math.Abs(math.Log(float64(best)/raw)) {
				best = k * w
			}
		}
	}
	return best
}

// rateFigure draws the completion rate of each outcome over time as step
// lines, one per outcome that occurred.
func rateFigure(d Data) figure {
	r := d.Rate
	p := newPanel("", false)
	f := figure{
		xLabel: fmt.Sprintf("time since each run's go signal (ms), in %s buckets", formatWidth(r.BucketMs)),
		yLabel: "completion rate (attempts/s)",
		panels: []*plot.Plot{p},
	}
	p.X.Min, p.Y.Min, p.Y.Max, p.X.Max = 0, 0, 1, max(r.BucketMs, 1)
	legend := []entry{{label: "outcome (total)"}}
	for _, s := range r.Series {
		if s.Total == 0 {
			continue
		}
		xys := make(plotter.XYs, 0, len(s.PerSecond)+1)
		for i, v := range s.PerSecond {
			xys = append(xys, plotter.XY{X: float64(i) * r.BucketMs, Y: v})
		}
		last := s.PerSecond[len(s.PerSecond)-1]
		xys = append(xys, plotter.XY{X: float64(len(s.PerSecond)) * r.BucketMs, Y: last})
		addLine(p, xys, outcomeLine(s.Outcome), plotter.PostStep)
		legend = append(legend, entry{label: fmt.Sprintf("%s (%d)", s.Outcome, s.Total), thumb: lineThumb{line: outcomeLine(s.Outcome)}})
	}
	if r.NoTime > 0 {
		legend = append(legend, entry{label: fmt.Sprintf("%s, not plotted (%d)", history.Unknown, r.NoTime), thumb: heading{}})
	}
	p.Y.Max *= 1.05
	f.legend = legend
	if len(legend) == 1 {
		f.legend, f.note = nil, "no attempts completed"
	}
	return f
}

// formatWidth writes a bucket width in milliseconds, e.g. "20 ms" or "1 s".
func formatWidth(ms float64) string {
	if ms >= 1000 && math.Mod(ms, 1000) == 0 {
		return fmt.Sprintf("%g s", ms/1000)
	}
	return fmt.Sprintf("%g ms", ms)
}

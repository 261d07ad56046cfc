package chart

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hammer-load/hammer/latency"
)

// stepsPerDecade is how finely the spectrum samples 1/(1−p).
const stepsPerDecade = 20

// buildSpectra returns the latency spectrum of every run with attempts.
func buildSpectra(runs []Run, lat *latency.Set) []Spectrum {
	out := []Spectrum{}
	for _, r := range runs {
		h := lat.Histogram(r.Name, latency.Attempt)
		n := h.TotalCount()
		if n == 0 {
			continue
		}
		var pts []Quantile
		for k := 0; ; k++ {
			x := math.Pow(10, float64(k)/stepsPerDecade)
			if x >= float64(n) {
				break
			}
			p := round(100*(1-1/x), 6)
			pts = append(pts, Quantile{Percentile: p, Ms: usToMs(float64(h.ValueAtQuantile(p)))})
		}
		top := round(100*(1-1/float64(n)), 6)
		pts = append(pts, Quantile{Percentile: top, Ms: usToMs(float64(h.Max()))})
		out = append(out, Spectrum{Run: r.Name, Count: n, Points: pts})
	}
	return out
}

// spectrumFigure draws latency against 1/(1−p) on log axes, one line per
// run, on one panel or one panel per fault with shared axes.
func spectrumFigure(d Data) figure {
	f := figure{
		xLabel: "percentile (log scale of 1/(1−p))",
		yLabel: "attempt latency (ms)",
	}
	runs := runIndex(d)
	var shown []string
	for _, s := range d.Spectrum {
		shown = append(shown, s.Run)
	}
	f.legend = runLegend(d, shown, func(name string) string { return name })
	lo, hi, xmax := 1.0, 1.0, 10.0
	if len(shown) == 0 {
		f.note = "no attempts recorded"
	} else {
		lo, hi, xmax = spectrumBounds(d.Spectrum)
	}
	logY := hi/lo > math.Pow(10, 1.5)
	if logY {
		f.yLabel += ", log scale"
	}
	for _, fc := range facets(d) {
		p := newPanel(fc.title, false)
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, percentileTicks{}
		p.X.Min, p.X.Max = 1, xmax
		setLatencyAxis(&p.Y, lo, hi, logY)
		for _, s := range d.Spectrum {
			if fc.runs[s.Run] {
				addLine(p, spectrumLine(s), runLine(runs[s.Run]), plotter.NoStep)
			}
		}
		f.panels = append(f.panels, p)
	}
	return f
}

// spectrumLine is the points of s as (1/(1−p), ms), latencies kept above
// zero for the log axis.
func spectrumLine(s Spectrum) plotter.XYs {
	xys := make(plotter.XYs, len(s.Points))
	for i, q := range s.Points {
		xys[i].X, xys[i].Y = 1/(1-q.Percentile/100), max(q.Ms, minMs)
	}
	return xys
}

// minMs is the smallest latency the spectrum draws: a microsecond, the
// histograms' resolution.
const minMs = 0.001

// spectrumBounds returns the smallest and largest latency of the spectra
// and the largest 1/(1−p).
func spectrumBounds(ss []Spectrum) (lo, hi, xmax float64) {
	lo, hi, xmax = math.Inf(1), math.Inf(-1), 10
	for _, s := range ss {
		for _, xy := range spectrumLine(s) {
			lo, hi, xmax = min(lo, xy.Y), max(hi, xy.Y), max(xmax, xy.X)
		}
	}
	return lo, hi, xmax
}

// setLatencyAxis fits a latency axis to [lo, hi]: logarithmic when logY
// is set — the spectrum uses it when the values span more than 1.5
// decades, so that fast and stalled runs both show — linear from zero
// otherwise.
func setLatencyAxis(a *plot.Axis, lo, hi float64, logY bool) {
	if logY {
		a.Scale, a.Tick.Marker = plot.LogScale{}, logTicks{}
		a.Min, a.Max = lo/1.2, hi*1.2
		return
	}
	a.Min, a.Max = 0, hi*1.05
}

// addLine adds a line through xys drawn in style to p. Build never makes
// the NaN or infinite values plotter.NewLine guards against, so the line
// is made directly.
func addLine(p *plot.Plot, xys plotter.XYs, style draw.LineStyle, step plotter.StepKind) {
	if len(xys) == 0 {
		return
	}
	p.Add(&plotter.Line{XYs: xys, LineStyle: style, StepStyle: step})
}

package chart

import (
	"image/color"
	"slices"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hammer-load/hammer/scenarios"
)

// runIndex maps each run's name to how it is drawn.
func runIndex(d Data) map[string]Run {
	out := make(map[string]Run, len(d.Runs))
	for _, r := range d.Runs {
		out[r.Name] = r
	}
	return out
}

// title is a chart's title naming the results folder.
func title(d Data, what string) string {
	if d.RunID == "" {
		return what
	}
	return what + " — " + d.RunID
}

// runLegend is the legend of the runs in a chart: one line per run, with
// label's text, when the chart is one panel; one line per mode when it is
// faceted, since the panel then names the fault.
func runLegend(d Data, shown []string, label func(string) string) []entry {
	if len(shown) == 0 {
		return nil
	}
	runs := runIndex(d)
	if faceted(d) {
		var modes []int
		for _, name := range shown {
			modes = append(modes, runs[name].Colour)
		}
		return modeLegend(d, modes, "mode (panel = fault)")
	}
	heading := "run (colour = mode)"
	for _, r := range d.Runs {
		if r.Dash > 0 {
			heading = "run (colour = mode, dash = fault)"
		}
	}
	out := []entry{{label: heading}}
	for _, name := range shown {
		out = append(out, entry{label: label(name), thumb: lineThumb{line: runLine(runs[name])}})
	}
	return out
}

// modesOf returns the palette indexes of the modes among d's runs, in
// the order of scenarios.Modes.
func modesOf(d Data) []int {
	var all []int
	for _, r := range d.Runs {
		all = append(all, r.Colour)
	}
	return distinct(all)
}

// distinct returns the distinct values of xs, sorted.
func distinct(xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// modeLegend is a heading and a thick line of the mode's colour for each
// of the modes (palette indexes).
func modeLegend(d Data, modes []int, heading string) []entry {
	out := []entry{{label: heading}}
	for _, i := range distinct(modes) {
		line := runLine(Run{Colour: i})
		line.Width = vg.Points(2.5)
		out = append(out, entry{label: modeName(d, i), thumb: lineThumb{line: line}})
	}
	return out
}

// modeBoxes is a heading and a box of the mode's colour for each mode
// among d's runs, for charts of filled shapes.
func modeBoxes(d Data, heading string) []entry {
	out := []entry{{label: heading}}
	for _, i := range modesOf(d) {
		c := modeColour(i)
		out = append(out, entry{label: modeName(d, i), thumb: boxThumb{fill: c, edge: shade(c, 0.5)}})
	}
	return out
}

// modeName names the mode at palette index i.
func modeName(d Data, i int) string {
	if modes := scenarios.Modes(); i < len(modes) {
		return string(modes[i])
	}
	var unknown []string
	for _, r := range d.Runs {
		if r.Colour == i && !slices.Contains(unknown, string(r.Mode)) {
			unknown = append(unknown, string(r.Mode))
		}
	}
	if len(unknown) == 1 {
		return unknown[0]
	}
	return "other"
}

// neutral is the grey that legends use to show a shade independent of mode.
func neutral() color.RGBA { return color.RGBA{R: 0x70, G: 0x70, B: 0x70, A: 0xff} }

// legendCol is one column of a legend, drawn at one font size.
type legendCol struct {
	entries []entry
	size    float64
}

// splitLegend splits entries into columns that fit the height h: one
// column at the largest font size that fits, more columns once even the
// smallest size is too tall.
func splitLegend(entries []entry, h vg.Length) []legendCol {
	if len(entries) == 0 {
		return nil
	}
	const largest, smallest = 10.0, 7.5
	size := largest
	for size > smallest && rowHeight(size)*vg.Length(len(entries)) > h {
		size -= 0.5
	}
	perCol := max(int(h/rowHeight(size)), 1)
	var cols []legendCol
	for chunk := range slices.Chunk(entries, perCol) {
		cols = append(cols, legendCol{entries: chunk, size: size})
	}
	return cols
}

// rowHeight is the height of one legend line at the given font size.
func rowHeight(size float64) vg.Length { return vg.Points(size * 1.45) }

// width is how wide the column draws.
func (l legendCol) width() vg.Length {
	var w vg.Length
	for _, e := range l.entries {
		sty := l.style(e)
		x := sty.Width(e.label)
		if e.thumb != nil {
			x += thumbW + vg.Points(l.size/2)
		}
		w = max(w, x)
	}
	return w
}

// style is the text style of an entry: headings are bold.
func (l legendCol) style(e entry) text.Style {
	sty := textStyle(l.size)
	sty.YAlign = draw.YCenter
	if e.thumb == nil {
		sty.Font.Weight = xfont.WeightBold
	}
	return sty
}

// draw draws the column with its top-left corner at at.
func (l legendCol) draw(c draw.Canvas, at vg.Point) {
	rh := rowHeight(l.size)
	for i, e := range l.entries {
		mid := at.Y - rh*vg.Length(i) - rh/2
		x := at.X
		if e.thumb != nil {
			h := vg.Points(l.size * 0.9)
			thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: mid - h/2}, Max: vg.Point{X: x + thumbW, Y: mid + h/2},
			}}
			e.thumb.Thumbnail(&thumb)
			x += thumbW + vg.Points(l.size/2)
		}
		c.FillText(l.style(e), vg.Point{X: x, Y: mid}, e.label)
	}
}

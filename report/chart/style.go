package chart

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hammer-load/hammer/history"
)

// modeColour is the colour of the mode at index i of scenarios.Modes (none,
// lock-only, update-only, lock-plus-update, fenced, skip-locked, redis-gate,
// counter-only); any other index is a mode hammer does not know, drawn grey.
func modeColour(i int) color.RGBA {
	palette := []color.RGBA{
		{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // none: red, the negative control
		{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // lock-only: orange
		{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // update-only: blue
		{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // lock-plus-update: green
		{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // fenced: purple
		{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // skip-locked: brown
		{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff}, // redis-gate: cyan
		{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}, // counter-only: pink, redis-gate's negative control
	}
	if i < 0 || i >= len(palette) {
		return color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}
	}
	return palette[i]
}

// dashPattern is the dash pattern at index i: 0 is solid (no fault); the
// others are told apart by their rhythm and repeat after the last.
func dashPattern(i int) []vg.Length {
	patterns := [][]float64{
		nil,
		{6, 3},
		{1.5, 2},
		{8, 3, 1.5, 3},
		{14, 4},
		{8, 2, 1.5, 2, 1.5, 2},
		{3, 3},
		{14, 3, 3, 3},
		{1.5, 5},
		{14, 3, 1.5, 3, 1.5, 3},
		{6, 7},
		{20, 3, 1.5, 3},
		{3, 2, 3, 7},
	}
	if i <= 0 {
		return nil
	}
	p := patterns[1+(i-1)%(len(patterns)-1)]
	out := make([]vg.Length, len(p))
	for j, v := range p {
		out[j] = vg.Points(v)
	}
	return out
}

// runLine is how a run's line is drawn in every chart.
func runLine(r Run) draw.LineStyle {
	return draw.LineStyle{Color: modeColour(r.Colour), Width: vg.Points(1.4), Dashes: dashPattern(r.Dash)}
}

// tint mixes c with white: f = 0 is c, f = 1 is white.
func tint(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f + 0.5) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 0xff}
}

// shade mixes c with black: f = 0 is c, f = 1 is black.
func shade(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v)*(1-f) + 0.5) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 0xff}
}

// translucent is c at the given opacity, premultiplied as image/color wants.
func translucent(c color.RGBA, alpha float64) color.RGBA {
	pre := func(v uint8) uint8 { return uint8(float64(v)*alpha + 0.5) }
	return color.RGBA{R: pre(c.R), G: pre(c.G), B: pre(c.B), A: uint8(255*alpha + 0.5)}
}

// outcomes are the outcomes that have a completion time, in legend order.
func outcomes() []history.Outcome {
	return []history.Outcome{history.Sold, history.SoldOut, history.LockTimeout, history.Rejected, history.Error}
}

// outcomeLine is how an outcome's rate is drawn. The colours stay clear of
// the mode palette so nobody reads a mode into them.
func outcomeLine(o history.Outcome) draw.LineStyle {
	colours := map[history.Outcome]color.RGBA{
		history.Sold:        {A: 0xff},
		history.SoldOut:     {R: 0x8c, G: 0x8c, B: 0x8c, A: 0xff},
		history.LockTimeout: {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
		history.Rejected:    {R: 0xbc, G: 0xbd, B: 0x22, A: 0xff},
		history.Error:       {R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	}
	c, ok := colours[o]
	if !ok {
		c = color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}
	}
	return draw.LineStyle{Color: c, Width: vg.Points(1.6)}
}

// sans is the charts' typeface at the given size in points.
func sans(size float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(size)}
}

// seatLine is the style of the seat-count reference line.
func seatLine() draw.LineStyle {
	return draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
}

// gridColour is the colour of the background grid.
func gridColour() color.Color { return color.Gray{Y: 0xdd} }

// Style is how the charts draw each run and outcome, for a page that
// draws them again (report.html): CSS colours and dash patterns in
// points, the same as the PNG and SVG files'.
type Style struct {
	// Runs maps a run's name to its look.
	Runs map[string]RunStyle `json:"runs"`
	// Outcomes maps an outcome to its colour.
	Outcomes map[history.Outcome]string `json:"outcomes"`
}

// RunStyle is one run's colour (its mode's) and dash (its fault's; empty
// for a solid line).
type RunStyle struct {
	Colour string    `json:"colour"`
	Dash   []float64 `json:"dash,omitempty"`
}

// Styles is how the charts of d draw its runs and the outcomes.
func Styles(d Data) Style {
	s := Style{Runs: map[string]RunStyle{}, Outcomes: map[history.Outcome]string{}}
	for _, r := range d.Runs {
		rs := RunStyle{Colour: cssColour(modeColour(r.Colour))}
		for _, l := range dashPattern(r.Dash) {
			rs.Dash = append(rs.Dash, float64(l))
		}
		s.Runs[r.Name] = rs
	}
	for _, o := range outcomes() {
		s.Outcomes[o] = cssColour(outcomeLine(o).Color)
	}
	return s
}

// cssColour is c as a CSS hex colour.
func cssColour(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

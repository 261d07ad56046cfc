package chart

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Compile-time checks that the drawing helpers fit gonum/plot.
var (
	_ plot.Plotter     = span{}
	_ plot.Plotter     = hline{}
	_ plot.Plotter     = bars{}
	_ plot.DataRanger  = bars{}
	_ plot.Thumbnailer = lineThumb{}
	_ plot.Thumbnailer = heading{}
)

// lineThumb is a legend thumbnail: an optional filled box with a line
// across its middle.
type lineThumb struct {
	line draw.LineStyle
	fill color.Color
}

// Thumbnail draws the thumbnail into c.
func (t lineThumb) Thumbnail(c *draw.Canvas) {
	if t.fill != nil {
		c.FillPolygon(t.fill, rectangle(c.Min.X, c.Max.X, c.Min.Y, c.Max.Y))
	}
	if t.line.Width > 0 {
		y := (c.Min.Y + c.Max.Y) / 2
		c.StrokeLine2(t.line, c.Min.X, y, c.Max.X, y)
	}
}

// heading is the empty thumbnail of a legend heading.
type heading struct{}

// Thumbnail draws nothing.
func (heading) Thumbnail(*draw.Canvas) {}

// span shades the band of x values [from, to] over the plot's full height.
// A band narrower than minWidth is widened to it, so an instant stays
// visible.
type span struct {
	from, to float64
	fill     color.Color
	minWidth vg.Length
}

// Plot draws the band.
func (s span) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := trX(s.from), trX(s.to)
	if w := x1 - x0; w < s.minWidth {
		x0, x1 = x0-(s.minWidth-w)/2, x1+(s.minWidth-w)/2
	}
	c.FillPolygon(s.fill, c.ClipPolygonXY(rectangle(x0, x1, c.Min.Y, c.Max.Y)))
}

// hline is a horizontal reference line at y across the plot.
type hline struct {
	y     float64
	style draw.LineStyle
}

// Plot draws the line.
func (h hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	if c.ContainsY(y) {
		c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
	}
}

// bar is one horizontal bar segment from x0 to x1, centred on row y.
type bar struct {
	y, x0, x1 float64
	fill      color.Color
	edge      color.Color
}

// bars draws horizontal bar segments of the given thickness (in rows),
// each with a thin edge, and an optional label right of each row's
// rightmost segment.
type bars struct {
	segs      []bar
	thickness float64
	labels    map[float64]string
	labelSize float64
}

// Plot draws the segments and labels.
func (b bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ends := map[float64]vg.Length{}
	for _, s := range b.segs {
		if s.x1 <= s.x0 {
			continue
		}
		x0, x1 := trX(s.x0), trX(s.x1)
		y0, y1 := trY(s.y-b.thickness/2), trY(s.y+b.thickness/2)
		pts := rectangle(x0, x1, y0, y1)
		c.FillPolygon(s.fill, c.ClipPolygonXY(pts))
		edge := draw.LineStyle{Color: s.edge, Width: vg.Points(0.5)}
		c.StrokeLines(edge, c.ClipLinesXY(append(pts, pts[0]))...)
		ends[s.y] = max(ends[s.y], x1)
	}
	sty := textStyle(b.labelSize)
	sty.YAlign = draw.YCenter
	for y, label := range b.labels {
		x := max(ends[y], trX(0))
		c.FillText(sty, vg.Point{X: x + vg.Points(3), Y: trY(y)}, label)
	}
}

// DataRange returns the extent of the segments.
func (b bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, s := range b.segs {
		xmin, xmax = min(xmin, s.x0), max(xmax, s.x1)
		ymin, ymax = min(ymin, s.y-b.thickness/2), max(ymax, s.y+b.thickness/2)
	}
	return xmin, xmax, ymin, ymax
}

// rectangle is the closed outline of a box, counter-clockwise.
func rectangle(x0, x1, y0, y1 vg.Length) []vg.Point {
	return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

// boxThumb is a legend thumbnail: a filled box with an edge.
type boxThumb struct {
	fill, edge color.Color
}

// Thumbnail draws the box into c, a little shorter than the line.
func (t boxThumb) Thumbnail(c *draw.Canvas) {
	inset := (c.Max.Y - c.Min.Y) / 8
	pts := rectangle(c.Min.X, c.Max.X, c.Min.Y+inset, c.Max.Y-inset)
	c.FillPolygon(t.fill, pts)
	c.StrokeLines(draw.LineStyle{Color: t.edge, Width: vg.Points(0.5)}, append(pts, pts[0]))
}

// note is a short text drawn just above a data point, ending at it.
type note struct {
	x, y   float64
	text   string
	colour color.Color
	size   float64
}

// Plot draws the text.
func (n note) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle(n.size)
	sty.Color = n.colour
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	c.FillText(sty, vg.Point{X: trX(n.x), Y: trY(n.y) + vg.Points(2)}, n.text)
}

package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/hammer-load/hammer/folder"
)

// dpi is the resolution the PNG files are rendered at; sizes in pixels
// are at this resolution.
const dpi = 96

// canvasSize returns the size in pixels of every chart of d: 1000×600, or
// 1200×800 for a folder of more than 12 runs, so that a gate's 37 bars,
// its panels and its legend stay readable. The SVG files have the same
// size (at 96 px per inch).
func canvasSize(d Data) (width, height int) {
	if len(d.Runs) > 12 {
		return 1200, 800
	}
	return 1000, 600
}

// figureOf returns how to draw the named chart (one of folder.Charts)
// from Data.
func figureOf(name string) (func(Data) figure, bool) {
	switch name {
	case folder.SpectrumChart:
		return spectrumFigure, true
	case folder.PhasesChart:
		return phasesFigure, true
	case folder.SoldChart:
		return soldFigure, true
	case folder.RateChart:
		return rateFigure, true
	case folder.LockWaitChart:
		return lockWaitFigure, true
	}
	return nil, false
}

// Write renders every chart of a results folder (folder.Charts) from d
// into dir, which must exist, as the chart's files (a PNG and an SVG),
// canvasSize(d) pixels each, each titled with the chart's title, and returns
// the file names written, sorted. Charts without data are drawn with a
// note saying so. The figures are laid out one after the other, then
// rendered at once, each by a goroutine of its own.
func Write(dir string, d Data) ([]string, error) {
	w, h := canvasSize(d)
	charts := folder.Charts()
	figs := make([]figure, len(charts))
	for i, c := range charts {
		fig, ok := figureOf(c.Name)
		if !ok {
			return nil, fmt.Errorf("chart %s: no figure draws it", c.Name)
		}
		figs[i] = fig(d)
		figs[i].title = title(d, c.Title)
	}
	errs := make([]error, len(charts))
	var wg sync.WaitGroup
	for i, c := range charts {
		wg.Go(func() { errs[i] = saveAll(dir, c, figs[i], w, h) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var names []string
	for _, c := range charts {
		names = append(names, c.Files()...)
	}
	slices.Sort(names)
	return names, nil
}

// saveAll renders f into every file of chart c, one after the other: a
// figure is not drawn twice at once (drawing a plot settles its axes).
func saveAll(dir string, c folder.Chart, f figure, w, h int) error {
	for _, name := range c.Files() {
		if err := save(filepath.Join(dir, name), strings.TrimPrefix(filepath.Ext(name), "."), f, w, h); err != nil {
			return fmt.Errorf("chart %s: %w", name, err)
		}
	}
	return nil
}

// save renders f into path in the given format (png or svg), w×h pixels.
// The PNG is compressed for speed: a few per cent larger than at the
// default level, encoded in about two thirds of the time.
func save(path, ext string, f figure, w, h int) error {
	wl, hl := vg.Length(w)/dpi*vg.Inch, vg.Length(h)/dpi*vg.Inch
	var buf bytes.Buffer
	switch ext {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(wl, hl), vgimg.UseDPI(dpi))
		f.draw(draw.New(c))
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, c.Image()); err != nil {
			return err
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	case "svg":
		c := vgsvg.New(wl, hl)
		f.draw(draw.New(c))
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
		return os.WriteFile(path, fontFallback(buf.Bytes()), 0o644)
	}
	return fmt.Errorf("unknown format %q", ext)
}

// fontFallback lets an SVG viewer without Liberation Sans use Arial or
// Helvetica, which have the same metrics, rather than its default serif
// face: gonum/plot names the one family only.
func fontFallback(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// figure is one chart ready to draw: a title, one panel or a grid of
// panels sharing the axis labels, the legend drawn beside them and, when
// there is nothing to plot, a note drawn in their place.
type figure struct {
	title          string
	xLabel, yLabel string
	panels         []*plot.Plot
	legend         []entry
	note           string
}

// entry is one line of a legend. A nil thumb makes the line a heading.
type entry struct {
	label string
	thumb plot.Thumbnailer
}

// Spacing of a figure, in points.
const (
	margin    = vg.Length(10)
	legendGap = vg.Length(14)
	thumbW    = vg.Length(34)
	// legendSlack widens the legend's room a little so that an SVG viewer
	// falling back to a wider face than Liberation Sans does not clip it.
	legendSlack = 1.08
)

// draw lays f out on c: the title on top, the panels on the left, the
// legend in as many columns as it needs on the right.
func (f figure) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, margin, -margin, margin, -margin)
	title := textStyle(14)
	title.Font.Weight = xfont.WeightBold
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	top := c.Max.Y - title.Height(f.title) - vg.Points(10)
	cols := splitLegend(f.legend, top-c.Min.Y)
	var legendW vg.Length
	for _, col := range cols {
		legendW += col.width()*legendSlack + legendGap
	}
	pc := draw.Crop(c, 0, -legendW, 0, top-c.Max.Y)
	c.FillText(title, vg.Point{X: (pc.Min.X + pc.Max.X) / 2, Y: c.Max.Y}, f.title)
	f.drawPanels(pc)
	at := vg.Point{X: pc.Max.X + legendGap, Y: top}
	for _, col := range cols {
		col.draw(c, at)
		at.X += col.width()*legendSlack + legendGap
	}
}

// drawPanels draws the panels, a single one or a grid, with the axis
// labels along the bottom and left edges. The labels are drawn here, not
// by gonum/plot, which pads a log-scale x axis wrongly for its label.
func (f figure) drawPanels(c draw.Canvas) {
	label := textStyle(11)
	label.XAlign, label.YAlign = draw.XCenter, draw.YBottom
	lh := label.Height(f.xLabel) + vg.Points(6)
	grid := draw.Crop(c, lh, 0, lh, 0)
	if len(f.panels) == 1 {
		p := f.panels[0]
		p.Draw(grid)
		data := p.DataCanvas(grid)
		if f.note != "" {
			drawNote(data, f.note)
		}
		grid = data
	} else {
		drawGrid(grid, f.panels)
	}
	c.FillText(label, vg.Point{X: (grid.Min.X + grid.Max.X) / 2, Y: c.Min.Y}, f.xLabel)
	label.Rotation = math.Pi / 2
	label.YAlign = draw.YTop
	c.FillText(label, vg.Point{X: c.Min.X, Y: (grid.Min.Y + grid.Max.Y) / 2}, f.yLabel)
}

// drawGrid draws panels in a grid of about 4:3 cells, aligned so that
// their data areas have the same size.
func drawGrid(c draw.Canvas, panels []*plot.Plot) {
	cols := int(math.Ceil(math.Sqrt(float64(len(panels)) * 1.3)))
	rows := (len(panels) + cols - 1) / cols
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(8)}
	plots := make([][]*plot.Plot, rows)
	for j := range plots {
		plots[j] = make([]*plot.Plot, cols)
		for i := range cols {
			if k := j*cols + i; k < len(panels) {
				plots[j][i] = panels[k]
			}
		}
	}
	canvases := plot.Align(plots, tiles, c)
	for j, row := range plots {
		for i, p := range row {
			if p != nil {
				p.Draw(canvases[j][i])
			}
		}
	}
}

// textStyle is plain chart text at the given size.
func textStyle(size float64) text.Style {
	return text.Style{Color: color.Black, Font: sans(size), Handler: plot.DefaultTextHandler}
}

// newPanel returns a plot with the charts' fonts and a light grid
// (vertical lines only when rows is set: the rows are labelled). A
// non-empty title names the panel within a grid of panels.
func newPanel(title string, rows bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(10)
	p.Title.TextStyle.Font.Weight = xfont.WeightBold
	p.Title.Padding = vg.Points(3)
	p.X.Tick.Label.Font, p.Y.Tick.Label.Font = sans(9), sans(9)
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{n: 8}, linearTicks{n: 6}
	if title != "" {
		p.X.Tick.Label.Font, p.Y.Tick.Label.Font = sans(8), sans(8)
		p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{n: 4}, linearTicks{n: 4}
	}
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColour(), gridColour()
	if rows {
		g.Horizontal.Width = 0
	}
	p.Add(g)
	return p
}

// drawNote writes msg in the middle of c.
func drawNote(c draw.Canvas, msg string) {
	sty := textStyle(12)
	sty.Color = color.Gray{Y: 0x60}
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, c.Center(), msg)
}

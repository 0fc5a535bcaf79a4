package plots

import (
	"fmt"
	"image/color"
	"math"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Font sizes in points (at DPI 96 a point is 4/3 pixel: 11 pt ≈ 15 px).
const (
	titleSize  = 16
	panelSize  = 13
	labelSize  = 13
	tickSize   = 11
	legendSize = 11
)

var (
	sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	boldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}

	colWhite    = color.RGBA{255, 255, 255, 255}
	colBlack    = color.RGBA{0, 0, 0, 255}
	colText     = color.RGBA{30, 30, 30, 255}
	colGrid     = color.RGBA{0, 0, 0, 28}
	colNaN      = color.RGBA{200, 200, 200, 255}
	colBar      = color.RGBA{70, 130, 180, 255} // steel blue
	colHotBar   = color.RGBA{214, 39, 40, 255}  // red
	colHotLine  = color.RGBA{150, 20, 20, 255}
	colSLO      = color.RGBA{40, 40, 40, 255}
	seriesColor = []color.RGBA{ // Tableau 10: distinct, colour-blind tolerant first four
		{31, 119, 180, 255},  // blue
		{255, 127, 14, 255},  // orange
		{44, 160, 44, 255},   // green
		{214, 39, 40, 255},   // red
		{148, 103, 189, 255}, // purple
		{140, 86, 75, 255},   // brown
		{227, 119, 194, 255}, // pink
		{127, 127, 127, 255}, // grey
		{188, 189, 34, 255},  // olive
		{23, 190, 207, 255},  // cyan
	}
	dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	dots   = []vg.Length{vg.Points(2), vg.Points(3)}
)

// colorOf is the i-th series colour, cycling.
func colorOf(i int) color.RGBA { return seriesColor[i%len(seriesColor)] }

// Palette returns the series colours as CSS hex colours ("#1f77b4"), in order: series i,
// which is variant i in a run's charts, has colour i modulo their number. report.html takes
// its variants' colours from it, so that a variant has one colour in the PNG charts and in
// the page.
func Palette() []string {
	out := make([]string, len(seriesColor))
	for i, c := range seriesColor {
		out[i] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	return out
}

// textStyle is a plain sans style of the given size.
func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   colText,
		Font:    font.From(sansFont, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot is a plot.Plot with sans fonts at the package's sizes and a title.
func newPlot(title string, titleFontSize vg.Length) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(boldFont, titleFontSize)
	p.Title.TextStyle.Color = colText
	p.Title.Padding = vg.Points(8)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, labelSize)
		a.Label.TextStyle.Color = colText
		a.Label.Padding = vg.Points(4)
		a.Tick.Label.Font = font.From(sansFont, tickSize)
		a.Tick.Label.Color = colText
		a.Tick.Length = vg.Points(5)
		a.Width = 0 // drawFrame draws the axis lines, exactly on the data's edges
		a.Tick.Color = colText
	}
	p.Legend.TextStyle.Font = font.From(sansFont, legendSize)
	p.Legend.TextStyle.Color = colText
	p.Legend.ThumbnailWidth = vg.Points(28)
	return p
}

// setYPadding sets the gap between p's y axis line and its data to pad. gonum/plot
// sizes the y axis with a space of the axis label's font after the tick labels but
// draws it with a space of the tick labels' font; the difference is taken off the
// padding so that the axis line sits exactly pad from the data (and on a drawn frame).
func setYPadding(p *plot.Plot, pad vg.Length) {
	p.Y.Padding = pad + p.Y.Tick.Label.Width(" ") - p.Y.Label.TextStyle.Width(" ")
}

// loadStops is the heat palette: a sequential ramp (ColorBrewer YlOrRd extended to a
// dark crimson) from pale cream at 0 through yellow, orange and red to near-black red
// at the top of the scale, monotonic in lightness so 15% (pale yellow) and 100% (dark
// crimson) can't be confused, also in grey print.
var loadStops = []color.RGBA{
	{255, 255, 229, 255}, // 0     #ffffe5
	{255, 237, 160, 255}, // 0.125 #ffeda0
	{254, 217, 118, 255}, // 0.25  #fed976
	{254, 178, 76, 255},  // 0.375 #feb24c
	{253, 141, 60, 255},  // 0.5   #fd8d3c
	{252, 78, 42, 255},   // 0.625 #fc4e2a
	{227, 26, 28, 255},   // 0.75  #e31a1c
	{177, 0, 38, 255},    // 0.875 #b10026
	{90, 0, 20, 255},     // 1     #5a0014
}

// loadColor maps load v on the scale 0..max to the heat palette: values at or above max
// take the top colour, values at or below 0 the bottom one, NaN is light grey.
func loadColor(v, max float64) color.RGBA {
	if math.IsNaN(v) {
		return colNaN
	}
	t := v / max
	switch {
	case t >= 1 || math.IsNaN(t):
		return loadStops[len(loadStops)-1]
	case t <= 0:
		return loadStops[0]
	}
	x := t * float64(len(loadStops)-1)
	i := int(x)
	f := x - float64(i)
	a, b := loadStops[i], loadStops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + f*(float64(q)-float64(p)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// fillRect fills the rectangle (x0,y0)-(x1,y1) on c.
func fillRect(c draw.Canvas, col color.Color, x0, y0, x1, y1 vg.Length) {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	c.SetColor(col)
	c.Fill(p)
}

// strokeRect outlines the rectangle (x0,y0)-(x1,y1) on c.
func strokeRect(c draw.Canvas, sty draw.LineStyle, x0, y0, x1, y1 vg.Length) {
	c.StrokeLines(sty, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
}

// fitFirstXLabel returns area narrowed on the left, if need be, so that p's first x
// tick label, centred on the data's left edge, is not cut off: gonum/plot pads the data
// for the last label but not for the first. Call it after setting p's ticks.
func fitFirstXLabel(p *plot.Plot, area draw.Canvas) draw.Canvas {
	ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
	for _, t := range ticks {
		if t.Label == "" || t.Value < p.X.Min || t.Value > p.X.Max {
			continue
		}
		da := p.DataCanvas(area)
		x := da.X(p.X.Norm(t.Value))
		if over := area.Min.X - (x - p.X.Tick.Label.Width(t.Label)/2); over > 0 {
			area.Min.X += over
		}
		break
	}
	return area
}

// drawFrame outlines the data area da on c: its left and bottom edges, or all four
// when box.
func drawFrame(c, da draw.Canvas, box bool) {
	sty := draw.LineStyle{Color: colText, Width: vg.Points(0.75)}
	if box {
		strokeRect(c, sty, da.Min.X, da.Min.Y, da.Max.X, da.Max.Y)
		return
	}
	c.StrokeLines(sty, []vg.Point{{X: da.Min.X, Y: da.Max.Y}, {X: da.Min.X, Y: da.Min.Y}, {X: da.Max.X, Y: da.Min.Y}})
}

// fillBackground paints c white. A raster canvas is white already (vgimg fills it when it
// makes it, and every chart is drawn on a canvas of its own, made for it by render), and
// rasterizing a rectangle the size of the chart took a tenth of its drawing, so only a
// vector canvas is painted.
func fillBackground(c draw.Canvas) {
	if _, ok := rasterOf(c); ok {
		return
	}
	c.SetColor(colWhite)
	c.Fill(c.Rectangle.Path())
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// newGrid is the light grid behind a chart's data, at the ticks of both axes.
func newGrid() *plotter.Grid {
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = colGrid, colGrid
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	return grid
}

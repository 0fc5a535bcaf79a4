package plots

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The percentile markers of the CDF chart.
var cdfMarks = []struct {
	name string
	frac float64
	fill draw.GlyphDrawer
	edge draw.GlyphDrawer
	of   func(c CDFCurve) float64
}{
	{"p50", 0.5, draw.CircleGlyph{}, draw.RingGlyph{}, func(c CDFCurve) float64 { return c.P50 }},
	{"p99", 0.99, draw.PyramidGlyph{}, draw.TriangleGlyph{}, func(c CDFCurve) float64 { return c.P99 }},
	{"p999", 0.999, draw.SquareGlyph{}, draw.BoxGlyph{}, func(c CDFCurve) float64 { return c.P999 }},
}

// WriteCDF draws c to path as a CDFWidth × CDFHeight pixel chart: x latency in ms on a
// log scale, y the cumulative fraction 0..1, one curve per variant in distinct colours and
// dashes (the earlier curves wider, so that curves that coincide stay visible at the edges
// of the one above), each curve's p50, p99 and p999 marked with a circle, triangle and
// square, and a legend (bottom right, where a CDF has no ink) naming each curve with its
// percentiles, its Note, the earlier curve it lies on (when every percentile is within
// 3% of one's) and each marker shape. Points with latency ≤ 0 are left out (log axis); percentiles ≤ 0
// or NaN are not marked.
//
// It returns an error, and writes nothing, when c has no curves, a curve's Ms and
// Fraction differ in length, a value is NaN, or no curve has a point with latency > 0.
func WriteCDF(path string, f Format, c CDF) error {
	return writeChart(path, f, CDFWidth, CDFHeight, c.check, func(dc draw.Canvas) { drawCDF(dc, c) })
}

func (c *CDF) check() error {
	if len(c.Curves) == 0 {
		return fmt.Errorf("plots: cdf %q has no curves", c.Title)
	}
	points := 0
	for _, cv := range c.Curves {
		if len(cv.Ms) != len(cv.Fraction) {
			return fmt.Errorf("plots: cdf %q curve %q has %d latencies for %d fractions", c.Title, cv.Name, len(cv.Ms), len(cv.Fraction))
		}
		for i, ms := range cv.Ms {
			if math.IsNaN(ms) || math.IsNaN(cv.Fraction[i]) {
				return fmt.Errorf("plots: cdf %q curve %q has NaN at point %d", c.Title, cv.Name, i)
			}
			if ms > 0 && !math.IsInf(ms, 1) {
				points++
			}
		}
	}
	if points == 0 {
		return fmt.Errorf("plots: cdf %q has no point with latency > 0", c.Title)
	}
	return nil
}

// fmtMs formats a latency in ms for the legend.
func fmtMs(ms float64) string {
	if !(ms > 0) || !finite(ms) {
		return "–"
	}
	return fmtNum(ms)
}

// drawCDF draws c on dc: each curve with its percentile markers over every curve, a log
// latency axis around them, and the legend on a card in the bottom right corner.
func drawCDF(dc draw.Canvas, c CDF) {
	fillBackground(dc)
	p := newPlot(c.Title, titleSize)
	p.X.Label.Text = "latency (ms, log scale)"
	p.Y.Label.Text = "fraction of completed requests"
	p.Add(newGrid())

	legend := plot.NewLegend()
	legend.TextStyle = textStyle(legendSize)
	legend.ThumbnailWidth = vg.Points(28)
	legend.Padding = vg.Points(3)

	lo, hi := math.Inf(1), math.Inf(-1)
	widen := func(ms float64) { lo, hi = math.Min(lo, ms), math.Max(hi, ms) }
	var markers []plot.Plotter
	for i, cv := range c.Curves {
		col := colorOf(i)
		xys := curvePoints(cv)
		for _, pt := range xys {
			widen(pt.X)
		}
		sty := draw.LineStyle{Color: col, Width: vg.Points(math.Max(1.2, 5-0.9*float64(i))), Dashes: distinctDashes[i%len(distinctDashes)]}
		if len(xys) > 0 {
			p.Add(&plotter.Line{XYs: xys, LineStyle: sty})
		}
		for _, m := range cdfMarks {
			if v := m.of(cv); v > 0 && finite(v) {
				widen(v)
				markers = append(markers, &plotter.Scatter{
					XYs:        plotter.XYs{{X: v, Y: m.frac}},
					GlyphStyle: draw.GlyphStyle{Color: col, Radius: vg.Points(4.5), Shape: outlined{m.fill, m.edge}},
				})
			}
		}
		legend.Add(curveEntry(c.Curves, i), &plotter.Line{LineStyle: sty})
	}
	p.Add(markers...) // on top of every curve
	for _, m := range cdfMarks {
		legend.Add(m.name+" marker", &plotter.Scatter{GlyphStyle: draw.GlyphStyle{
			Color: color.RGBA{110, 110, 110, 255}, Radius: vg.Points(4.5), Shape: outlined{m.fill, m.edge}}})
	}
	setCDFAxes(p, lo, hi)

	area := draw.Crop(dc, vg.Points(8), -vg.Points(16), vg.Points(6), -vg.Points(10))
	p.Draw(area)
	da := p.DataCanvas(area)
	drawFrame(dc, da, true)
	drawLegendCard(dc, da, legend)
}

// curvePoints are cv's drawable points: latency above 0 and finite, the fraction held
// to 0..1.
func curvePoints(cv CDFCurve) plotter.XYs {
	var xys plotter.XYs
	for j, ms := range cv.Ms {
		if ms > 0 && !math.IsInf(ms, 1) {
			xys = append(xys, plotter.XY{X: ms, Y: math.Max(0, math.Min(1, cv.Fraction[j]))})
		}
	}
	return xys
}

// curveEntry is curve i's legend entry: its name, percentiles and note, and the earlier
// curve it lies on, when every percentile is within 3% of one's.
func curveEntry(curves []CDFCurve, i int) string {
	cv := curves[i]
	name := cv.Name
	if name == "" {
		name = fmt.Sprintf("curve %d", i+1)
	}
	entry := fmt.Sprintf("%s   p50 %s · p99 %s · p999 %s ms", name, fmtMs(cv.P50), fmtMs(cv.P99), fmtMs(cv.P999))
	if cv.Note != "" {
		entry += " · " + cv.Note
	}
	for _, o := range curves[:i] {
		if near(o.P50, cv.P50) && near(o.P99, cv.P99) && near(o.P999, cv.P999) {
			short, _, _ := strings.Cut(o.Name, ": ")
			return entry + " · on " + short + "'s curve"
		}
	}
	return entry
}

// setCDFAxes sets x to the latencies lo..hi on a log scale (a decade at least, and a
// little room at both ends), and y to the fraction 0..1 with headroom for the p999
// markers.
func setCDFAxes(p *plot.Plot, lo, hi float64) {
	if hi/lo < 10 {
		mid := math.Sqrt(lo * hi)
		lo, hi = math.Min(lo, mid/math.Sqrt(10)), math.Max(hi, mid*math.Sqrt(10))
	}
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = lo/1.15, hi*1.15
	p.X.Tick.Marker = logTicks{}
	p.X.Padding = 0
	p.Y.Min, p.Y.Max = 0, 1.03
	setYPadding(p, 0)
	p.Y.Tick.Marker = fixedTicks{
		{Value: 0, Label: "0"}, {Value: 0.1}, {Value: 0.2, Label: "0.2"}, {Value: 0.3}, {Value: 0.4, Label: "0.4"},
		{Value: 0.5}, {Value: 0.6, Label: "0.6"}, {Value: 0.7}, {Value: 0.8, Label: "0.8"}, {Value: 0.9}, {Value: 1, Label: "1"},
	}
}

// drawLegendCard draws legend in the bottom right corner of the data area da, on a white
// card.
func drawLegendCard(dc, da draw.Canvas, legend plot.Legend) {
	legend.Top, legend.Left = true, true
	size := legend.Rectangle(da).Size()
	inset, pad := vg.Points(16), vg.Points(6)
	lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: da.Max.X - inset - size.X, Y: da.Min.Y + inset},
		Max: vg.Point{X: da.Max.X - inset, Y: da.Min.Y + inset + size.Y},
	}}
	fillRect(dc, color.NRGBA{255, 255, 255, 235}, lc.Min.X-pad, lc.Min.Y-pad, lc.Max.X+pad, lc.Max.Y+pad)
	strokeRect(dc, draw.LineStyle{Color: color.RGBA{160, 160, 160, 255}, Width: vg.Points(0.5)},
		lc.Min.X-pad, lc.Min.Y-pad, lc.Max.X+pad, lc.Max.Y+pad)
	legend.Draw(lc)
}

// near reports whether two percentiles are within 3% of each other: their curves then lie
// on one another at the chart's scale.
func near(a, b float64) bool {
	return a > 0 && b > 0 && math.Abs(a-b) <= 0.03*math.Max(a, b)
}

// outlined draws a filled glyph with a dark outline.
type outlined struct{ fill, edge draw.GlyphDrawer }

// DrawGlyph implements draw.GlyphDrawer.
func (o outlined) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	o.fill.DrawGlyph(c, sty, pt)
	sty.Color = color.RGBA{20, 20, 20, 255}
	o.edge.DrawGlyph(c, sty, pt)
}

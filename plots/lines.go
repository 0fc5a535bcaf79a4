package plots

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

const linesMaxTimeLabels = 10

// WriteLines draws l to path as a LinesWidth × LinesHeight pixel chart: one line per
// series in distinct colours with a legend to the right of the plot, x axis "time" with
// at most ten ticks at round intervals labelled by l.TimeLabel (h:mm:ss of the seconds
// when nil), y axis labelled l.YLabel, log when l.LogY, and a dashed "SLO" line when
// l.SLO > 0. NaN values, and values ≤ 0 on a log axis, are gaps in their line; an
// isolated point between gaps is drawn as a dot.
//
// It returns an error, and writes nothing, when l has no times or no series, a series'
// length differs from len(Times), or Times are not finite and strictly increasing.
func WriteLines(path string, f Format, l Lines) error {
	if err := l.check(); err != nil {
		return err
	}
	return render(path, f, LinesWidth, LinesHeight, func(dc draw.Canvas) error {
		drawLines(dc, l)
		return nil
	})
}

func (l *Lines) check() error {
	switch {
	case len(l.Times) == 0:
		return fmt.Errorf("plots: lines %q have no times", l.Title)
	case len(l.Series) == 0:
		return fmt.Errorf("plots: lines %q have no series", l.Title)
	}
	for i, t := range l.Times {
		if !finite(t) || (i > 0 && t <= l.Times[i-1]) {
			return fmt.Errorf("plots: lines %q: times must be finite and increasing (times[%d] = %v)", l.Title, i, t)
		}
	}
	for _, s := range l.Series {
		if len(s.Y) != len(l.Times) {
			return fmt.Errorf("plots: lines %q series %q has %d values for %d times", l.Title, s.Name, len(s.Y), len(l.Times))
		}
		if (s.Lo != nil || s.Hi != nil) && (len(s.Lo) != len(s.Y) || len(s.Hi) != len(s.Y)) {
			return fmt.Errorf("plots: lines %q series %q: error bounds must have one value per point", l.Title, s.Name)
		}
	}
	if l.XTicks != nil && len(l.XTicks) != len(l.Times) {
		return fmt.Errorf("plots: lines %q has %d x tick labels for %d points", l.Title, len(l.XTicks), len(l.Times))
	}
	return nil
}

// segments splits the points (xs[i], ys[i]) into runs of drawable points: NaN and ±Inf
// (and, when logY, values ≤ 0) break a run.
func segments(xs, ys []float64, logY bool) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i, y := range ys {
		if !finite(y) || (logY && y <= 0) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: xs[i], Y: y})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func drawLines(dc draw.Canvas, l Lines) {
	fillBackground(dc)
	label := l.TimeLabel
	if label == nil {
		label = defaultTimeLabel
	}
	p := newPlot(l.Title, titleSize)
	p.X.Label.Text = "time"
	if l.XLabel != "" {
		p.X.Label.Text = l.XLabel
	}
	p.Y.Label.Text = l.YLabel

	t0, t1 := l.Times[0], l.Times[len(l.Times)-1]
	lo, hi := math.Inf(1), math.Inf(-1)
	legend := plot.NewLegend()
	legend.TextStyle = textStyle(legendSize)
	legend.ThumbnailWidth = vg.Points(28)
	legend.Top, legend.Left = true, true
	legend.Padding = vg.Points(4)

	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = colGrid, colGrid
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(grid)

	if l.SLO > 0 && finite(l.SLO) {
		slo := &plotter.Line{
			XYs:       plotter.XYs{{X: t0, Y: l.SLO}, {X: t1, Y: l.SLO}},
			LineStyle: draw.LineStyle{Color: colSLO, Width: vg.Points(1.5), Dashes: dashes},
		}
		p.Add(slo)
		lo, hi = l.SLO, l.SLO
	}
	var names []string
	for i, s := range l.Series {
		sty := draw.LineStyle{Color: colorOf(i), Width: vg.Points(2)}
		for _, seg := range segments(l.Times, s.Y, l.LogY) {
			for _, pt := range seg {
				lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
			}
			if len(seg) == 1 {
				p.Add(&plotter.Scatter{XYs: seg, GlyphStyle: draw.GlyphStyle{
					Color: colorOf(i), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}})
				continue
			}
			p.Add(&plotter.Line{XYs: seg, LineStyle: sty})
			if l.XTicks != nil {
				p.Add(&plotter.Scatter{XYs: seg, GlyphStyle: draw.GlyphStyle{
					Color: colorOf(i), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}})
			}
		}
		for j := range s.Lo {
			elo, ehi := s.Lo[j], s.Hi[j]
			if !finite(elo) || !finite(ehi) || (l.LogY && elo <= 0) {
				continue
			}
			lo, hi = math.Min(lo, elo), math.Max(hi, ehi)
			bar := plotter.XYs{{X: l.Times[j], Y: elo}, {X: l.Times[j], Y: ehi}}
			p.Add(&plotter.Line{XYs: bar, LineStyle: draw.LineStyle{Color: colorOf(i), Width: vg.Points(1.2)}})
			p.Add(&plotter.Scatter{XYs: bar, GlyphStyle: draw.GlyphStyle{Color: colorOf(i), Radius: vg.Points(4), Shape: hbarGlyph{}}})
		}
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("series %d", i+1)
		}
		// The legend takes at most a third of the chart's width; longer names are cut.
		name = shorten(legend.TextStyle, name, pixels(LinesWidth)/3-legend.ThumbnailWidth-vg.Points(24))
		legend.Add(name, &plotter.Line{LineStyle: sty})
		names = append(names, name)
	}
	if l.SLO > 0 && finite(l.SLO) {
		legend.Add("SLO", &plotter.Line{LineStyle: draw.LineStyle{Color: colSLO, Width: vg.Points(1.5), Dashes: dashes}})
		names = append(names, "SLO")
	}

	// Axes ranges and ticks.
	p.X.Min, p.X.Max = t0, t1
	if t1 == t0 {
		p.X.Min, p.X.Max = t0-1, t1+1
	}
	p.X.Padding = 0
	if l.LogY {
		if math.IsInf(lo, 1) {
			lo, hi = 1, 10
		}
		if hi/lo < 1.5 {
			lo, hi = lo/1.5, hi*1.5
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = lo/1.2, hi*1.2
		p.Y.Tick.Marker = logTicks{}
	} else {
		if math.IsInf(lo, 1) {
			lo, hi = 0, 1
		}
		lo = math.Min(lo, 0)
		if hi <= lo {
			hi = lo + 1
		}
		p.Y.Min, p.Y.Max = lo, hi+(hi-lo)*0.06
		p.Y.Tick.Marker = fixedTicks(linearTicks(p.Y.Min, p.Y.Max))
	}
	setYPadding(p, 0)

	var legendW vg.Length
	for _, n := range names {
		legendW = vg.Length(math.Max(float64(legendW), float64(legend.TextStyle.Width(n))))
	}
	legendW += legend.ThumbnailWidth + vg.Points(24)
	legendW = vg.Length(math.Min(float64(legendW), float64(dc.Max.X-dc.Min.X)/3))
	area := draw.Crop(dc, vg.Points(8), -(legendW + vg.Points(12)), vg.Points(6), -vg.Points(10))

	if l.XTicks != nil {
		// Categorical x: the points sit at their positions, labelled by value; a little room
		// at both ends keeps the end points and their error bars off the frame.
		pad := math.Max((t1-t0)*0.04, 0.5)
		p.X.Min, p.X.Max = t0-pad, t1+pad
		maxX := fitLabels(p.X.Tick.Label, l.XTicks, area.Max.X-area.Min.X-vg.Points(70), 25)
		every := labelEvery(len(l.XTicks), maxX)
		var ticks []plot.Tick
		for i, x := range l.Times {
			t := plot.Tick{Value: x}
			if i%every == 0 {
				t.Label = l.XTicks[i]
			}
			ticks = append(ticks, t)
		}
		p.X.Tick.Marker = fixedTicks(ticks)
	} else {
		samples := []string{label(t0), label((t0 + t1) / 2), label(t1)}
		maxX := fitLabels(p.X.Tick.Label, samples, area.Max.X-area.Min.X-vg.Points(70), linesMaxTimeLabels)
		p.X.Tick.Marker = fixedTicks(timeTicks(t0, t1, maxX, label))
	}

	area = fitFirstXLabel(p, area)
	p.Draw(area)
	da := p.DataCanvas(area)
	drawFrame(dc, da, true)
	lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: area.Max.X + vg.Points(12), Y: da.Min.Y},
		Max: vg.Point{X: dc.Max.X - vg.Points(4), Y: da.Max.Y},
	}}
	legend.Draw(lc)
}

// pixels converts a size in pixels at DPI to a vg length.
func pixels(n int) vg.Length { return vg.Length(n) * vg.Inch / DPI }

// shorten cuts name, ending it with an ellipsis, until it is at most maxW wide in sty.
func shorten(sty text.Style, name string, maxW vg.Length) string {
	if sty.Width(name) <= maxW {
		return name
	}
	r := []rune(name)
	for len(r) > 1 && sty.Width(string(r)+"…") > maxW {
		r = r[:len(r)-1]
	}
	return strings.TrimRight(string(r), " ,:(") + "…"
}

// hbarGlyph draws the horizontal cap of an error bar.
type hbarGlyph struct{}

func (hbarGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.StrokeLine2(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.2)}, pt.X-sty.Radius, pt.Y, pt.X+sty.Radius, pt.Y)
}

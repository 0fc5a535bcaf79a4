package plots

import (
	"fmt"
	"image/color"
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
// l.SLO > 0 and for each of l.Refs. The legend goes under the plot, in two columns, when a
// name would not fit in a third of the width to its right. NaN values, and values ≤ 0 on a log axis, are gaps in their line; an
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
		if !finite(t) || (i > 0 && t <= l.Times[i-1]) || (l.LogX && t <= 0) {
			return fmt.Errorf("plots: lines %q: times must be finite and increasing (times[%d] = %v)", l.Title, i, t)
		}
	}
	for _, s := range l.Series {
		if s.X != nil {
			if len(s.X) != len(s.Y) {
				return fmt.Errorf("plots: lines %q series %q has %d values for %d x positions", l.Title, s.Name, len(s.Y), len(s.X))
			}
			for i, x := range s.X {
				if !finite(x) || (i > 0 && x <= s.X[i-1]) || (l.LogX && x <= 0) {
					return fmt.Errorf("plots: lines %q series %q: x positions must be finite and increasing (x[%d] = %v)", l.Title, s.Name, i, x)
				}
			}
		} else if len(s.Y) != len(l.Times) {
			return fmt.Errorf("plots: lines %q series %q has %d values for %d times", l.Title, s.Name, len(s.Y), len(l.Times))
		}
		if (s.Lo != nil || s.Hi != nil) && (len(s.Lo) != len(s.Y) || len(s.Hi) != len(s.Y)) {
			return fmt.Errorf("plots: lines %q series %q: error bounds must have one value per point", l.Title, s.Name)
		}
		if s.Flag != nil && len(s.Flag) != len(s.Y) {
			return fmt.Errorf("plots: lines %q series %q: flags must have one value per point", l.Title, s.Name)
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

// drawLines draws l on dc. It returns the plot it drew, whose axis ranges and tick markers
// the tests read.
func drawLines(dc draw.Canvas, l Lines) *plot.Plot {
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
	refs := 0
	for _, r := range l.Refs {
		if !finite(r.Y) || (l.LogY && r.Y <= 0) {
			continue
		}
		refs++
		p.Add(&plotter.Line{
			XYs:       plotter.XYs{{X: t0, Y: r.Y}, {X: t1, Y: r.Y}},
			LineStyle: draw.LineStyle{Color: colSLO, Width: vg.Points(1.5), Dashes: dashes},
		})
		if r.Label != "" {
			if lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: t0, Y: r.Y}}, Labels: []string{" " + r.Label}}); err == nil {
				for k := range lab.TextStyle { // under the line: the top one stays inside the frame
					lab.TextStyle[k] = textStyle(legendSize)
					lab.TextStyle[k].Color = colSLO
					lab.TextStyle[k].YAlign = draw.YTop
				}
				lab.Offset = vg.Point{Y: -vg.Points(2)}
				p.Add(lab)
			}
		}
		lo, hi = math.Min(lo, r.Y), math.Max(hi, r.Y)
	}
	var names []string            // the legend's entries, in order,
	var thumbs []plot.Thumbnailer // with their thumbnails
	type errBar struct {
		x, lo, hi float64
		col       color.RGBA
	}
	var bars []errBar
	blo, bhi := math.Inf(1), math.Inf(-1) // the error bars' ends
	var flagged, stopped, failing plotter.XYs
	for i, s := range l.Series {
		sty := draw.LineStyle{Color: colorOf(i), Width: vg.Points(2)}
		if l.Distinct {
			sty.Width = vg.Points(math.Max(1.2, 5-0.9*float64(i)))
			sty.Dashes = distinctDashes[i%len(distinctDashes)]
		}
		xs := l.Times
		if s.X != nil {
			xs = s.X
		}
		if len(s.Dots) > 0 {
			var dots plotter.XYs
			for _, d := range s.Dots {
				if finite(d.X) && finite(d.Y) && !(l.LogY && d.Y <= 0) && !(l.LogX && d.X <= 0) {
					dots = append(dots, plotter.XY{X: d.X, Y: d.Y})
					lo, hi = math.Min(lo, d.Y), math.Max(hi, d.Y)
				}
			}
			if len(dots) > 0 {
				p.Add(&plotter.Scatter{XYs: dots, GlyphStyle: draw.GlyphStyle{Color: colorOf(i), Radius: vg.Points(2), Shape: draw.RingGlyph{}}})
			}
		}
		for j, f := range s.Flag {
			if f && finite(s.Y[j]) && !(l.LogY && s.Y[j] <= 0) {
				flagged = append(flagged, plotter.XY{X: xs[j], Y: s.Y[j]})
			}
		}
		for j, f := range s.Stopped {
			if f && j < len(s.Y) && finite(s.Y[j]) && !(l.LogY && s.Y[j] <= 0) {
				stopped = append(stopped, plotter.XY{X: xs[j], Y: s.Y[j]})
			}
		}
		var notes plotter.XYLabels
		for j, f := range s.Failing {
			if f && j < len(s.Y) && finite(s.Y[j]) && !(l.LogY && s.Y[j] <= 0) {
				failing = append(failing, plotter.XY{X: xs[j], Y: s.Y[j]})
				if j < len(s.Notes) && s.Notes[j] != "" {
					notes.XYs = append(notes.XYs, plotter.XY{X: xs[j], Y: s.Y[j]})
					notes.Labels = append(notes.Labels, s.Notes[j])
				}
			}
		}
		if len(notes.XYs) > 0 {
			if lab, err := plotter.NewLabels(notes); err == nil {
				for k := range lab.TextStyle {
					lab.TextStyle[k].Color = colorOf(i)
					lab.TextStyle[k].Font.Size = vg.Points(7)
				}
				lab.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
				p.Add(lab)
			}
		}
		for _, seg := range segments(xs, s.Y, l.LogY) {
			for _, pt := range seg {
				lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
			}
			if len(seg) == 1 {
				p.Add(&plotter.Scatter{XYs: seg, GlyphStyle: draw.GlyphStyle{
					Color: colorOf(i), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}})
				continue
			}
			// Into and between points past the error limit the line is dashed: there the
			// latency is of the completed requests only, and falls as more fail.
			dashed := sty
			dashed.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			for _, piece := range splitFailing(seg, xs, s.Failing) {
				if piece.failing {
					p.Add(&plotter.Line{XYs: piece.xys, LineStyle: dashed})
				} else {
					p.Add(&plotter.Line{XYs: piece.xys, LineStyle: sty})
				}
			}
			if l.XTicks != nil {
				p.Add(&plotter.Scatter{XYs: seg, GlyphStyle: draw.GlyphStyle{
					Color: colorOf(i), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}})
			}
		}
		for j := range s.Lo {
			elo, ehi := s.Lo[j], s.Hi[j]
			if math.IsNaN(elo) && math.IsNaN(ehi) {
				continue
			}
			// The drawable ends widen the axis, within limits (below); the others are cut
			// at it when drawn.
			if finite(elo) && !(l.LogY && elo <= 0) {
				blo = math.Min(blo, elo)
			}
			if finite(ehi) && !(l.LogY && ehi <= 0) {
				bhi = math.Max(bhi, ehi)
			}
			bars = append(bars, errBar{x: xs[j], lo: elo, hi: ehi, col: colorOf(i)})
		}
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("series %d", i+1)
		}
		thumbs = append(thumbs, &plotter.Line{LineStyle: sty})
		names = append(names, name)
	}
	if refs > 0 && !(l.SLO > 0 && finite(l.SLO)) {
		name := l.RefLabel
		if name == "" {
			name = "SLO"
		}
		thumbs = append(thumbs, &plotter.Line{LineStyle: draw.LineStyle{Color: colSLO, Width: vg.Points(1.5), Dashes: dashes}})
		names = append(names, name)
	}
	if l.SLO > 0 && finite(l.SLO) {
		name := l.RefLabel
		if name == "" {
			name = "SLO"
		}
		thumbs = append(thumbs, &plotter.Line{LineStyle: draw.LineStyle{Color: colSLO, Width: vg.Points(1.5), Dashes: dashes}})
		names = append(names, name)
	}
	if len(flagged) > 0 {
		ring := draw.GlyphStyle{Color: colBlack, Radius: vg.Points(7), Shape: draw.RingGlyph{}}
		p.Add(&plotter.Scatter{XYs: flagged, GlyphStyle: ring})
		name := l.FlagLabel
		if name == "" {
			name = "replications disagree"
		}
		thumbs = append(thumbs, &plotter.Scatter{GlyphStyle: ring})
		names = append(names, name)
	}
	if len(stopped) > 0 {
		cross := draw.GlyphStyle{Color: colBlack, Radius: vg.Points(6), Shape: draw.CrossGlyph{}}
		p.Add(&plotter.Scatter{XYs: stopped, GlyphStyle: cross})
		thumbs = append(thumbs, &plotter.Scatter{GlyphStyle: cross})
		names = append(names, "run stopped: saturated")
	}
	if len(failing) > 0 {
		box := draw.GlyphStyle{Color: colBlack, Radius: vg.Points(6), Shape: draw.SquareGlyph{}}
		p.Add(&plotter.Scatter{XYs: failing, GlyphStyle: box})
		thumbs = append(thumbs, &plotter.Scatter{GlyphStyle: box})
		names = append(names, "errors over limit")
	}
	if len(l.Marks) > 0 {
		thumbs = append(thumbs, &plotter.Line{LineStyle: draw.LineStyle{Color: colSLO, Width: vg.Points(1.2), Dashes: dots}})
		names = append(names, "answer")
	}

	// Error bars widen the y axis by at most a decade (log) or half the points' span
	// (linear) beyond the points and the SLO; an end farther out is cut at the axis.
	if !math.IsInf(lo, 1) {
		if l.LogY {
			lo, hi = math.Max(math.Min(lo, blo), lo/10), math.Min(math.Max(hi, bhi), hi*10)
		} else {
			span := math.Max(hi-lo, math.Abs(hi)*0.1)
			lo, hi = math.Max(math.Min(lo, blo), lo-span/2), math.Min(math.Max(hi, bhi), hi+span/2)
		}
	}

	// Axes ranges and ticks.
	p.X.Min, p.X.Max = t0, t1
	if t1 == t0 {
		p.X.Min, p.X.Max = t0-1, t1+1
		if l.LogX {
			p.X.Min, p.X.Max = t0/2, t1*2
		}
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

	// The legend goes to the right of the plot, in at most a third of the chart's width;
	// when a name would not fit there, it goes under the plot in two columns of the full
	// width instead, so that no name is cut (variants are told apart by their names).
	var legendW vg.Length
	for _, n := range names {
		legendW = vg.Length(math.Max(float64(legendW), float64(legend.TextStyle.Width(n))))
	}
	legendW += legend.ThumbnailWidth + vg.Points(24)
	width := dc.Max.X - dc.Min.X
	below := legendW > width/3
	var area draw.Canvas
	var belowH vg.Length
	if below {
		rows := (len(names) + 1) / 2
		belowH = vg.Length(rows)*(legend.TextStyle.Height("Xg")+vg.Points(3)) + vg.Points(10)
		area = draw.Crop(dc, vg.Points(8), -vg.Points(16), belowH+vg.Points(4), -vg.Points(10))
		for i, n := range names { // a name longer than a column is cut after all
			names[i] = shorten(legend.TextStyle, n, width/2-legend.ThumbnailWidth-vg.Points(30))
		}
	} else {
		area = draw.Crop(dc, vg.Points(8), -(legendW + vg.Points(12)), vg.Points(6), -vg.Points(10))
	}

	if l.Numeric {
		// A number axis: a little room at both ends keeps the end points off the frame.
		if l.LogX {
			pad := math.Pow(p.X.Max/p.X.Min, 0.04)
			p.X.Min, p.X.Max = p.X.Min/pad, p.X.Max*pad
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = logTicks{}
		} else {
			pad := (p.X.Max - p.X.Min) * 0.04
			p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
			p.X.Tick.Marker = fixedTicks(numberTicks(p.X.Min, p.X.Max))
		}
	} else if l.XTicks != nil {
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

	// Error bars, now that the axis is known: an end beyond it is cut there, with an
	// arrow head.
	for _, b := range bars {
		bl, bh, cutLo, cutHi := cutBar(b.lo, b.hi, p.Y.Min, p.Y.Max, l.LogY)
		bar := plotter.XYs{{X: b.x, Y: bl}, {X: b.x, Y: bh}}
		p.Add(&plotter.Line{XYs: bar, LineStyle: draw.LineStyle{Color: b.col, Width: vg.Points(1.2)}})
		ends := []struct {
			y   float64
			cut bool
			dir float64
		}{{bl, cutLo, -1}, {bh, cutHi, 1}}
		for _, e := range ends {
			g := draw.GlyphDrawer(hbarGlyph{})
			if e.cut {
				g = arrowGlyph{dir: e.dir}
			}
			p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: b.x, Y: e.y}}, GlyphStyle: draw.GlyphStyle{Color: b.col, Radius: vg.Points(4), Shape: g}})
		}
	}
	// Labels of marks stack down from the top, one line each, so that close marks stay
	// legible.
	for i, m := range l.Marks {
		if !finite(m.X) || m.X < p.X.Min || m.X > p.X.Max {
			continue
		}
		p.Add(&plotter.Line{XYs: plotter.XYs{{X: m.X, Y: p.Y.Min}, {X: m.X, Y: p.Y.Max}},
			LineStyle: draw.LineStyle{Color: colorOf(m.Series), Width: vg.Points(1.2), Dashes: dots}})
		if m.Label != "" {
			lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: m.X, Y: p.Y.Max}}, Labels: []string{" " + m.Label}})
			if err == nil {
				for k := range lab.TextStyle {
					lab.TextStyle[k] = textStyle(legendSize)
					lab.TextStyle[k].Color = colorOf(m.Series)
					lab.TextStyle[k].YAlign = draw.YTop
				}
				lab.Offset = vg.Point{Y: -vg.Length(i) * vg.Points(1.3*legendSize)}
				p.Add(lab)
			}
		}
	}

	area = fitFirstXLabel(p, area)
	// gonum/plot centres the title over the plot's area, which a wide legend narrows: a
	// title wider than that area would start off the chart. It is then drawn over the whole
	// chart instead, in the line the plot keeps for it.
	title := p.Title.Text
	wide := p.Title.TextStyle.Width(title) > area.Max.X-area.Min.X
	if wide {
		p.Title.Text = " "
	}
	p.Draw(area)
	if wide {
		sty := p.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		w := sty.Width(title)
		x := math.Max(float64((dc.Min.X+dc.Max.X)/2), float64(dc.Min.X+vg.Points(8)+w/2))
		dc.FillText(sty, vg.Point{X: vg.Length(x), Y: area.Max.Y}, title)
	}
	da := p.DataCanvas(area)
	drawFrame(dc, da, true)
	fill := func(from, to int) plot.Legend {
		lg := legend
		for i := from; i < to; i++ {
			lg.Add(names[i], thumbs[i])
		}
		return lg
	}
	if !below {
		lg := fill(0, len(names))
		lg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Max.X + vg.Points(12), Y: da.Min.Y},
			Max: vg.Point{X: dc.Max.X - vg.Points(4), Y: da.Max.Y},
		}})
		return p
	}
	// Two columns under the plot: the first half of the entries on the left.
	half := (len(names) + 1) / 2
	for c, part := range [][2]int{{0, half}, {half, len(names)}} {
		lg := fill(part[0], part[1])
		x0 := da.Min.X + vg.Length(c)*(dc.Max.X-da.Min.X)/2
		lg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x0, Y: dc.Min.Y + vg.Points(4)},
			Max: vg.Point{X: x0 + (dc.Max.X-da.Min.X)/2, Y: dc.Min.Y + belowH},
		}})
	}
	return p
}

// distinctDashes are the dash patterns of Lines.Distinct: solid, long dashes, dots,
// dash-dot, even dashes, sparse dots.
var distinctDashes = [][]vg.Length{
	nil,
	{vg.Points(10), vg.Points(4)},
	{vg.Points(2), vg.Points(3)},
	{vg.Points(10), vg.Points(3), vg.Points(2), vg.Points(3)},
	{vg.Points(5), vg.Points(5)},
	{vg.Points(1.5), vg.Points(6)},
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

// arrowGlyph is a triangle pointing down (dir -1) or up (dir 1): an error bar cut at the
// axis.
type arrowGlyph struct{ dir float64 }

func (a arrowGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	tip := vg.Point{X: pt.X, Y: pt.Y + vg.Length(a.dir)*r}
	base := pt.Y - vg.Length(a.dir)*r/2
	var path vg.Path
	path.Move(tip)
	path.Line(vg.Point{X: pt.X - r, Y: base})
	path.Line(vg.Point{X: pt.X + r, Y: base})
	path.Close()
	c.SetColor(sty.Color)
	c.Fill(path)
}

// cutBar fits an error bar [lo, hi] into the axis [min, max]: an end that is NaN, infinite,
// beyond the axis or (on a log axis) at or under 0 is moved to the axis and reported cut.
func cutBar(lo, hi, min, max float64, logY bool) (bl, bh float64, cutLo, cutHi bool) {
	bl, bh = lo, hi
	if cutLo = !finite(lo) || (logY && lo <= 0) || lo < min; cutLo {
		bl = min
	}
	if cutHi = !finite(hi) || hi > max; cutHi {
		bh = max
	}
	return bl, bh, cutLo, cutHi
}

// piece is a run of a line's points drawn in one style.
type piece struct {
	xys     plotter.XYs
	failing bool
}

// splitFailing cuts a segment of a series into pieces: a step between two points is
// failing when either end is a point of failing (by its x position in xs).
func splitFailing(seg plotter.XYs, xs []float64, failing []bool) []piece {
	bad := map[float64]bool{}
	for j, f := range failing {
		if f && j < len(xs) {
			bad[xs[j]] = true
		}
	}
	if len(bad) == 0 {
		return []piece{{xys: seg}}
	}
	var out []piece
	for k := 0; k+1 < len(seg); k++ {
		f := bad[seg[k].X] || bad[seg[k+1].X]
		if n := len(out); n > 0 && out[n-1].failing == f {
			out[n-1].xys = append(out[n-1].xys, seg[k+1])
			continue
		}
		out = append(out, piece{xys: plotter.XYs{seg[k], seg[k+1]}, failing: f})
	}
	return out
}

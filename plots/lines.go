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
	return writeChart(path, f, LinesWidth, LinesHeight, l.check, func(dc draw.Canvas) { drawLines(dc, l) })
}

// check returns the first problem that keeps l from being drawn, in the order WriteLines
// documents.
func (l *Lines) check() error {
	switch {
	case len(l.Times) == 0:
		return fmt.Errorf("plots: lines %q have no times", l.Title)
	case len(l.Series) == 0:
		return fmt.Errorf("plots: lines %q have no series", l.Title)
	}
	if i := firstUnordered(l.Times, l.LogX); i >= 0 {
		return fmt.Errorf("plots: lines %q: times must be finite and increasing (times[%d] = %v)", l.Title, i, l.Times[i])
	}
	for _, s := range l.Series {
		if err := l.checkSeries(s); err != nil {
			return err
		}
	}
	if l.XTicks != nil && len(l.XTicks) != len(l.Times) {
		return fmt.Errorf("plots: lines %q has %d x tick labels for %d points", l.Title, len(l.XTicks), len(l.Times))
	}
	return nil
}

// checkSeries returns the first problem with s: its x positions (or its length against
// l.Times when it has none), then its error bounds and flags, one per point.
func (l *Lines) checkSeries(s Series) error {
	if s.X != nil {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plots: lines %q series %q has %d values for %d x positions", l.Title, s.Name, len(s.Y), len(s.X))
		}
		if i := firstUnordered(s.X, l.LogX); i >= 0 {
			return fmt.Errorf("plots: lines %q series %q: x positions must be finite and increasing (x[%d] = %v)", l.Title, s.Name, i, s.X[i])
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
	return nil
}

// firstUnordered returns the index of the first of xs that is not finite, not above the
// one before it, or (when positive, for a log axis) not above 0; -1 when there is none.
func firstUnordered(xs []float64, positive bool) int {
	for i, x := range xs {
		if !finite(x) || (i > 0 && x <= xs[i-1]) || (positive && x <= 0) {
			return i
		}
	}
	return -1
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
	c := newLinesChart(l)
	c.addThresholds()
	for i, s := range l.Series {
		c.addSeries(i, s)
	}
	c.addThresholdEntry()
	c.addMarkers()
	c.setXRange()
	c.setYAxis()
	lg, area := c.layoutLegend(dc)
	c.setXTicks(area)
	c.addErrorBars()
	c.addMarks()

	area = fitFirstXLabel(c.p, area)
	drawWithTitle(dc, c.p, area)
	da := c.p.DataCanvas(area)
	drawFrame(dc, da, true)
	lg.draw(dc, area, da, c.names, c.thumbs)
	return c.p
}

// linesChart is a Lines chart being drawn: the plot, and what the series add up to before
// the axes can be set (the y range of every drawable value, the error bars and the marked
// points, the legend's entries).
type linesChart struct {
	l      Lines
	p      *plot.Plot
	t0, t1 float64 // the first and last of l.Times

	lo, hi   float64 // the y range of the points, dots and thresholds
	blo, bhi float64 // the error bars' drawable ends
	bars     []errBar
	refs     int // the drawable l.Refs

	flagged, stopped, failing plotter.XYs // the points to circle, cross and box

	names  []string           // the legend's entries, in order,
	thumbs []plot.Thumbnailer // with their thumbnails
}

// errBar is an error bar at x from lo to hi, in its series' colour.
type errBar struct {
	x, lo, hi float64
	col       color.RGBA
}

// newLinesChart starts the chart of l: the plot with its title, axis labels and grid.
func newLinesChart(l Lines) *linesChart {
	p := newPlot(l.Title, titleSize)
	p.X.Label.Text = "time"
	if l.XLabel != "" {
		p.X.Label.Text = l.XLabel
	}
	p.Y.Label.Text = l.YLabel
	p.Add(newGrid())
	return &linesChart{l: l, p: p, t0: l.Times[0], t1: l.Times[len(l.Times)-1],
		lo: math.Inf(1), hi: math.Inf(-1), blo: math.Inf(1), bhi: math.Inf(-1)}
}

// drawable reports whether v can be drawn on its axis: finite, and above 0 on a log axis.
func drawable(v float64, log bool) bool { return finite(v) && !(log && v <= 0) }

// widen extends the y range to cover y.
func (c *linesChart) widen(y float64) { c.lo, c.hi = math.Min(c.lo, y), math.Max(c.hi, y) }

// addEntry adds a legend entry.
func (c *linesChart) addEntry(name string, thumb plot.Thumbnailer) {
	c.names = append(c.names, name)
	c.thumbs = append(c.thumbs, thumb)
}

// sloDrawn reports whether l.SLO is drawn.
func (c *linesChart) sloDrawn() bool { return c.l.SLO > 0 && finite(c.l.SLO) }

// thresholdStyle is the dashed line of an SLO or a reference.
var thresholdStyle = draw.LineStyle{Color: colSLO, Width: vg.Points(1.5), Dashes: dashes}

// addThresholds draws the SLO and each drawable reference across the whole x range, a
// reference with its label under its left end, and widens the y range to them.
func (c *linesChart) addThresholds() {
	across := func(y float64) *plotter.Line {
		return &plotter.Line{XYs: plotter.XYs{{X: c.t0, Y: y}, {X: c.t1, Y: y}}, LineStyle: thresholdStyle}
	}
	if c.sloDrawn() {
		c.p.Add(across(c.l.SLO))
		c.lo, c.hi = c.l.SLO, c.l.SLO
	}
	for _, r := range c.l.Refs {
		if !drawable(r.Y, c.l.LogY) {
			continue
		}
		c.refs++
		c.p.Add(across(r.Y))
		if r.Label != "" {
			// Under the line: the top one stays inside the frame.
			if lab := hangingLabel(plotter.XY{X: c.t0, Y: r.Y}, r.Label, colSLO, -vg.Points(2)); lab != nil {
				c.p.Add(lab)
			}
		}
		c.widen(r.Y)
	}
}

// hangingLabel is label hanging from pt (its top at pt, moved by dy), in the legend's size
// and col; nil when gonum/plot refuses it.
func hangingLabel(pt plotter.XY, label string, col color.Color, dy vg.Length) *plotter.Labels {
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{pt}, Labels: []string{" " + label}})
	if err != nil {
		return nil
	}
	for k := range lab.TextStyle {
		lab.TextStyle[k] = textStyle(legendSize)
		lab.TextStyle[k].Color = col
		lab.TextStyle[k].YAlign = draw.YTop
	}
	lab.Offset = vg.Point{Y: dy}
	return lab
}

// addSeries draws series i: its dots, the notes by its failing points, its line and a
// legend entry; it keeps its marked points and error bars for later, and widens the y
// range to what it drew.
func (c *linesChart) addSeries(i int, s Series) {
	sty := draw.LineStyle{Color: colorOf(i), Width: vg.Points(2)}
	if c.l.Distinct {
		sty.Width = vg.Points(math.Max(1.2, 5-0.9*float64(i)))
		sty.Dashes = distinctDashes[i%len(distinctDashes)]
	}
	xs := c.l.Times
	if s.X != nil {
		xs = s.X
	}
	c.addDots(i, s.Dots)
	c.flagged = append(c.flagged, markedPoints(s.Flag, xs, s.Y, c.l.LogY)...)
	c.stopped = append(c.stopped, markedPoints(s.Stopped, xs, s.Y, c.l.LogY)...)
	c.failing = append(c.failing, markedPoints(s.Failing, xs, s.Y, c.l.LogY)...)
	c.addNotes(i, s, xs)
	c.addLine(i, sty, xs, s)
	c.keepBars(i, xs, s)
	name := s.Name
	if name == "" {
		name = fmt.Sprintf("series %d", i+1)
	}
	c.addEntry(name, &plotter.Line{LineStyle: sty})
}

// addDots draws series i's drawable loose points as small rings.
func (c *linesChart) addDots(i int, dots []Point) {
	var xys plotter.XYs
	for _, d := range dots {
		if drawable(d.X, c.l.LogX) && drawable(d.Y, c.l.LogY) {
			xys = append(xys, plotter.XY{X: d.X, Y: d.Y})
			c.widen(d.Y)
		}
	}
	if len(xys) > 0 {
		c.p.Add(&plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: colorOf(i), Radius: vg.Points(2), Shape: draw.RingGlyph{}}})
	}
}

// markedPoints are the drawable points (xs[j], ys[j]) where marks[j] is true.
func markedPoints(marks []bool, xs, ys []float64, logY bool) plotter.XYs {
	var out plotter.XYs
	for j, m := range marks {
		if m && j < len(ys) && drawable(ys[j], logY) {
			out = append(out, plotter.XY{X: xs[j], Y: ys[j]})
		}
	}
	return out
}

// addNotes writes series i's notes beside its drawable failing points, in its colour.
func (c *linesChart) addNotes(i int, s Series, xs []float64) {
	var notes plotter.XYLabels
	for j, f := range s.Failing {
		if f && j < len(s.Y) && drawable(s.Y[j], c.l.LogY) && j < len(s.Notes) && s.Notes[j] != "" {
			notes.XYs = append(notes.XYs, plotter.XY{X: xs[j], Y: s.Y[j]})
			notes.Labels = append(notes.Labels, s.Notes[j])
		}
	}
	if len(notes.XYs) == 0 {
		return
	}
	lab, err := plotter.NewLabels(notes)
	if err != nil {
		return
	}
	for k := range lab.TextStyle {
		lab.TextStyle[k].Color = colorOf(i)
		lab.TextStyle[k].Font.Size = vg.Points(7)
	}
	lab.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
	c.p.Add(lab)
}

// addLine draws series i's runs of drawable points in sty (an isolated point as a dot),
// dashed into and between failing points, each point marked on a categorical x axis.
func (c *linesChart) addLine(i int, sty draw.LineStyle, xs []float64, s Series) {
	// Into and between points past the error limit the line is dashed: there the
	// latency is of the completed requests only, and falls as more fail.
	dashed := sty
	dashed.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	for _, seg := range segments(xs, s.Y, c.l.LogY) {
		for _, pt := range seg {
			c.widen(pt.Y)
		}
		if len(seg) == 1 {
			c.p.Add(&plotter.Scatter{XYs: seg, GlyphStyle: draw.GlyphStyle{
				Color: colorOf(i), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}})
			continue
		}
		for _, piece := range splitFailing(seg, xs, s.Failing) {
			if piece.failing {
				c.p.Add(&plotter.Line{XYs: piece.xys, LineStyle: dashed})
			} else {
				c.p.Add(&plotter.Line{XYs: piece.xys, LineStyle: sty})
			}
		}
		if c.l.XTicks != nil {
			c.p.Add(&plotter.Scatter{XYs: seg, GlyphStyle: draw.GlyphStyle{
				Color: colorOf(i), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}})
		}
	}
}

// keepBars keeps series i's error bars to draw once the y axis is known, and the range of
// their drawable ends, which widen the axis within limits (setYAxis); the other ends are
// cut at the axis when drawn.
func (c *linesChart) keepBars(i int, xs []float64, s Series) {
	for j := range s.Lo {
		elo, ehi := s.Lo[j], s.Hi[j]
		if math.IsNaN(elo) && math.IsNaN(ehi) {
			continue
		}
		if drawable(elo, c.l.LogY) {
			c.blo = math.Min(c.blo, elo)
		}
		if drawable(ehi, c.l.LogY) {
			c.bhi = math.Max(c.bhi, ehi)
		}
		c.bars = append(c.bars, errBar{x: xs[j], lo: elo, hi: ehi, col: colorOf(i)})
	}
}

// addThresholdEntry names the SLO and references in the legend, once for all of them.
func (c *linesChart) addThresholdEntry() {
	if c.refs == 0 && !c.sloDrawn() {
		return
	}
	name := c.l.RefLabel
	if name == "" {
		name = "SLO"
	}
	c.addEntry(name, &plotter.Line{LineStyle: thresholdStyle})
}

// addMarkers draws the flagged, stopped and failing points of every series, each kind
// over the lines in its own black glyph with a legend entry, and names the marks' lines
// in the legend.
func (c *linesChart) addMarkers() {
	flagName := c.l.FlagLabel
	if flagName == "" {
		flagName = "replications disagree"
	}
	for _, m := range []struct {
		xys   plotter.XYs
		glyph draw.GlyphStyle
		name  string
	}{
		{c.flagged, draw.GlyphStyle{Color: colBlack, Radius: vg.Points(7), Shape: draw.RingGlyph{}}, flagName},
		{c.stopped, draw.GlyphStyle{Color: colBlack, Radius: vg.Points(6), Shape: draw.CrossGlyph{}}, "run stopped: saturated"},
		{c.failing, draw.GlyphStyle{Color: colBlack, Radius: vg.Points(6), Shape: draw.SquareGlyph{}}, "errors over limit"},
	} {
		if len(m.xys) > 0 {
			c.p.Add(&plotter.Scatter{XYs: m.xys, GlyphStyle: m.glyph})
			c.addEntry(m.name, &plotter.Scatter{GlyphStyle: m.glyph})
		}
	}
	if len(c.l.Marks) > 0 {
		c.addEntry("answer", &plotter.Line{LineStyle: draw.LineStyle{Color: colSLO, Width: vg.Points(1.2), Dashes: dots}})
	}
}

// setXRange sets the x axis to l.Times' span (a little around a single time).
func (c *linesChart) setXRange() {
	p := c.p
	p.X.Min, p.X.Max = c.t0, c.t1
	if c.t1 == c.t0 {
		p.X.Min, p.X.Max = c.t0-1, c.t1+1
		if c.l.LogX {
			p.X.Min, p.X.Max = c.t0/2, c.t1*2
		}
	}
	p.X.Padding = 0
}

// setYAxis sets the y axis's range, scale and ticks: the drawn values and the error bars
// (widenForBars), with room at the top; log from a little under the lowest, linear from
// 0 or below.
func (c *linesChart) setYAxis() {
	lo, hi := c.widenForBars()
	p := c.p
	if c.l.LogY {
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
}

// widenForBars is the y range of the drawn values widened by the error bars, by at most a
// decade (log) or half the values' span (linear) beyond them; an end farther out is cut
// at the axis.
func (c *linesChart) widenForBars() (lo, hi float64) {
	lo, hi = c.lo, c.hi
	if math.IsInf(lo, 1) {
		return lo, hi
	}
	if c.l.LogY {
		return math.Max(math.Min(lo, c.blo), lo/10), math.Min(math.Max(hi, c.bhi), hi*10)
	}
	span := math.Max(hi-lo, math.Abs(hi)*0.1)
	return math.Max(math.Min(lo, c.blo), lo-span/2), math.Min(math.Max(hi, c.bhi), hi+span/2)
}

// linesLegend is where a Lines chart's legend goes: to the right of the plot, or under it
// in two columns of belowH.
type linesLegend struct {
	plot.Legend
	below  bool
	belowH vg.Length
}

// layoutLegend places the legend and returns the area left for the plot. The legend goes
// to the right of the plot, in at most a third of the chart's width; when a name would
// not fit there, it goes under the plot in two columns of the full width instead, so that
// no name is cut (variants are told apart by their names); a name longer than a column is
// cut after all.
func (c *linesChart) layoutLegend(dc draw.Canvas) (linesLegend, draw.Canvas) {
	lg := linesLegend{Legend: plot.NewLegend()}
	lg.TextStyle = textStyle(legendSize)
	lg.ThumbnailWidth = vg.Points(28)
	lg.Top, lg.Left = true, true
	lg.Padding = vg.Points(4)

	var legendW vg.Length
	for _, n := range c.names {
		legendW = vg.Length(math.Max(float64(legendW), float64(lg.TextStyle.Width(n))))
	}
	legendW += lg.ThumbnailWidth + vg.Points(24)
	width := dc.Max.X - dc.Min.X
	if lg.below = legendW > width/3; !lg.below {
		return lg, draw.Crop(dc, vg.Points(8), -(legendW + vg.Points(12)), vg.Points(6), -vg.Points(10))
	}
	rows := (len(c.names) + 1) / 2
	lg.belowH = vg.Length(rows)*(lg.TextStyle.Height("Xg")+vg.Points(3)) + vg.Points(10)
	for i, n := range c.names {
		c.names[i] = shorten(lg.TextStyle, n, width/2-lg.ThumbnailWidth-vg.Points(30))
	}
	return lg, draw.Crop(dc, vg.Points(8), -vg.Points(16), lg.belowH+vg.Points(4), -vg.Points(10))
}

// draw draws the legend's entries (names[i] with thumbs[i]) beside the plot drawn in area
// (its data area da), or under it with the first half of them in the left column.
func (lg linesLegend) draw(dc, area, da draw.Canvas, names []string, thumbs []plot.Thumbnailer) {
	fill := func(from, to int) plot.Legend {
		l := lg.Legend
		for i := from; i < to; i++ {
			l.Add(names[i], thumbs[i])
		}
		return l
	}
	if !lg.below {
		l := fill(0, len(names))
		l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Max.X + vg.Points(12), Y: da.Min.Y},
			Max: vg.Point{X: dc.Max.X - vg.Points(4), Y: da.Max.Y},
		}})
		return
	}
	half := (len(names) + 1) / 2
	for c, part := range [][2]int{{0, half}, {half, len(names)}} {
		l := fill(part[0], part[1])
		x0 := da.Min.X + vg.Length(c)*(dc.Max.X-da.Min.X)/2
		l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x0, Y: dc.Min.Y + vg.Points(4)},
			Max: vg.Point{X: x0 + (dc.Max.X-da.Min.X)/2, Y: dc.Min.Y + lg.belowH},
		}})
	}
}

// setXTicks sets the x axis's ticks, and its room at the ends, for the kind of axis l
// asks: numbers, categories or times, the labels fitted to the plot's area.
func (c *linesChart) setXTicks(area draw.Canvas) {
	switch {
	case c.l.Numeric:
		c.setNumberTicks()
	case c.l.XTicks != nil:
		c.setCategoryTicks(area)
	default:
		label := c.l.TimeLabel
		if label == nil {
			label = defaultTimeLabel
		}
		samples := []string{label(c.t0), label((c.t0 + c.t1) / 2), label(c.t1)}
		maxX := fitLabels(c.p.X.Tick.Label, samples, area.Max.X-area.Min.X-vg.Points(70), linesMaxTimeLabels)
		c.p.X.Tick.Marker = fixedTicks(timeTicks(c.t0, c.t1, maxX, label))
	}
}

// setNumberTicks makes x a number axis, log when l.LogX: a little room at both ends keeps
// the end points off the frame.
func (c *linesChart) setNumberTicks() {
	x := &c.p.X
	if c.l.LogX {
		pad := math.Pow(x.Max/x.Min, 0.04)
		x.Min, x.Max = x.Min/pad, x.Max*pad
		x.Scale = plot.LogScale{}
		x.Tick.Marker = logTicks{}
		return
	}
	pad := (x.Max - x.Min) * 0.04
	x.Min, x.Max = x.Min-pad, x.Max+pad
	x.Tick.Marker = fixedTicks(numberTicks(x.Min, x.Max))
}

// setCategoryTicks makes x categorical: the points sit at their positions, labelled by
// l.XTicks (as many as fit in area); a little room at both ends keeps the end points and
// their error bars off the frame.
func (c *linesChart) setCategoryTicks(area draw.Canvas) {
	pad := math.Max((c.t1-c.t0)*0.04, 0.5)
	c.p.X.Min, c.p.X.Max = c.t0-pad, c.t1+pad
	maxX := fitLabels(c.p.X.Tick.Label, c.l.XTicks, area.Max.X-area.Min.X-vg.Points(70), 25)
	every := labelEvery(len(c.l.XTicks), maxX)
	var ticks []plot.Tick
	for i, x := range c.l.Times {
		t := plot.Tick{Value: x}
		if i%every == 0 {
			t.Label = c.l.XTicks[i]
		}
		ticks = append(ticks, t)
	}
	c.p.X.Tick.Marker = fixedTicks(ticks)
}

// addErrorBars draws the kept error bars, now that the y axis is known: an end beyond it
// is cut there, with an arrow head.
func (c *linesChart) addErrorBars() {
	for _, b := range c.bars {
		bl, bh, cutLo, cutHi := cutBar(b.lo, b.hi, c.p.Y.Min, c.p.Y.Max, c.l.LogY)
		bar := plotter.XYs{{X: b.x, Y: bl}, {X: b.x, Y: bh}}
		c.p.Add(&plotter.Line{XYs: bar, LineStyle: draw.LineStyle{Color: b.col, Width: vg.Points(1.2)}})
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
			c.p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: b.x, Y: e.y}}, GlyphStyle: draw.GlyphStyle{Color: b.col, Radius: vg.Points(4), Shape: g}})
		}
	}
}

// addMarks draws l.Marks inside the x range as dotted vertical lines. Their labels stack
// down from the top, one line each, so that close marks stay legible.
func (c *linesChart) addMarks() {
	p := c.p
	for i, m := range c.l.Marks {
		if !finite(m.X) || m.X < p.X.Min || m.X > p.X.Max {
			continue
		}
		p.Add(&plotter.Line{XYs: plotter.XYs{{X: m.X, Y: p.Y.Min}, {X: m.X, Y: p.Y.Max}},
			LineStyle: draw.LineStyle{Color: colorOf(m.Series), Width: vg.Points(1.2), Dashes: dots}})
		if m.Label == "" {
			continue
		}
		if lab := hangingLabel(plotter.XY{X: m.X, Y: p.Y.Max}, m.Label, colorOf(m.Series), -vg.Length(i)*vg.Points(1.3*legendSize)); lab != nil {
			p.Add(lab)
		}
	}
}

// drawWithTitle draws p in area. gonum/plot centres the title over the plot's area, which
// a wide legend narrows: a title wider than that area would start off the chart. It is
// then drawn over the whole chart instead, in the line the plot keeps for it.
func drawWithTitle(dc draw.Canvas, p *plot.Plot, area draw.Canvas) {
	title := p.Title.Text
	wide := p.Title.TextStyle.Width(title) > area.Max.X-area.Min.X
	if !wide {
		p.Draw(area)
		return
	}
	p.Title.Text = " "
	p.Draw(area)
	sty := p.Title.TextStyle
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	w := sty.Width(title)
	x := math.Max(float64((dc.Min.X+dc.Max.X)/2), float64(dc.Min.X+vg.Points(8)+w/2))
	dc.FillText(sty, vg.Point{X: vg.Length(x), Y: area.Max.Y}, title)
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

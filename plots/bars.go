package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bars chart layout.
const (
	barsMaxLabels    = 25 // shard labels per panel at most
	barsValueLabels  = 40 // hot bars are tagged with their load up to this many shards, else with their name…
	barsMaxHotLabels = 12 // … when a panel has at most this many hot bars
)

// WriteBars draws b to path as a BarsWidth × BarsHeight(len(b.Panels)) pixel chart: the
// title and a colour key on top, then one panel per variant, top to bottom, titled with
// the panel's Name. Every panel has the same y scale, 0 to max(100%, highest load), in
// percent of node cores. Bars above b.Hot are red, the others steel blue, and a dashed
// line marks Hot (no line, and no red, when Hot ≤ 0). Shard labels are thinned as on the
// heat chart (at most 25 per panel); nil Labels label shards by index.
//
// It returns an error, and writes nothing, when b has no panels, a panel has no shards,
// Labels is non-nil and its length differs from Load's, or Hot is not finite.
func WriteBars(path string, f Format, b Bars) error {
	return writeChart(path, f, BarsWidth, BarsHeight(len(b.Panels)), b.check, func(dc draw.Canvas) { drawBars(dc, b) })
}

func (b *Bars) check() error {
	if len(b.Panels) == 0 {
		return fmt.Errorf("plots: bars %q have no panels", b.Title)
	}
	if !finite(b.Hot) {
		return fmt.Errorf("plots: bars %q have hot threshold %v", b.Title, b.Hot)
	}
	for _, p := range b.Panels {
		if len(p.Load) == 0 {
			return fmt.Errorf("plots: bars %q panel %q has no shards", b.Title, p.Name)
		}
		if p.Labels != nil && len(p.Labels) != len(p.Load) {
			return fmt.Errorf("plots: bars %q panel %q has %d labels for %d shards", b.Title, p.Name, len(p.Labels), len(p.Load))
		}
	}
	return nil
}

// drawBars draws b on dc: the title and key, then the panels on one y scale, aligned.
func drawBars(dc draw.Canvas, b Bars) {
	fillBackground(dc)
	header := pxToPt(BarsHeaderHeight)

	// Title and key.
	tsty := textStyle(titleSize)
	tsty.Font = boldFont
	tsty.Font.Size = titleSize
	tsty.XAlign, tsty.YAlign = draw.XCenter, draw.YTop
	dc.FillText(tsty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(10)}, b.Title)
	drawBarsKey(dc, dc.Max.Y-vg.Points(10)-tsty.Height(b.Title)-vg.Points(12), b.Hot)

	top := b.scaleTop()
	approxW := dc.Max.X - dc.Min.X - vg.Points(90)
	plots := make([][]*plot.Plot, len(b.Panels))
	for i, bp := range b.Panels {
		p := b.panelPlot(bp, top, approxW)
		if i == len(b.Panels)-1 {
			p.X.Label.Text = "shard"
		}
		plots[i] = []*plot.Plot{p}
	}

	area := draw.Crop(dc, 0, 0, 0, -header)
	tiles := draw.Tiles{
		Rows: len(b.Panels), Cols: 1,
		PadTop: vg.Points(2), PadBottom: vg.Points(6), PadLeft: vg.Points(8), PadRight: vg.Points(16),
		PadY: vg.Points(14),
	}
	canvases := plot.Align(plots, tiles, area)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
		drawFrame(dc, plots[i][0].DataCanvas(canvases[i][0]), false)
	}
}

// scaleTop is the top of the panels' common y scale: the highest finite load, Hot, or
// 100%, whichever is highest.
func (b *Bars) scaleTop() float64 {
	top := 1.0
	for _, p := range b.Panels {
		for _, v := range p.Load {
			if finite(v) {
				top = math.Max(top, v)
			}
		}
	}
	return math.Max(top, b.Hot)
}

// panelPlot is the plot of one panel on the y scale 0..top (with headroom for the value
// tags), its shard labels thinned to fit in about approxW: the bars, a horizontal grid,
// and the hot line when b.Hot > 0.
func (b *Bars) panelPlot(bp BarPanel, top float64, approxW vg.Length) *plot.Plot {
	p := newPlot(bp.Name, panelSize)
	p.Title.Padding = vg.Points(5)
	n := len(bp.Load)
	labels := bp.shardLabels()
	p.Y.Label.Text = "load"
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.X.Padding = 0
	setYPadding(p, 0)
	step := labelEvery(n, fitLabels(p.X.Tick.Label, labels, approxW, barsMaxLabels))
	p.X.Tick.Marker = indexTicks(labels, step, 100, func(s int) float64 { return float64(s) })
	p.Y.Tick.Marker = fixedTicks(percentTicks(top))

	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = colGrid
	grid.Horizontal.Width = vg.Points(0.5)
	bars := &shardBars{load: bp.Load, hot: b.Hot, width: 0.8, tags: hotTags(bp.Load, labels, b.Hot)}
	if n > 300 {
		bars.width = 1
	}
	p.Add(grid, bars)
	if b.Hot > 0 {
		p.Add(&hotLine{hot: b.Hot, load: bp.Load, width: bars.width})
	}
	p.Y.Min = 0
	p.Y.Max = top * 1.1 // headroom for the value tags
	return p
}

// shardLabels are the panel's Labels, or the shards' indices when it has none.
func (bp BarPanel) shardLabels() []string {
	if bp.Labels != nil {
		return bp.Labels
	}
	labels := make([]string, len(bp.Load))
	for s := range labels {
		labels[s] = strconv.Itoa(s)
	}
	return labels
}

// hotTags are the texts above the bars over hot, when there are 1 to barsMaxHotLabels of
// them (nil otherwise): their load when the axis names every shard or nearly, else the
// shard's name.
func hotTags(load []float64, labels []string, hot float64) []string {
	n := 0
	for _, v := range load {
		if hot > 0 && v > hot {
			n++
		}
	}
	if n == 0 || n > barsMaxHotLabels {
		return nil
	}
	tags := make([]string, len(load))
	for s, v := range load {
		switch {
		case !(v > hot):
		case len(load) <= barsValueLabels:
			tags[s] = fmtPercent(math.Round(v * 100))
		default:
			tags[s] = "shard " + labels[s]
		}
	}
	return tags
}

// drawBarsKey draws the colour key centred on dc at height y (its top).
func drawBarsKey(dc draw.Canvas, y vg.Length, hot float64) {
	sty := textStyle(legendSize)
	sty.YAlign = draw.YCenter
	sw := vg.Points(11)
	gap := vg.Points(6)
	sep := vg.Points(24)
	type item struct {
		col   color.Color
		text  string
		dashy bool
	}
	items := []item{{col: colBar, text: "shard load"}}
	if hot > 0 {
		items = []item{
			{col: colBar, text: "load ≤ " + fmtPercent(hot*100)},
			{col: colHotBar, text: "load > " + fmtPercent(hot*100) + " (hot)"},
			{col: colHotLine, text: "hot threshold", dashy: true},
		}
	}
	var total vg.Length
	for i, it := range items {
		w := sw
		if it.dashy {
			w = vg.Points(26)
		}
		total += w + gap + sty.Width(it.text)
		if i > 0 {
			total += sep
		}
	}
	x := dc.Center().X - total/2
	cy := y - sw/2
	for _, it := range items {
		w := sw
		if it.dashy {
			w = vg.Points(26)
			dc.StrokeLine2(draw.LineStyle{Color: it.col, Width: vg.Points(1.5), Dashes: dashes}, x, cy, x+w, cy)
		} else {
			fillRect(dc, it.col, x, cy-sw/2, x+w, cy+sw/2)
		}
		x += w + gap
		dc.FillText(sty, vg.Point{X: x, Y: cy}, it.text)
		x += sty.Width(it.text) + sep
	}
}

// shardBars is a plot.Plotter drawing one bar per shard at x = 0, 1, …, coloured by
// whether the load is above the hot threshold.
type shardBars struct {
	load  []float64
	hot   float64
	width float64  // bar width in shards
	tags  []string // text above each bar ("" for none), nil for none at all
}

// Plot implements plot.Plotter.
func (sb *shardBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle(tickSize - 1)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
	sty.Color = colHotLine
	for i, v := range sb.load {
		if math.IsNaN(v) || v <= 0 {
			continue
		}
		h := math.Min(v, p.Y.Max)
		col := colBar
		if sb.hot > 0 && v > sb.hot {
			col = colHotBar
		}
		x0, x1 := trX(float64(i)-sb.width/2), trX(float64(i)+sb.width/2)
		if x1-x0 < vg.Points(0.75) { // keep thin bars visible
			mid := (x0 + x1) / 2
			x0, x1 = mid-vg.Points(0.375), mid+vg.Points(0.375)
		}
		fillRect(c, col, x0, trY(0), x1, trY(h))
	}
	// Tags left to right, skipping any that would overlap the previous one.
	right := vg.Length(math.Inf(-1))
	for i, tag := range sb.tags {
		if tag == "" {
			continue
		}
		x := trX(float64(i))
		w := sty.Width(tag)
		if x-w/2 < right+vg.Points(4) {
			continue
		}
		right = x + w/2
		c.FillText(sty, vg.Point{X: x, Y: trY(math.Min(sb.load[i], p.Y.Max)) + vg.Points(2)}, tag)
	}
}

// DataRange implements plot.DataRanger.
func (sb *shardBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymax = 0
	for _, v := range sb.load {
		if finite(v) {
			ymax = math.Max(ymax, v)
		}
	}
	return -0.5, float64(len(sb.load)) - 0.5, 0, ymax
}

// hotLine is a plot.Plotter drawing the dashed hot threshold across the panel with a
// label at its right end, or, where a hot bar rises through the line there, at the first
// place from the right (the left end first) that no hot bar crosses.
type hotLine struct {
	hot   float64
	load  []float64 // the panel's bars, to keep the label off them
	width float64   // a bar's width in shards
}

// Plot implements plot.Plotter.
func (hl *hotLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	y := trY(hl.hot)
	c.StrokeLine2(draw.LineStyle{Color: colHotLine, Width: vg.Points(1.5), Dashes: dashes}, c.Min.X, y, c.Max.X, y)
	sty := textStyle(tickSize)
	sty.Color = colHotLine
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	label := "hot > " + fmtPercent(hl.hot*100)
	w, h := sty.Width(label), sty.Height(label)
	pad := vg.Points(6)              // the box's margin, and room for a hot bar's value tag
	free := func(x vg.Length) bool { // is the label's box, right end at x, clear of hot bars?
		for i, v := range hl.load {
			if !(v > hl.hot) {
				continue
			}
			x0, x1 := trX(float64(i)-hl.width/2), trX(float64(i)+hl.width/2)
			if x1 > x-w-pad && x0 < x+pad {
				return false
			}
		}
		return true
	}
	x := c.Max.X - vg.Points(4)
	if !free(x) {
		candidates := []vg.Length{c.Min.X + vg.Points(7) + w}
		for cx := c.Max.X - vg.Points(4) - w/4; cx-w > c.Min.X; cx -= w / 4 {
			candidates = append(candidates, cx)
		}
		for _, cx := range candidates {
			if free(cx) {
				x = cx
				break
			}
		}
	}
	fillRect(c, color.NRGBA{255, 255, 255, 220}, x-w-vg.Points(3), y+vg.Points(2), x+vg.Points(2), y+vg.Points(3)+h)
	c.FillText(sty, vg.Point{X: x, Y: y + vg.Points(3)}, label)
}

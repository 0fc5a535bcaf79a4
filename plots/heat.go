package plots

import (
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Heat chart layout.
const (
	heatMaxTimeLabels = 10  // x tick labels at most
	heatMaxRowLabels  = 25  // shard labels at most
	heatSeparatorRows = 48  // thin lines between shards up to this many shards
	colourBarStrip    = 118 // points right of the heat for the colour bar
	heatCallout       = 0.9 // shards reaching this fraction of Max are named beside the heat…
	heatMaxCallouts   = 8   // … at most this many, when not every shard is labelled
	calloutArrow      = 6   // points
)

// WriteHeat draws h to path as a HeatWidth × HeatHeight pixel chart: time across
// (window starts labelled from h.Times, at most ten labels at round intervals when
// WindowSeconds is known), shards down with shard 0 at the top (every shard labelled up
// to 25 shards, else every 2nd, 5th, 10th, … so at most 25 labels), and each cell
// coloured by load on the fixed scale 0..h.Max (0 means 1 = 100%) with a colour bar
// "load (% of node cores)". Loads above Max take the top colour; NaN is grey. When not
// every shard is labelled, up to eight shards that reach 90% of Max are named by a
// small arrow at the right end of their row.
//
// It returns an error, and writes nothing, when h has no windows or no shards, when
// Load's shape differs from len(Rows) × len(Times), or when Max is negative or not finite.
func WriteHeat(path string, f Format, h Heat) error {
	return writeChart(path, f, HeatWidth, HeatHeight, h.check, func(dc draw.Canvas) { drawHeat(dc, h) })
}

func (h *Heat) check() error {
	switch {
	case len(h.Times) == 0:
		return fmt.Errorf("plots: heat %q has no windows", h.Title)
	case len(h.Rows) == 0:
		return fmt.Errorf("plots: heat %q has no shards", h.Title)
	case len(h.Load) != len(h.Rows):
		return fmt.Errorf("plots: heat %q has %d load rows for %d shards", h.Title, len(h.Load), len(h.Rows))
	case h.Max < 0 || !finite(h.Max):
		return fmt.Errorf("plots: heat %q has scale max %v", h.Title, h.Max)
	}
	for r, row := range h.Load {
		if len(row) != len(h.Times) {
			return fmt.Errorf("plots: heat %q shard %s has %d windows, want %d", h.Title, h.Rows[r], len(row), len(h.Times))
		}
	}
	return nil
}

// scaleMax is the top of h's colour scale.
func (h *Heat) scaleMax() float64 {
	if h.Max == 0 {
		return 1
	}
	return h.Max
}

// drawHeat draws h on dc: the cells, the axes' labels, the callouts of the hottest shards
// and the colour bar.
func drawHeat(dc draw.Canvas, h Heat) {
	fillBackground(dc)
	nW, nR := len(h.Times), len(h.Rows)
	top := h.scaleMax()

	p := newPlot(h.Title, titleSize)
	p.X.Label.Text = "time"
	p.Y.Label.Text = "shard"
	p.X.Min, p.X.Max = 0, float64(nW)
	p.Y.Min, p.Y.Max = 0, float64(nR)
	p.X.Padding = 0
	setYPadding(p, 0)

	// Shard labels, shard 0 at the top: row r spans y ∈ [nR-r-1, nR-r].
	approxH := dc.Max.Y - dc.Min.Y - vg.Points(16+90)
	rowH := p.Y.Tick.Label.Height("0")
	maxY := int(approxH / (rowH * 1.3))
	maxY = min(max(maxY, 1), heatMaxRowLabels)
	rstep := labelEvery(nR, maxY)

	co := newCallouts(h, top, rstep)
	area := draw.Crop(dc, vg.Points(8), -(vg.Points(colourBarStrip) + co.width), vg.Points(6), -vg.Points(10))
	approxW := area.Max.X - area.Min.X - vg.Points(80)

	maxX := fitLabels(p.X.Tick.Label, h.Times, approxW, heatMaxTimeLabels)
	p.X.Tick.Marker = windowTicks(h.Times, windowStep(nW, h.WindowSeconds, maxX))
	p.Y.Tick.Marker = indexTicks(h.Rows, rstep, 60, func(r int) float64 { return float64(nR-r) - 0.5 })

	cells, over := h.cells(top)
	area = fitFirstXLabel(p, area)
	p.Add(cells)
	p.Draw(area)

	da := p.DataCanvas(area)
	drawFrame(dc, da, true)
	co.draw(dc, da, p, rowH)
	drawColourBar(dc, da.Min.Y, da.Max.Y, da.Max.X+co.width+vg.Points(16), top, over)
}

// windowTicks label the window starts times[i] every step windows; between labels no
// more than 30 apart, unlabelled ticks mark a fifth (or a half, or a third) of the
// interval.
func windowTicks(times []string, step int) fixedTicks {
	nW := len(times)
	var xt fixedTicks
	for _, i := range labelIndices(nW, step) {
		xt = append(xt, plot.Tick{Value: float64(i), Label: times[i]})
	}
	if step <= 1 || nW/step > 30 {
		return xt
	}
	sub := 0
	for _, d := range []int{5, 2, 3} {
		if step%d == 0 {
			sub = step / d
			break
		}
	}
	if sub == 0 {
		return xt
	}
	for i := sub; i < nW; i += sub {
		if i%step != 0 {
			xt = append(xt, plot.Tick{Value: float64(i)})
		}
	}
	return xt
}

// indexTicks label items every step (item i, labelled labels[i], at pos(i)) and, when
// some go unlabelled and there are at most minorMax items, mark each of the others with
// an unlabelled tick.
func indexTicks(labels []string, step, minorMax int, pos func(i int) float64) fixedTicks {
	n := len(labels)
	var ts fixedTicks
	for _, i := range labelIndices(n, step) {
		ts = append(ts, plot.Tick{Value: pos(i), Label: labels[i]})
	}
	if step > 1 && n <= minorMax {
		for i := 0; i < n; i++ {
			if i%step != 0 {
				ts = append(ts, plot.Tick{Value: pos(i)})
			}
		}
	}
	return ts
}

// cells colours h's loads on the scale 0..top, and says whether a load is over top.
func (h *Heat) cells(top float64) (hc *heatCells, over bool) {
	nW, nR := len(h.Times), len(h.Rows)
	cells := make([]color.RGBA, nR*nW)
	for r, row := range h.Load {
		for w, v := range row {
			cells[r*nW+w] = loadColor(v, top)
			over = over || v > top
		}
	}
	return &heatCells{cols: nW, rows: nR, cells: cells, separators: nR <= heatSeparatorRows}, over
}

// callouts name the hottest shards beside the heat when not every shard is labelled: a
// small arrow and the shard's name at its row's right end.
type callouts struct {
	names []string // the shards' labels
	hot   []int    // the rows to name, in row order
	sty   text.Style
	width vg.Length // the room they take right of the heat
}

// newCallouts finds h's hottest rows (hotRows) when rows are labelled every rstep > 1.
func newCallouts(h Heat, top float64, rstep int) callouts {
	co := callouts{names: h.Rows, sty: textStyle(tickSize)}
	co.sty.Font = boldFont
	co.sty.Font.Size = tickSize
	co.sty.Color = colHotLine
	co.sty.YAlign = draw.YCenter
	if rstep <= 1 {
		return co
	}
	co.hot = hotRows(h.Load, top)
	for _, r := range co.hot {
		co.width = vg.Length(math.Max(float64(co.width), float64(co.sty.Width(h.Rows[r]))))
	}
	if len(co.hot) > 0 {
		co.width += vg.Points(calloutArrow + 4)
	}
	return co
}

// draw draws the callouts right of the data area da of p, skipping any that would
// overlap the one above (rows rowH high).
func (co callouts) draw(dc, da draw.Canvas, p *plot.Plot, rowH vg.Length) {
	nR := len(co.names)
	_, trY := p.Transforms(&da)
	last := vg.Length(math.Inf(1))
	for _, r := range co.hot {
		y := trY(float64(nR-r) - 0.5)
		if last-y < rowH*1.1 {
			continue
		}
		last = y
		x := da.Max.X + vg.Points(2)
		a := vg.Points(calloutArrow)
		var tri vg.Path
		tri.Move(vg.Point{X: x, Y: y})
		tri.Line(vg.Point{X: x + a, Y: y + a*0.6})
		tri.Line(vg.Point{X: x + a, Y: y - a*0.6})
		tri.Close()
		dc.SetColor(colHotLine)
		dc.Fill(tri)
		dc.FillText(co.sty, vg.Point{X: x + a + vg.Points(2), Y: y}, co.names[r])
	}
}

// hotRows returns the rows of load that reach heatCallout of the scale top, those
// with the most such windows first, at most heatMaxCallouts, in row order.
func hotRows(load [][]float64, top float64) []int {
	type hr struct{ row, n int }
	var rows []hr
	for r, row := range load {
		n := 0
		for _, v := range row {
			if v >= heatCallout*top {
				n++
			}
		}
		if n > 0 {
			rows = append(rows, hr{r, n})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].n > rows[j].n })
	if len(rows) > heatMaxCallouts {
		rows = rows[:heatMaxCallouts]
	}
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.row
	}
	sort.Ints(out)
	return out
}

// drawColourBar draws the load colour bar between y0 and y1 starting at x.
func drawColourBar(dc draw.Canvas, y0, y1, x vg.Length, top float64, over bool) {
	const barW = 16
	const steps = 256
	x1 := x + vg.Points(barW)
	for i := range steps {
		ya := y0 + (y1-y0)*vg.Length(i)/steps
		yb := y0 + (y1-y0)*vg.Length(i+1)/steps
		fillRect(dc, loadColor((float64(i)+0.5)/steps*top, top), x, ya, x1, yb+vg.Points(0.2))
	}
	frame := draw.LineStyle{Color: colText, Width: vg.Points(0.5)}
	strokeRect(dc, frame, x, y0, x1, y1)

	sty := textStyle(tickSize)
	sty.YAlign = draw.YCenter
	var labelW vg.Length
	ticks := percentTicks(top)
	for i, t := range ticks {
		y := y0 + (y1-y0)*vg.Length(t.Value/top)
		dc.StrokeLine2(frame, x1, y, x1+vg.Points(4), y)
		label := t.Label
		if over && i == len(ticks)-1 && math.Abs(t.Value-top) < 1e-9*top {
			label = "≥" + label
		}
		dc.FillText(sty, vg.Point{X: x1 + vg.Points(6), Y: y}, label)
		labelW = vg.Length(math.Max(float64(labelW), float64(sty.Width(label))))
	}
	lsty := textStyle(labelSize)
	lsty.Rotation = math.Pi / 2
	lsty.XAlign = draw.XCenter
	lsty.YAlign = draw.YTop
	dc.FillText(lsty, vg.Point{X: x1 + vg.Points(6) + labelW + vg.Points(8), Y: (y0 + y1) / 2}, "load (% of node cores)")
}

// heatCells is a plot.Plotter drawing a grid of coloured cells: column w spans
// x ∈ [w, w+1], row r (top first) spans y ∈ [rows-r-1, rows-r]. It draws one image,
// upsampled without interpolation so cell edges stay sharp, rather than a rectangle
// per cell, so that a 500-shard × 1440-window chart stays small and fast.
// rasterOf returns the vgimg canvas under cv (draw.Canvas wraps the canvas it crops).
func rasterOf(cv vg.Canvas) (*vgimg.Canvas, bool) {
	for {
		switch x := cv.(type) {
		case *vgimg.Canvas:
			return x, true
		case draw.Canvas:
			cv = x.Canvas
		default:
			return nil, false
		}
	}
}

// slowHeatCells makes heatCells draw through the canvas's DrawImage even on a raster
// canvas (a test compares the two).
var slowHeatCells = false

type heatCells struct {
	cols, rows int
	cells      []color.RGBA // row-major, row 0 first
	separators bool         // thin white lines between rows
}

// Plot implements plot.Plotter.
func (hc *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1 := trX(0), trX(float64(hc.cols))
	y0, y1 := trY(0), trY(float64(hc.rows))
	// Raster output: one image pixel per device pixel. Vector output: two pixels per
	// point, so that viewers' smoothing stays invisible; the image has the aspect ratio
	// of its box, as SVG viewers letterbox an image whose aspect differs.
	dpi := 144.0
	if d, ok := c.Canvas.(interface{ DPI() float64 }); ok {
		dpi = d.DPI()
	}
	pw := int(math.Round((x1 - x0).Dots(dpi)))
	ph := int(math.Round((y1 - y0).Dots(dpi)))
	// A raster canvas where every cell gets a pixel at least: the cells go straight into
	// its pixels (vgimg's image, y down from the top), in the box rounded to whole pixels.
	// Through DrawImage they are drawn at 144 dpi (the wrapped canvas hides its own) and
	// resampled to the canvas by a bilinear kernel, which cost more than the rest of the
	// chart. With more cells than pixels that resampling blends neighbouring windows, so
	// that none is dropped: those charts keep it.
	var direct stddraw.Image
	var at image.Rectangle
	if vc, ok := rasterOf(c.Canvas); ok && !slowHeatCells {
		d := vc.DPI()
		top := vc.Image().Bounds().Dy()
		at = image.Rect(int(math.Round(x0.Dots(d))), top-int(math.Round(y1.Dots(d))),
			int(math.Round(x1.Dots(d))), top-int(math.Round(y0.Dots(d))))
		if at.Dx() >= hc.cols && at.Dy() >= hc.rows {
			direct, pw, ph = vc.Image(), at.Dx(), at.Dy()
		}
	}
	pw, ph = max(pw, 1), max(ph, 1)
	img := image.NewRGBA(image.Rect(0, 0, pw, ph))
	colOf := make([]int, pw)
	for px := range pw {
		colOf[px] = min(px*hc.cols/pw, hc.cols-1)
	}
	for py := range ph {
		r := min(py*hc.rows/ph, hc.rows-1)
		row := hc.cells[r*hc.cols : (r+1)*hc.cols]
		off := py * img.Stride
		for px := range pw {
			col := row[colOf[px]]
			img.Pix[off+4*px+0] = col.R
			img.Pix[off+4*px+1] = col.G
			img.Pix[off+4*px+2] = col.B
			img.Pix[off+4*px+3] = 255
		}
	}
	if direct != nil {
		stddraw.Draw(direct, at, img, image.Point{}, stddraw.Src)
	} else {
		c.DrawImage(vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}, img)
	}
	if hc.separators && hc.rows > 1 {
		sty := draw.LineStyle{Color: color.RGBA{255, 255, 255, 255}, Width: vg.Points(0.75)}
		for r := 1; r < hc.rows; r++ {
			y := trY(float64(r))
			c.StrokeLine2(sty, x0, y, x1, y)
		}
	}
}

// DataRange implements plot.DataRanger.
func (hc *heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, float64(hc.cols), 0, float64(hc.rows)
}

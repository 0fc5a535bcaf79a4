package plots

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// chart is one chart to write, with the PNG size it documents.
type chart struct {
	name  string
	w, h  int
	write func(path string, f Format) error
}

func sampleCharts() []chart {
	heat12 := sampleHeat(12, 120, 7, 45)
	heat240 := sampleHeatMany()
	bars := sampleBars()
	lines := sampleLines()
	cdf := sampleCDF()
	return []chart{
		{"heat-12", HeatWidth, HeatHeight, func(p string, f Format) error { return WriteHeat(p, f, heat12) }},
		{"heat-240", HeatWidth, HeatHeight, func(p string, f Format) error { return WriteHeat(p, f, heat240) }},
		{"bars", BarsWidth, BarsHeight(3), func(p string, f Format) error { return WriteBars(p, f, bars) }},
		{"lines", LinesWidth, LinesHeight, func(p string, f Format) error { return WriteLines(p, f, lines) }},
		{"cdf", CDFWidth, CDFHeight, func(p string, f Format) error { return WriteCDF(p, f, cdf) }},
	}
}

// onlyFile fails unless dir holds exactly the file name (no temp files left over).
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("%s holds %v, want just %s", dir, names, name)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func TestChartsPNG(t *testing.T) {
	for _, c := range sampleCharts() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.name+".png")
			if err := c.write(path, PNG); err != nil {
				t.Fatal(err)
			}
			onlyFile(t, dir, c.name+".png")
			img := decodePNG(t, path)
			if got := img.Bounds().Size(); got != (image.Point{X: c.w, Y: c.h}) {
				t.Errorf("size %v, want %dx%d", got, c.w, c.h)
			}
			// Not blank: plenty of distinct colours.
			seen := map[[3]uint32]bool{}
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y += 3 {
				for x := b.Min.X; x < b.Max.X; x += 3 {
					r, g, bb, _ := img.At(x, y).RGBA()
					seen[[3]uint32{r >> 8, g >> 8, bb >> 8}] = true
				}
			}
			if len(seen) < 20 {
				t.Errorf("only %d distinct colours: blank chart?", len(seen))
			}
		})
	}
}

func TestChartsSVG(t *testing.T) {
	for _, c := range sampleCharts() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.name+".svg")
			if err := c.write(path, SVG); err != nil {
				t.Fatal(err)
			}
			onlyFile(t, dir, c.name+".svg")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte("<?xml")) {
				t.Errorf("does not start with <?xml: %q", data[:min(len(data), 40)])
			}
			// Well-formed XML whose root is <svg> of the documented size in points.
			dec := xml.NewDecoder(bytes.NewReader(data))
			root := ""
			for {
				tok, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("malformed SVG: %v", err)
				}
				if se, ok := tok.(xml.StartElement); ok && root == "" {
					root = se.Name.Local
					attr := map[string]string{}
					for _, a := range se.Attr {
						attr[a.Name.Local] = a.Value
					}
					wantW := fmt.Sprintf("%gpt", float64(c.w)*72/DPI)
					wantH := fmt.Sprintf("%gpt", float64(c.h)*72/DPI)
					if attr["width"] != wantW || attr["height"] != wantH {
						t.Errorf("svg size %s x %s, want %s x %s", attr["width"], attr["height"], wantW, wantH)
					}
				}
			}
			if root != "svg" {
				t.Errorf("root element %q, want svg", root)
			}
			if bytes.Contains(data, []byte("data:image/jpg")) {
				t.Errorf("embedded PNG labelled image/jpg")
			}
		})
	}
}

// darkBand returns the bounding box of the pixels of img, left of xmax, within a small
// distance of the heat palette's top colour.
func darkBand(img image.Image, xmax int) (box image.Rectangle, n int) {
	top := loadStops[len(loadStops)-1]
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < xmax; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			d := math.Hypot(math.Hypot(float64(r>>8)-float64(top.R), float64(g>>8)-float64(top.G)), float64(bb>>8)-float64(top.B))
			if d < 20 {
				p := image.Rect(x, y, x+1, y+1)
				if n == 0 {
					box = p
				} else {
					box = box.Union(p)
				}
				n++
			}
		}
	}
	return box, n
}

// TestHeatShowsHotShard checks the picture: one shard at 100% from window 45 of 120 is
// one dark band, one row high, starting about 45/120 of the way across; shard 0 is at
// the top, the last shard at the bottom.
func TestHeatShowsHotShard(t *testing.T) {
	for _, tc := range []struct {
		hot        int
		top, under bool // band in the top quarter, in the bottom quarter
	}{{0, true, false}, {7, false, false}, {11, false, true}} {
		t.Run(fmt.Sprint("shard", tc.hot), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "heat.png")
			if err := WriteHeat(path, PNG, sampleHeat(12, 120, tc.hot, 45)); err != nil {
				t.Fatal(err)
			}
			img := decodePNG(t, path)
			box, n := darkBand(img, HeatWidth*85/100) // leave out the colour bar
			if n == 0 {
				t.Fatal("no pixel in the top colour: the hot shard does not show")
			}
			if h := box.Dy(); h > HeatHeight/12 || h < HeatHeight/30 {
				t.Errorf("dark band %v is %d px high, want about one row of 12", box, h)
			}
			if x := float64(box.Min.X) / HeatWidth; x < 0.3 || x > 0.45 {
				t.Errorf("dark band starts at %.2f of the width, want about 45/120 of the data", x)
			}
			if w := box.Dx(); w < HeatWidth/3 {
				t.Errorf("dark band only %d px wide", w)
			}
			y := float64(box.Min.Y) / HeatHeight
			if tc.top != (y < 0.25) || tc.under != (y > 0.75) {
				t.Errorf("shard %d's band at %.2f of the height", tc.hot, y)
			}
		})
	}
	// No hot shard: no dark band.
	path := filepath.Join(t.TempDir(), "cool.png")
	if err := WriteHeat(path, PNG, sampleHeat(12, 120, -1, 0)); err != nil {
		t.Fatal(err)
	}
	if _, n := darkBand(decodePNG(t, path), HeatWidth*85/100); n != 0 {
		t.Errorf("%d top-colour pixels in a chart with every shard at 15%%", n)
	}
}

func TestBadInput(t *testing.T) {
	good := sampleHeat(4, 10, 1, 5)
	ragged := sampleHeat(4, 10, 1, 5)
	ragged.Load[2] = ragged.Load[2][:9]
	shortRows := sampleHeat(4, 10, 1, 5)
	shortRows.Load = shortRows.Load[:3]
	negMax := sampleHeat(4, 10, 1, 5)
	negMax.Max = -1
	nanMax := sampleHeat(4, 10, 1, 5)
	nanMax.Max = math.NaN()

	bars := sampleBars()
	badLabels := sampleBars()
	badLabels.Panels[1].Labels = badLabels.Panels[1].Labels[:3]
	emptyPanel := sampleBars()
	emptyPanel.Panels[2].Load, emptyPanel.Panels[2].Labels = nil, nil
	nanHot := sampleBars()
	nanHot.Hot = math.NaN()

	lines := sampleLines()
	shortSeries := sampleLines()
	shortSeries.Series[1].Y = shortSeries.Series[1].Y[:10]
	backwards := sampleLines()
	backwards.Times[5] = backwards.Times[4]
	nanTime := sampleLines()
	nanTime.Times[0] = math.NaN()

	mismatched := sampleCDF()
	mismatched.Curves[0].Fraction = mismatched.Curves[0].Fraction[:5]
	nanCDF := sampleCDF()
	nanCDF.Curves[1].Ms[3] = math.NaN()
	zeroOnly := CDF{Curves: []CDFCurve{{Name: "x", Ms: []float64{0, 0}, Fraction: []float64{0.5, 1}}}}

	for name, write := range map[string]func(string, Format) error{
		"heat no windows": func(p string, f Format) error {
			return WriteHeat(p, f, Heat{Rows: []string{"0"}, Load: [][]float64{{}}})
		},
		"heat no shards":      func(p string, f Format) error { return WriteHeat(p, f, Heat{Times: []string{"06:00"}}) },
		"heat zero value":     func(p string, f Format) error { return WriteHeat(p, f, Heat{}) },
		"heat ragged":         func(p string, f Format) error { return WriteHeat(p, f, ragged) },
		"heat rows != load":   func(p string, f Format) error { return WriteHeat(p, f, shortRows) },
		"heat negative max":   func(p string, f Format) error { return WriteHeat(p, f, negMax) },
		"heat NaN max":        func(p string, f Format) error { return WriteHeat(p, f, nanMax) },
		"heat bad format":     func(p string, f Format) error { return WriteHeat(p, "pdf", good) },
		"bars no panels":      func(p string, f Format) error { return WriteBars(p, f, Bars{Title: "x", Hot: 0.9}) },
		"bars labels != load": func(p string, f Format) error { return WriteBars(p, f, badLabels) },
		"bars empty panel":    func(p string, f Format) error { return WriteBars(p, f, emptyPanel) },
		"bars NaN hot":        func(p string, f Format) error { return WriteBars(p, f, nanHot) },
		"bars bad format":     func(p string, f Format) error { return WriteBars(p, "jpeg", bars) },
		"lines no times":      func(p string, f Format) error { return WriteLines(p, f, Lines{Series: []Series{{Name: "a"}}}) },
		"lines no series": func(p string, f Format) error {
			return WriteLines(p, f, Lines{Times: []float64{0, 60}})
		},
		"lines short series": func(p string, f Format) error { return WriteLines(p, f, shortSeries) },
		"lines times repeat": func(p string, f Format) error { return WriteLines(p, f, backwards) },
		"lines NaN time":     func(p string, f Format) error { return WriteLines(p, f, nanTime) },
		"lines bad format":   func(p string, f Format) error { return WriteLines(p, "gif", lines) },
		"cdf no curves":      func(p string, f Format) error { return WriteCDF(p, f, CDF{Title: "x"}) },
		"cdf ms != fraction": func(p string, f Format) error { return WriteCDF(p, f, mismatched) },
		"cdf NaN":            func(p string, f Format) error { return WriteCDF(p, f, nanCDF) },
		"cdf no positive ms": func(p string, f Format) error { return WriteCDF(p, f, zeroOnly) },
		"cdf empty curve":    func(p string, f Format) error { return WriteCDF(p, f, CDF{Curves: []CDFCurve{{Name: "x"}}}) },
		"cdf bad format":     func(p string, f Format) error { return WriteCDF(p, "tiff", sampleCDF()) },
	} {
		for _, f := range []Format{PNG, SVG} {
			t.Run(name+"/"+string(f), func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "chart."+string(f))
				err := write(path, f)
				if err == nil {
					t.Fatal("no error")
				}
				if !strings.HasPrefix(err.Error(), "plots: ") {
					t.Errorf("error %q does not say where it comes from", err)
				}
				if ents, _ := os.ReadDir(dir); len(ents) != 0 {
					t.Errorf("left %d files behind (%s…)", len(ents), ents[0].Name())
				}
			})
		}
	}
}

// TestFailedWriteKeepsOldFile: bad input, or an unwritable directory, leaves an existing
// chart as it was.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "heat.png")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteHeat(path, PNG, Heat{Title: "empty"}); err == nil {
		t.Fatal("no error for an empty heat")
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("old file overwritten: %q", data)
	}
	onlyFile(t, dir, "heat.png")
	if err := WriteHeat(filepath.Join(dir, "missing", "heat.png"), PNG, sampleHeat(4, 10, 1, 5)); err == nil {
		t.Error("no error writing into a missing directory")
	}
	// A good write replaces it whole.
	if err := WriteHeat(path, PNG, sampleHeat(4, 10, 1, 5)); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, path)
	onlyFile(t, dir, "heat.png")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
}

func TestFormatFromExtension(t *testing.T) {
	dir := t.TempDir()
	if err := WriteHeat(filepath.Join(dir, "a.svg"), "", sampleHeat(4, 10, 1, 5)); err != nil {
		t.Fatal(err)
	}
	if err := WriteHeat(filepath.Join(dir, "a.PNG"), "PNG", sampleHeat(4, 10, 1, 5)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "a.svg"))
	if !bytes.HasPrefix(data, []byte("<?xml")) {
		t.Error("format \"\" with .svg path did not write SVG")
	}
	decodePNG(t, filepath.Join(dir, "a.PNG"))
	if err := WriteHeat(filepath.Join(dir, "a.txt"), "", sampleHeat(4, 10, 1, 5)); err == nil {
		t.Error("no error for format \"\" and a .txt path")
	}
}

// TestEdgeInputs are legal but awkward inputs that must render, not fail or panic.
func TestEdgeInputs(t *testing.T) {
	nan := math.NaN()
	oneCell := Heat{Times: []string{"06:00"}, Rows: []string{"0"}, Load: [][]float64{{0.5}}} // Max 0 = 100%
	wild := sampleHeat(30, 50, 3, 10)
	wild.WindowSeconds = 7 // no round interval is a whole number of windows
	wild.Load[0][0], wild.Load[1][1], wild.Load[2][2], wild.Load[3][3] = nan, math.Inf(1), -1, 50
	manyLong := sampleHeat(500, 1440, 321, 600)
	for i := range manyLong.Times {
		manyLong.Times[i] = "2024-11-29 " + manyLong.Times[i]
	}
	allNaN := Lines{Times: []float64{0, 60, 120}, LogY: true, Series: []Series{{Name: "a", Y: []float64{nan, nan, nan}}}}
	nonPos := Lines{Times: []float64{0, 60, 120, 180}, LogY: true, Series: []Series{{Name: "a", Y: []float64{0, -1, 5, 0}}}}
	oneTime := Lines{Times: []float64{30}, SLO: 100, Series: []Series{{Name: "a", Y: []float64{20}}}}
	flat := Lines{Times: []float64{0, 1, 2}, Series: []Series{{Y: []float64{0, 0, 0}}}}
	onePoint := CDF{Curves: []CDFCurve{{Name: "a", Ms: []float64{5}, Fraction: []float64{1}, P50: 5, P99: 5, P999: 5}}}
	noQuantiles := CDF{Curves: []CDFCurve{{Name: "a", Ms: []float64{0, 1, 2}, Fraction: []float64{0.1, 0.5, 1}, P50: nan}}}
	overHot := Bars{Hot: 0, Panels: []BarPanel{{Name: "a", Load: []float64{0, nan, 3, -1}}}} // nil labels, no hot line
	for name, write := range map[string]func(string, Format) error{
		"heat one cell":        func(p string, f Format) error { return WriteHeat(p, f, oneCell) },
		"heat odd values":      func(p string, f Format) error { return WriteHeat(p, f, wild) },
		"heat 500 long labels": func(p string, f Format) error { return WriteHeat(p, f, manyLong) },
		"lines all NaN":        func(p string, f Format) error { return WriteLines(p, f, allNaN) },
		"lines non-positive":   func(p string, f Format) error { return WriteLines(p, f, nonPos) },
		"lines one time":       func(p string, f Format) error { return WriteLines(p, f, oneTime) },
		"lines flat zero":      func(p string, f Format) error { return WriteLines(p, f, flat) },
		"cdf one point":        func(p string, f Format) error { return WriteCDF(p, f, onePoint) },
		"cdf no quantiles":     func(p string, f Format) error { return WriteCDF(p, f, noQuantiles) },
		"bars odd":             func(p string, f Format) error { return WriteBars(p, f, overHot) },
	} {
		for _, f := range []Format{PNG, SVG} {
			t.Run(name+"/"+string(f), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "c."+string(f))
				if err := write(path, f); err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
					t.Fatalf("no output: %v", err)
				}
			})
		}
	}
}

func TestLabelEvery(t *testing.T) {
	for n := 0; n <= 1000; n++ {
		for _, most := range []int{0, 1, 2, 3, 7, 10, 25, 30} {
			step := labelEvery(n, most)
			idx := labelIndices(n, step)
			if step < 1 {
				t.Fatalf("labelEvery(%d, %d) = %d", n, most, step)
			}
			if len(idx) > max(most, 1) {
				t.Fatalf("labelEvery(%d, %d) = %d shows %d labels", n, most, step, len(idx))
			}
			if n > 0 && (len(idx) == 0 || idx[0] != 0) {
				t.Fatalf("labelEvery(%d, %d): first item not labelled (%v)", n, most, idx)
			}
			if n <= most && step != 1 {
				t.Fatalf("labelEvery(%d, %d) = %d, want every item labelled", n, most, step)
			}
			if n > 0 && step > 1 && len(labelIndices(n, smaller(step))) <= most {
				t.Fatalf("labelEvery(%d, %d) = %d, but %d also fits", n, most, step, smaller(step))
			}
		}
	}
	for _, tc := range []struct{ n, max, want int }{
		{12, 25, 1}, {240, 25, 10}, {500, 25, 20}, {48, 25, 2}, {100, 10, 10},
	} {
		if got := labelEvery(tc.n, tc.max); got != tc.want {
			t.Errorf("labelEvery(%d, %d) = %d, want %d", tc.n, tc.max, got, tc.want)
		}
	}
}

// smaller is the 1-2-5 step below step.
func smaller(step int) int {
	switch s := fmt.Sprint(step); s[0] {
	case '1':
		return step / 2
	case '2':
		return step / 2
	default:
		return step * 2 / 5
	}
}

func TestWindowStep(t *testing.T) {
	for _, tc := range []struct {
		n    int
		sec  float64
		max  int
		want int
	}{
		{120, 60, 10, 15},                 // 15 min
		{240, 60, 10, 30},                 // 30 min
		{1440, 60, 10, 180},               // 3 h
		{10, 60, 10, 1},                   // all
		{360, 10, 10, 60},                 // 10 min of 10 s windows
		{100, 7, 10, labelEvery(100, 10)}, // no round interval fits: 1-2-5 windows
	} {
		if got := windowStep(tc.n, tc.sec, tc.max); got != tc.want {
			t.Errorf("windowStep(%d, %g, %d) = %d, want %d", tc.n, tc.sec, tc.max, got, tc.want)
		}
	}
	for n := 1; n <= 2000; n += 7 {
		for _, sec := range []float64{0, 1, 10, 60, 300, 7} {
			step := windowStep(n, sec, 10)
			if k := len(labelIndices(n, step)); k > 10 {
				t.Fatalf("windowStep(%d, %g, 10) = %d shows %d labels", n, sec, step, k)
			}
		}
	}
}

func TestTimeTicks(t *testing.T) {
	ts := timeTicks(0, 4*3600-60, 10, defaultTimeLabel)
	var labels []string
	for _, tk := range ts {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "0:00 30:00 1:00:00 1:30:00 2:00:00 2:30:00 3:00:00 3:30:00" {
		t.Errorf("ticks over 4 h: %s", got)
	}
	for _, span := range []float64{1, 59, 600, 7200, 86400, 7 * 86400} {
		if n := len(timeTicks(0, span, 10, defaultTimeLabel)); n > 10 || n < 2 {
			t.Errorf("%d ticks over %g s", n, span)
		}
	}
}

func TestPercentAndLogTicks(t *testing.T) {
	var got []string
	for _, tk := range percentTicks(1) {
		got = append(got, tk.Label)
	}
	if s := strings.Join(got, " "); s != "0% 25% 50% 75% 100%" {
		t.Errorf("percentTicks(1) = %s", s)
	}
	for _, r := range [][2]float64{{20, 2000}, {0.4, 5000}, {80, 150}, {1, 1e9}, {3, 4}} {
		labelled := 0
		for _, tk := range (logTicks{}).Ticks(r[0], r[1]) {
			if tk.Value < r[0]*(1-1e-9) || tk.Value > r[1]*(1+1e-9) {
				t.Errorf("log tick %g outside [%g, %g]", tk.Value, r[0], r[1])
			}
			if tk.Label != "" {
				labelled++
			}
		}
		if labelled < 2 || labelled > logMaxLabels {
			t.Errorf("%d labelled log ticks on [%g, %g]", labelled, r[0], r[1])
		}
	}
}

func rgbDist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

func rgb(v, max float64) [3]float64 {
	c := loadColor(v, max)
	return [3]float64{float64(c.R), float64(c.G), float64(c.B)}
}

func TestLoadColor(t *testing.T) {
	if d := rgbDist(rgb(1, 1), rgb(0.15, 1)); d < 150 {
		t.Errorf("100%% and 15%% are only %.0f apart in RGB", d)
	}
	if d := rgbDist(rgb(0.15, 1), rgb(0, 1)); d < 15 {
		t.Errorf("15%% and 0%% are only %.0f apart in RGB", d)
	}
	top := loadColor(1, 1)
	for _, v := range []float64{1, 1.0001, 1.3, 7, math.Inf(1)} {
		if c := loadColor(v, 1); c != top {
			t.Errorf("loadColor(%g, 1) = %v, want the top colour %v", v, c, top)
		}
	}
	if loadColor(3, 2) != top || loadColor(2, 2) != top {
		t.Error("values at or above Max = 2 not the top colour")
	}
	if loadColor(-1, 1) != loadColor(0, 1) {
		t.Error("negative load not the bottom colour")
	}
	if c := loadColor(math.NaN(), 1); c != colNaN {
		t.Errorf("NaN is %v, want grey", c)
	}
	// Darker as load rises (luma strictly decreasing over 0..1).
	luma := func(c [3]float64) float64 { return 0.299*c[0] + 0.587*c[1] + 0.114*c[2] }
	prev := math.Inf(1)
	for i := 0; i <= 100; i++ {
		l := luma(rgb(float64(i)/100, 1))
		if l >= prev {
			t.Fatalf("luma not decreasing at %d%%: %.1f after %.1f", i, l, prev)
		}
		prev = l
	}
}

func TestSegments(t *testing.T) {
	nan := math.NaN()
	xs := []float64{0, 1, 2, 3, 4, 5, 6}
	ys := []float64{1, 2, nan, 3, 0, 4, 5}
	if got := len(segments(xs, ys, false)); got != 2 {
		t.Errorf("linear: %d segments, want 2 (NaN splits)", got)
	}
	segs := segments(xs, ys, true)
	if len(segs) != 3 || len(segs[1]) != 1 {
		t.Errorf("log: segments %v, want 3 with the middle one a single point (0 splits)", segs)
	}
}

func TestShortenLegendNames(t *testing.T) {
	sty := textStyle(legendSize)
	long := "fixed: PK ((region_id, hour, hash(order_id) % 8), order_id)"
	maxW := pixels(LinesWidth) / 3 * 5 / 6
	got := shorten(sty, long, maxW)
	if sty.Width(got) > maxW || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "fixed: PK") {
		t.Errorf("shorten = %q (width %v, max %v)", got, sty.Width(got), maxW)
	}
	if short := "before"; shorten(sty, short, maxW) != short {
		t.Errorf("a short name was changed")
	}
}

// An error bar whose low end is at or under 0 on a log axis, or beyond the axis, is cut
// at the axis and marked, never dropped; a bar inside the axis is left alone.
func TestCutBar(t *testing.T) {
	for _, c := range []struct {
		lo, hi       float64
		log          bool
		bl, bh       float64
		cutLo, cutHi bool
	}{
		{-5, 50, true, 1, 50, true, false},
		{0, 50, true, 1, 50, true, false},
		{2, 5000, true, 2, 1000, false, true},
		{math.NaN(), math.Inf(1), false, 1, 1000, true, true},
		{2, 50, true, 2, 50, false, false},
	} {
		bl, bh, cl, ch := cutBar(c.lo, c.hi, 1, 1000, c.log)
		if bl != c.bl || bh != c.bh || cl != c.cutLo || ch != c.cutHi {
			t.Errorf("cutBar(%v, %v, log %v) = %v, %v, %v, %v; want %v, %v, %v, %v", c.lo, c.hi, c.log, bl, bh, cl, ch, c.bl, c.bh, c.cutLo, c.cutHi)
		}
	}
}

// A chart with every new element (per-series x on a log number axis, dots, flags, a cut
// bar, a mark, saturated and failing points) renders, and per-series x must be increasing.
// TestLinesNumericAxis checks the numbers behind a chart with number axes (a capacity
// chart): the ranges of both axes and the ticks, and so the grid lines, drawn at them.
//
// Log x from 0.5 to 16 nodes gets 4% of its span in ratio at each end, a factor
// (16/0.5)^0.04 = 2^0.2; its labelled ticks are 1, 2 and 5 times the powers of ten inside.
// Log y covers the points (5 to 9000), the dots (9, 11), the SLO (50) and the error bars'
// drawable ends (4 to 10000; the 0 cannot be drawn on a log axis), each within a decade
// of the points, then 1.2 times more at each end: 4/1.2 to 12000. A linear number axis
// (2 to 12) gets 4% of its span at each end, ticks every 2 labelled without decimals,
// and a linear y from 0 to the highest point plus 6%.
func TestLinesNumericAxis(t *testing.T) {
	l := Lines{Title: "capacity", Numeric: true, LogX: true, LogY: true, Times: []float64{0.5, 16}, SLO: 50,
		Series: []Series{{Name: "a", X: []float64{0.5, 1, 2, 16}, Y: []float64{5, 10, 60, 9000}, Lo: []float64{4, 0, 40, 8000},
			Hi: []float64{6, 20, 90, 10000}, Flag: []bool{false, false, true, false}, Dots: []Point{{1, 9}, {1, 11}},
			Stopped: []bool{false, false, false, true}, Failing: []bool{false, false, true, true}}},
		Marks: []Mark{{X: 1.5, Series: 0, Label: "1.5"}}}
	draw1 := func(l Lines) *plot.Plot {
		t.Helper()
		if err := l.check(); err != nil {
			t.Fatal(err)
		}
		c := vgimg.NewWith(vgimg.UseWH(pxToPt(LinesWidth), pxToPt(LinesHeight)), vgimg.UseDPI(DPI))
		return drawLines(draw.New(c), l)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s = %.12g, want %.12g", what, got, want)
		}
	}
	labelled := func(a plot.Axis) (vs []float64, labels []string) {
		for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
			if tk.Label != "" {
				vs, labels = append(vs, tk.Value), append(labels, tk.Label)
			}
		}
		return vs, labels
	}
	sameValues := func(what string, got, want []float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
		for i := range want {
			near(fmt.Sprintf("%s[%d]", what, i), got[i], want[i])
		}
	}

	p := draw1(l)
	pad := math.Pow(2, 0.2)
	near("log x min", p.X.Min, 0.5/pad)
	near("log x max", p.X.Max, 16*pad)
	near("log y min", p.Y.Min, 4/1.2)
	near("log y max", p.Y.Max, 12000)
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Errorf("x scale %T, want plot.LogScale", p.X.Scale)
	}
	if _, ok := p.Y.Scale.(plot.LogScale); !ok {
		t.Errorf("y scale %T, want plot.LogScale", p.Y.Scale)
	}
	xs, xl := labelled(p.X)
	sameValues("log x ticks", xs, []float64{0.5, 1, 2, 5, 10})
	if got := strings.Join(xl, " "); got != "0.5 1 2 5 10" {
		t.Errorf("log x labels %q", got)
	}
	ys, _ := labelled(p.Y)
	sameValues("log y ticks", ys, []float64{5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000})

	lin := Lines{Title: "linear", Numeric: true, Times: []float64{2, 12},
		Series: []Series{{Name: "b", X: []float64{2, 4, 8, 12}, Y: []float64{1, 2, 3, 4}}}}
	p = draw1(lin)
	near("linear x min", p.X.Min, 2-0.4)
	near("linear x max", p.X.Max, 12+0.4)
	near("linear y min", p.Y.Min, 0)
	near("linear y max", p.Y.Max, 4*1.06)
	xs, xl = labelled(p.X)
	sameValues("linear x ticks", xs, []float64{2, 4, 6, 8, 10, 12})
	if got := strings.Join(xl, " "); got != "2 4 6 8 10 12" {
		t.Errorf("linear x labels %q", got)
	}

	l.Series[0].X[2] = 0.9
	if err := WriteLines(filepath.Join(t.TempDir(), "d.png"), PNG, l); err == nil {
		t.Error("decreasing x accepted")
	}
}

// TestHeatCellsDirect: on a PNG canvas with a pixel or more per cell, the cells are
// copied into the canvas's pixels instead of being drawn at 144 dpi and resampled by
// DrawImage's bilinear kernel. The charts must agree on every cell's colour: at the
// point of a grid over the chart, the direct copy's pixel is found in the resampled chart
// at most one pixel away. A chart with more windows than pixels (500 shards x 1440 windows) keeps the
// resampling, which blends the windows that share a pixel instead of dropping some: its
// file is the same byte for byte.
func TestHeatCellsDirect(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, h Heat, slow bool) (image.Image, []byte) {
		slowHeatCells = slow
		defer func() { slowHeatCells = false }()
		p := filepath.Join(dir, fmt.Sprintf("%s-%v.png", name, slow))
		if err := WriteHeat(p, PNG, h); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img, b
	}
	h := sampleHeat(12, 120, 7, 45)
	fast, fb := write("heat-12", h, false)
	slow, sb := write("heat-12", h, true)
	if bytes.Equal(fb, sb) {
		t.Error("heat-12: the direct copy wrote the same file as the resampling: was it used?")
	}
	// A grid of points over the chart (every 11th column and 7th row): each must find its
	// colour, within 2 of 255 a channel, in the resampled chart at most a pixel away
	// (cell edges move by less than a pixel; the resampling blends them).
	b := fast.Bounds()
	same, n := 0, 0
	for y := b.Min.Y + 60; y < b.Max.Y-60; y += 7 {
		for x := b.Min.X + 80; x < b.Max.X-180; x += 11 {
			n++
		near:
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if closeColour(fast.At(x, y), slow.At(x+dx, y+dy)) {
						same++
						break near
					}
				}
			}
		}
	}
	// The misses (1.6% at this writing) lie on the rows' white separator lines, whose
	// antialiasing blends with a crisp edge in one chart and a resampled one in the other.
	if same < n*98/100 {
		t.Errorf("heat-12: %d of %d sampled pixels have their colour within a pixel in the resampled chart, want 98%%", same, n)
	}
	many := sampleHeat(500, 1440, 321, 600)
	if _, fb := write("heat-500", many, false); !bytes.Equal(fb, func() []byte { _, b := write("heat-500", many, true); return b }()) {
		t.Error("heat-500 x 1440: more cells than pixels, want the resampled chart unchanged")
	}
}

// closeColour reports whether a and b differ by at most 2 in every 8-bit channel (the
// resampling's fixed-point weights round a flat colour by one now and then).
func closeColour(a, b color.Color) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool { return max(x, y)-min(x, y) <= 2<<8 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

// Two CDF curves whose percentiles agree within 3% lie on one another at the chart's
// scale: the later one's legend says whose curve it is on (black-friday's after, fixed
// and stop-gap hid each other).
func TestCDFNear(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want bool
	}{{2.57, 2.57, true}, {3.36, 3.35, true}, {100, 103, true}, {100, 104, false}, {0, 0, false}, {7922, 2.57, false}} {
		if got := near(c.a, c.b); got != c.want {
			t.Errorf("near(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	cdf := CDF{Title: "t", Curves: []CDFCurve{
		{Name: "after: x", Ms: []float64{1, 2, 3}, Fraction: []float64{0.5, 0.99, 1}, P50: 1, P99: 2, P999: 3},
		{Name: "fixed: y", Ms: []float64{1, 2, 3}, Fraction: []float64{0.5, 0.99, 1}, P50: 1, P99: 2, P999: 3, Note: "5 failed (0.1%), not on the curve"},
	}}
	if err := WriteCDF(filepath.Join(t.TempDir(), "c.svg"), SVG, cdf); err != nil {
		t.Fatal(err)
	}
}

package plots

import (
	"flag"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var renderDir = flag.String("render", "", "write sample charts (PNG and SVG) to this directory, e.g. /tmp/plots, to look at")

// clock formats minutes after 06:00 as hh:mm.
func clock(min int) string { return fmt.Sprintf("%02d:%02d", (6+min/60)%24, min%60) }

// sampleHeat is an n-shard heat over windows one-minute windows from 06:00: every shard
// near 15% except shard hot (if ≥ 0), which runs at 100% from window from on.
func sampleHeat(n, windows, hot, from int) Heat {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	h := Heat{Title: fmt.Sprintf("black-friday - before: shard load (%d shards)", n), WindowSeconds: 60, Max: 1}
	for w := range windows {
		h.Times = append(h.Times, clock(w))
	}
	for s := range n {
		h.Rows = append(h.Rows, fmt.Sprint(s))
		row := make([]float64, windows)
		for w := range row {
			row[w] = 0.15 + 0.04*(rng.Float64()-0.5)
			if s == hot && w >= from {
				row[w] = 1
			}
		}
		h.Load = append(h.Load, row)
	}
	return h
}

// sampleHeatMany is a 240-shard heat with a diurnal swell, a warm key range and two
// shards that overload at different times.
func sampleHeatMany() Heat {
	h := sampleHeat(240, 240, -1, 0)
	h.Title = "black-friday - range (240 shards): shard load"
	for s, row := range h.Load {
		for w := range row {
			row[w] += 0.2 * math.Sin(float64(w)/240*math.Pi)
			if s >= 100 && s < 120 {
				row[w] += 0.25
			}
			if s == 17 && w >= 60 {
				row[w] = 1
			}
			if s == 203 && w >= 150 && w < 200 {
				row[w] = 1.3 // above Max: top colour
			}
		}
	}
	return h
}

// oddHeat has 30 shards, 7 s windows with long labels, NaN, +Inf, negative and
// over-scale loads, on a 0..150% scale.
func oddHeat() Heat {
	h := sampleHeat(30, 50, 3, 10)
	h.Title = "odd values: 30 shards, 7 s windows, scale 0-150%"
	h.WindowSeconds, h.Max = 7, 1.5
	for i := range h.Times {
		h.Times[i] = fmt.Sprintf("2024-11-29 06:%02d:%02d", i*7/60, i*7%60)
	}
	h.Load[0][0], h.Load[1][1], h.Load[2][2], h.Load[4][4] = math.NaN(), math.Inf(1), -1, 50
	for w := range h.Load[20] {
		h.Load[20][w] = float64(w) / 30 // a ramp from 0 to 163%
	}
	return h
}

func sampleBars() Bars {
	rng := rand.New(rand.NewPCG(2, 2))
	mk := func(name string, n int, f func(s int) float64) BarPanel {
		p := BarPanel{Name: name}
		for s := range n {
			p.Load = append(p.Load, f(s))
			p.Labels = append(p.Labels, fmt.Sprint(s))
		}
		return p
	}
	return Bars{
		Title: "black-friday: shard load in each variant's busiest window",
		Hot:   0.9,
		Panels: []BarPanel{
			mk("before (window 08:15)", 12, func(s int) float64 {
				if s == 7 {
					return 1
				}
				return 0.15 + 0.05*rng.Float64()
			}),
			mk("hash (window 09:02)", 48, func(s int) float64 { return 0.4 + 0.1*rng.Float64() }),
			mk("range (window 08:40)", 240, func(s int) float64 {
				if s == 100 || s == 101 {
					return 0.95
				}
				return 0.2 + 0.3*rng.Float64()
			}),
		},
	}
}

func sampleLines() Lines {
	rng := rand.New(rand.NewPCG(3, 3))
	l := Lines{
		Title:     "black-friday - checkout: p99 latency per 1m0s window",
		YLabel:    "p99 latency (ms)",
		LogY:      true,
		SLO:       250,
		TimeLabel: func(s float64) string { return clock(int(s / 60)) },
	}
	for w := range 240 {
		l.Times = append(l.Times, float64(w*60))
	}
	names := []string{"before", "hash", "range"}
	for i, name := range names {
		y := make([]float64, len(l.Times))
		for w := range y {
			base := 20 + 10*float64(i) + 5*rng.Float64()
			switch {
			case i == 0 && w >= 60:
				base = 20 * math.Exp(float64(w-60)/40) // a queue that grows
			case i == 2 && w >= 100 && w < 110:
				base = math.NaN() // no completions
			case i == 1 && w == 30:
				base = 0 // gap on log
			}
			y[w] = base
		}
		l.Series = append(l.Series, Series{Name: name, Y: y})
	}
	return l
}

func sampleCDF() CDF {
	c := CDF{Title: "black-friday - checkout: latency distribution"}
	for i, v := range []struct {
		name      string
		mu, sigma float64
	}{{"before", math.Log(40), 1.2}, {"hash", math.Log(12), 0.5}, {"range", math.Log(15), 0.8}} {
		rng := rand.New(rand.NewPCG(4, uint64(i)))
		xs := make([]float64, 20000)
		for j := range xs {
			xs[j] = math.Exp(v.mu + v.sigma*rng.NormFloat64())
		}
		cv := CDFCurve{Name: v.name}
		slices.Sort(xs)
		for j := 0; j < len(xs); j += 50 {
			cv.Ms = append(cv.Ms, xs[j])
			cv.Fraction = append(cv.Fraction, float64(j+1)/float64(len(xs)))
		}
		cv.Ms = append(cv.Ms, xs[len(xs)-1])
		cv.Fraction = append(cv.Fraction, 1)
		q := func(f float64) float64 { return xs[int(f*float64(len(xs)-1))] }
		cv.P50, cv.P99, cv.P999 = q(0.5), q(0.99), q(0.999)
		c.Curves = append(c.Curves, cv)
	}
	return c
}

// TestRender writes the sample charts for a human to look at: go test ./plots -run
// TestRender -render /tmp/plots.
func TestRender(t *testing.T) {
	if *renderDir == "" {
		t.Skip("no -render directory")
	}
	if err := os.MkdirAll(*renderDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{PNG, SVG} {
		out := func(name string) string { return filepath.Join(*renderDir, name+"."+string(f)) }
		for name, err := range map[string]error{
			"heat-12":   WriteHeat(out("heat-12"), f, sampleHeat(12, 120, 7, 45)),
			"heat-4":    WriteHeat(out("heat-4"), f, sampleHeat(4, 30, 2, 10)),
			"heat-240":  WriteHeat(out("heat-240"), f, sampleHeatMany()),
			"heat-500":  WriteHeat(out("heat-500"), f, sampleHeat(500, 1440, 321, 600)),
			"heat-odd":  WriteHeat(out("heat-odd"), f, oddHeat()),
			"bars":      WriteBars(out("bars"), f, sampleBars()),
			"lines":     WriteLines(out("lines"), f, sampleLines()),
			"lines-lin": WriteLines(out("lines-lin"), f, func() Lines { l := sampleLines(); l.LogY = false; l.SLO = 0; return l }()),
			"cdf":       WriteCDF(out("cdf"), f, sampleCDF()),
		} {
			if err != nil {
				t.Errorf("%s.%s: %v", name, f, err)
			}
		}
	}
}

// The p99 chart of a scenario whose variants have long names (black-friday's fixed variant
// was cut in the legend) and several SLO thresholds (only the first was drawn): every name
// and every threshold's label must appear whole in the SVG's text, and the lines must use
// distinct dashes.
func TestLinesLongNamesAndEverySLO(t *testing.T) {
	l := Lines{Title: "black-friday - create_order: p99 latency per 1m window", YLabel: "p99 latency (ms)", LogY: true,
		Distinct: true, RefLabel: "SLO (p99 thresholds)",
		Refs: []Ref{{Y: 200, Label: "p99 < 200ms"}, {Y: 500, Label: "p99 < 500ms"}, {Y: 1500, Label: "p99 < 1.5s"}}}
	names := []string{"before: PK (order_id), range", "after: PK ((region_id, hour), order_id)",
		"fixed: PK ((region_id, hour, hash(order_id) % 8), order_id)", "stop-gap: 16 cores for the hot shard",
		"stop-gap during the incident: cap, queue, scale up"}
	for w := range 60 {
		l.Times = append(l.Times, float64(w*60))
	}
	for i, n := range names {
		y := make([]float64, len(l.Times))
		for w := range y {
			y[w] = 2.6 // every variant at the same latency: the lines coincide
			if i == 0 {
				y[w] = 2.6 * math.Exp(float64(w)/10)
			}
		}
		l.Series = append(l.Series, Series{Name: n, Y: y})
	}
	path := filepath.Join(t.TempDir(), "p99.svg")
	if err := WriteLines(path, SVG, l); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := html.UnescapeString(string(data))
	for _, want := range append(names, "SLO (p99 thresholds)", "p99 < 200ms", "p99 < 500ms", "p99 < 1.5s") {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart's text lacks %q", want)
		}
	}
	if strings.Contains(svg, "…") {
		t.Error("a name is cut")
	}
	if n := strings.Count(svg, "stroke-dasharray"); n < 4 {
		t.Errorf("%d dashed strokes, want the variants' own dashes and the SLO lines", n)
	}
}

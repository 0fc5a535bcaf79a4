package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/pool"
	"github.com/shardsim/shardsim/plots"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Chart is one chart file and the sentence that tells a reader how to read it.
type Chart struct {
	File    string // name inside the output directory
	Title   string
	Caption string
	stream  int // 1 + the index of the stream the chart is about; 0 for none
}

// HeatData is the heat chart of one run: Load[s][w] is shard s's load in window w, on the
// fixed 0..100% scale shared by every variant.
func HeatData(sc *metrics.Scenario, run Run) plots.Heat {
	r := run.Result
	h := plots.Heat{
		Title:         fmt.Sprintf("%s - %s: shard load", sc.Name, run.Variant.Name),
		WindowSeconds: r.Window.Seconds(),
		Max:           1,
	}
	if d := metrics.DigestOf(r); d != nil {
		// A streamed run: a row per group of shards and a column per group of windows,
		// each cell the hottest load in it (metrics.Heat).
		hm := &d.Heat
		h.WindowSeconds *= float64(hm.ColWindows)
		for c := range hm.Cols {
			h.Times = append(h.Times, units.Clock(sc.Start, sim.Time(c*hm.ColWindows)*r.Window, units.TimeOfDay))
		}
		for row := range hm.Rows {
			first, last := row*hm.RowShards, min((row+1)*hm.RowShards, len(r.Shards))-1
			if first == last {
				h.Rows = append(h.Rows, fmt.Sprint(first))
			} else {
				h.Rows = append(h.Rows, fmt.Sprintf("%d-%d", first, last))
			}
			h.Load = append(h.Load, hm.Max[row*hm.Cols:(row+1)*hm.Cols])
		}
		return h
	}
	for w := 0; w < r.Windows; w++ {
		h.Times = append(h.Times, units.Clock(sc.Start, sim.Time(w)*r.Window, units.TimeOfDay))
	}
	for s := range r.Shards {
		h.Rows = append(h.Rows, fmt.Sprint(s))
		row := make([]float64, r.Windows)
		for w := range row {
			row[w] = r.ShardUtilization(w, s)
		}
		h.Load = append(h.Load, row)
	}
	return h
}

// BarsData is every variant's shard loads in its own peak window, one panel each.
func BarsData(sc *metrics.Scenario, runs []Run) plots.Bars {
	b := plots.Bars{Title: fmt.Sprintf("%s: shard load in each variant's busiest window", sc.Name), Hot: diagnose.HotLoad}
	for _, run := range runs {
		r := run.Result
		w := metrics.PeakWindow(r)
		p := plots.BarPanel{Name: fmt.Sprintf("%s (window %s)", run.Variant.Name, units.Clock(sc.Start, sim.Time(w)*r.Window, units.TimeOfDay))}
		d := metrics.DigestOf(r)
		for s := range r.Shards {
			if d != nil {
				p.Load = append(p.Load, d.PeakLoads[s])
			} else {
				p.Load = append(p.Load, r.ShardUtilization(w, s))
			}
			p.Labels = append(p.Labels, fmt.Sprint(s))
		}
		b.Panels = append(b.Panels, p)
	}
	return b
}

// P99Data is stream i's p99 latency per window (ms), one series per variant; a window in
// which no request of the stream completed is a gap (NaN).
func P99Data(sc *metrics.Scenario, runs []Run, i int) plots.Lines {
	r0 := runs[0].Result
	l := plots.Lines{
		Title:     fmt.Sprintf("%s - %s: p99 latency per %s window", sc.Name, r0.Streams[i].Name, units.Duration(r0.Window)),
		YLabel:    "p99 latency (ms)",
		LogY:      true,
		TimeLabel: func(s float64) string { return units.Clock(sc.Start, sim.Time(s*float64(sim.Second)), units.TimeOfDay) },
	}
	for w := 0; w < r0.Windows; w++ {
		l.Times = append(l.Times, (sim.Time(w) * r0.Window).Seconds())
	}
	// Every threshold of the stream is drawn, each labelled; the variants' lines get their
	// own dashes and widths, since variants often share a latency and would hide each other.
	l.Distinct, l.RefLabel = true, "SLO (p99 thresholds)"
	for _, t := range runs[0].Variant.Streams[i].SLO {
		l.Refs = append(l.Refs, plots.Ref{Y: t.Millis(), Label: "p99 < " + units.Duration(t)})
	}
	for _, run := range runs {
		st := &run.Result.Streams[i]
		y := make([]float64, len(st.Win))
		for w := range st.Win {
			y[w] = math.NaN()
			if q := metrics.WindowQuantile(&st.Win[w], 0.99); q != nil {
				y[w] = *q
			}
		}
		l.Series = append(l.Series, plots.Series{Name: run.Variant.Name, Y: y})
	}
	return l
}

// P99DetailData is stream i's p99 latency per fine window of the detail range (ms), one
// series per variant (metrics.FineWindowsOf), drawn as P99Data draws the windows.
func P99DetailData(sc *metrics.Scenario, runs []Run, i int) plots.Lines {
	r0 := runs[0].Result
	d := r0.Detail
	l := plots.Lines{
		Title:     fmt.Sprintf("%s - %s: p99 latency per %s window, %s to %s", sc.Name, r0.Streams[i].Name, units.Duration(d.Window), units.Clock(sc.Start, d.From, units.TimeOfDay), units.Clock(sc.Start, d.To, units.TimeOfDay)),
		YLabel:    "p99 latency (ms)",
		LogY:      true,
		TimeLabel: func(s float64) string { return units.Clock(sc.Start, sim.Time(s*float64(sim.Second)), units.TimeOfDay) },
	}
	for k := range d.FineWindows() {
		l.Times = append(l.Times, d.FineStart(k).Seconds())
	}
	l.Distinct, l.RefLabel = true, "SLO (p99 thresholds)"
	for _, t := range runs[0].Variant.Streams[i].SLO {
		l.Refs = append(l.Refs, plots.Ref{Y: t.Millis(), Label: "p99 < " + units.Duration(t)})
	}
	for _, run := range runs {
		fine := metrics.FineWindowsOf(run.Result, i)
		y := make([]float64, len(l.Times))
		for k := range y {
			y[k] = math.NaN()
			if k < len(fine) && fine[k].P99 != nil {
				y[k] = *fine[k].P99
			}
		}
		l.Series = append(l.Series, plots.Series{Name: run.Variant.Name, Y: y})
	}
	return l
}

// usesCache reports whether stream i used the read cache in any variant.
func usesCache(runs []Run, i int) bool {
	for _, run := range runs {
		if c := metrics.CacheCountsOf(run.Result, i); c != nil && c.Hits+c.BackendReads > 0 {
			return true
		}
	}
	return false
}

// BackendReadsData is stream i's database reads per second in each window, caused by its
// cache misses and refreshes, one series per variant: a spike is a stampede, many misses of
// one expired key reaching the database at once.
func BackendReadsData(sc *metrics.Scenario, runs []Run, i int) plots.Lines {
	r0 := runs[0].Result
	l := plots.Lines{
		Title:     fmt.Sprintf("%s - %s: database reads behind the cache per %s window", sc.Name, r0.Streams[i].Name, units.Duration(r0.Window)),
		YLabel:    "backend reads per second",
		TimeLabel: func(s float64) string { return units.Clock(sc.Start, sim.Time(s*float64(sim.Second)), units.TimeOfDay) },
	}
	for w := 0; w < r0.Windows; w++ {
		l.Times = append(l.Times, (sim.Time(w) * r0.Window).Seconds())
	}
	for _, run := range runs {
		r := run.Result
		y := make([]float64, r0.Windows)
		for w := range y {
			y[w] = math.NaN()
			if w < len(r.Streams[i].Win) && w < r.Windows {
				if span := r.WindowSpan(w).Seconds(); span > 0 {
					y[w] = float64(metrics.BackendReadsIn(r, i, w)) / span
				}
			}
		}
		l.Series = append(l.Series, plots.Series{Name: run.Variant.Name, Y: y})
	}
	return l
}

// anyCompleted reports whether some variant of runs completed a request of stream i after
// the warmup: whether CDFData has a curve.
func anyCompleted(runs []Run, i int) bool {
	for _, run := range runs {
		if metrics.StreamOf(run.Result, i).Latency.Max != nil {
			return true
		}
	}
	return false
}

// cdfPoints is the most points one CDF curve keeps.
const cdfPoints = 400

// CDFData is stream i's latency distribution over the run (after warmup), one curve per
// variant, read from its HdrHistogram: (latency ms, fraction of the completed requests at
// or below it); a variant some of whose requests failed says how many in the legend.
func CDFData(sc *metrics.Scenario, runs []Run, i int) plots.CDF {
	c := plots.CDF{Title: fmt.Sprintf("%s - %s: latency distribution of completed requests", sc.Name, runs[0].Result.Streams[i].Name)}
	for _, run := range runs {
		st := &run.Result.Streams[i]
		ms := metrics.StreamOf(run.Result, i)
		l := ms.Latency
		if l.Max == nil {
			continue // nothing completed: no curve
		}
		cv := plots.CDFCurve{Name: run.Variant.Name, P50: *l.P50, P99: *l.P99, P999: *l.P999}
		if ms.Failed > 0 { // failed requests have no latency: the curve is of the others
			cv.Note = fmt.Sprintf("%s failed (%s), not on the curve", units.Count(ms.Failed), units.ShareOf(ms.Failed, ms.Offered, 1))
		}
		total := st.Latency.TotalCount()
		var cum int64
		bars := st.Latency.Distribution()
		step := max(1, len(bars)/cdfPoints)
		for j, bar := range bars {
			if bar.Count == 0 {
				continue
			}
			cum += bar.Count
			if j%step == 0 || cum == total {
				cv.Ms = append(cv.Ms, float64(bar.To)/1000)
				cv.Fraction = append(cv.Fraction, float64(cum)/float64(total))
			}
		}
		c.Curves = append(c.Curves, cv)
	}
	return c
}

// Slug turns a name into a file-name part: lower case letters, digits and dashes.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// Slugs is Slug for a list of names that must get distinct file names: a name whose slug
// an earlier one took (Orders and orders, a.b and a-b) gets "-2", "-3", ... after its
// slug, and a name with no letter or digit is "stream-N" (its position from 1).
func Slugs(names []string) []string {
	out := make([]string, len(names))
	used := map[string]bool{}
	for i, n := range names {
		s := Slug(n)
		if s == "" {
			s = fmt.Sprintf("stream-%d", i+1)
		}
		base := s
		for k := 2; used[s]; k++ {
			s = fmt.Sprintf("%s-%d", base, k)
		}
		used[s] = true
		out[i] = s
	}
	return out
}

// ChartPlan is the run's charts before they are drawn: what report.md lists, and how to
// draw each one. Planning is cheap; drawing is most of the time charts cost, so Render
// draws them in parallel, and the caller may write its other files meanwhile.
type ChartPlan struct {
	Charts []Chart
	draw   []func(path string) error
}

// PlanCharts lists every chart of the run in format ("png" or "svg"), in the order
// report.md shows them.
func PlanCharts(format string, sc *metrics.Scenario, runs []Run) *ChartPlan {
	f := plots.Format(format)
	p := &ChartPlan{}
	stream := 0 // the stream whose charts add adds, from 1
	used := map[string]bool{}
	add := func(name, title, caption string, draw func(string) error) {
		// No two charts share a file, even where one stream's name makes another's chart
		// name (a stream called "detail-x" and the detail chart of "x").
		base, ext := strings.TrimSuffix(name, "."+format), "."+format
		for k := 2; used[name]; k++ {
			name = fmt.Sprintf("%s-%d%s", base, k, ext)
		}
		used[name] = true
		p.Charts = append(p.Charts, Chart{File: name, Title: title, Caption: caption, stream: stream})
		p.draw = append(p.draw, draw)
	}
	add("shard-load."+format, "Shard load in the busiest window",
		fmt.Sprintf("One panel per variant, one bar per shard, at each variant's busiest window. A bar above %.0f%% of its node's cores is drawn in red: that shard is the bottleneck while the others have room.", 100*diagnose.HotLoad),
		func(p string) error { return plots.WriteBars(p, f, BarsData(sc, runs)) })
	for i, run := range runs {
		name := fmt.Sprintf("heat-%d-%s.%s", i+1, Slug(run.Variant.Name), format)
		add(name, "Shard load over time: "+run.Variant.Name,
			"Time runs left to right, one row per shard. The colour is the shard's load, on the same 0-100% scale in every variant: a single dark row is one shard doing the work of many.",
			func(p string) error { return plots.WriteHeat(p, f, HeatData(sc, run)) })
	}
	var names []string
	for _, st := range runs[0].Result.Streams {
		names = append(names, st.Name)
	}
	slugs := Slugs(names)
	for i, st := range runs[0].Result.Streams {
		stream = i + 1
		add(fmt.Sprintf("p99-%s.%s", slugs[i], format), "p99 latency over time: "+st.Name,
			"The 99th percentile latency of the requests that completed in each window, one line per variant, on a log scale: a line that climbs is a queue that grows.",
			func(p string) error { return plots.WriteLines(p, f, P99Data(sc, runs, i)) })
		// A stream of which no variant completed a request after the warmup (every one
		// timed out, say) has no distribution to draw: the chart's error used to fail the
		// whole run.
		if anyCompleted(runs, i) {
			add(fmt.Sprintf("cdf-%s.%s", slugs[i], format), "Latency distribution: "+st.Name,
				"The share of the completed requests (after warmup) that completed within a given latency, one curve per variant, log scale; the marks are p50, p99 and p999. Failed requests have no latency and are not on the curves: the legend says how many failed. The further right a curve's top, the longer its tail.",
				func(p string) error { return plots.WriteCDF(p, f, CDFData(sc, runs, i)) })
		}
		if hasDetail(runs) {
			d := runs[0].Result.Detail
			add(fmt.Sprintf("p99-detail-%s.%s", slugs[i], format), "p99 latency in detail: "+st.Name,
				fmt.Sprintf("The same p99 in %s windows from %s to %s (the scenario's detail range), one line per variant, on a log scale: where the line above crosses a threshold within one window, this one shows when. Each point sits at the start of its window; the alerts give the end of the window in which the p99 passed a line, one fine window later.",
					units.Duration(d.Window), units.Clock(sc.Start, d.From, units.TimeOfDay), units.Clock(sc.Start, d.To, units.TimeOfDay)),
				func(p string) error { return plots.WriteLines(p, f, P99DetailData(sc, runs, i)) })
		}
		if !usesCache(runs, i) {
			continue
		}
		add(fmt.Sprintf("backend-%s.%s", slugs[i], format), "Database reads behind the cache: "+st.Name,
			"The reads of the database that the stream's cache misses and refreshes caused, per second in each window, one line per variant. A flat low line is a cache doing its job; a spike is a stampede (many readers missing the same expired key at once), and a line that never drops means the cache is not holding the hot keys.",
			func(p string) error { return plots.WriteLines(p, f, BackendReadsData(sc, runs, i)) })
	}
	return p
}

// Render draws every planned chart into dir, workers at a time (each chart is drawn by one
// goroutine and written atomically), and returns the first error in the plan's order.
func (p *ChartPlan) Render(dir string, workers int) error {
	errs := make([]error, len(p.draw))
	pool.New(workers, nil).Each(len(p.draw), func(i int) {
		if err := p.draw[i](filepath.Join(dir, p.Charts[i].File)); err != nil {
			errs[i] = fmt.Errorf("chart %s: %w", p.Charts[i].File, err)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

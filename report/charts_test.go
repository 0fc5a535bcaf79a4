package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

func runAll(t *testing.T, path string, sets ...string) (*metrics.Scenario, []Run) {
	t.Helper()
	sc, err := scenarios.Load(path, scenarios.Options{Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	var runs []Run
	for _, v := range sc.Variants {
		runs = append(runs, Run{Variant: describeVariant(v), Result: sim.Run(v.Model())})
	}
	return describeScenario(sc), runs
}

// sharedRuns holds the runs of runShared, each made once for every test that reads it.
var sharedRuns struct {
	sync.Mutex
	m map[string]*sharedRun
}

type sharedRun struct {
	once sync.Once
	sc   *metrics.Scenario
	runs []Run
	err  error
}

// runShared is runAll's runs of path with sets, made by the first test that asks and
// shared with every other: for the tests that only read them (TestHTMLReport and
// TestOnePalette read quickstart's, TestBarsDataPeakWindow and TestLatencyChartData
// small's), so that each scenario is simulated once.
func runShared(t *testing.T, path string, sets ...string) (*metrics.Scenario, []Run) {
	t.Helper()
	key := path + "\x00" + strings.Join(sets, "\x00")
	sharedRuns.Lock()
	if sharedRuns.m == nil {
		sharedRuns.m = map[string]*sharedRun{}
	}
	r := sharedRuns.m[key]
	if r == nil {
		r = &sharedRun{}
		sharedRuns.m[key] = r
	}
	sharedRuns.Unlock()
	r.once.Do(func() {
		sc, err := scenarios.Load(path, scenarios.Options{Sets: sets})
		if err != nil {
			r.err = err
			return
		}
		for _, v := range sc.Variants {
			r.runs = append(r.runs, Run{Variant: describeVariant(v), Result: sim.Run(v.Model())})
		}
		r.sc = describeScenario(sc)
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.sc, r.runs
}

// The heat grid is the run's windows: on a Snowflake range key the last shard takes every
// write, so its row must be the hottest in every window, and each cell must equal the
// shard's CPU time in that window over the window's length and the node's cores.
func TestHeatDataHotShard(t *testing.T) {
	sc, runs := runAll(t, "../testdata/keys/snowflake-range.toml", "cluster.cores=1")
	r := runs[0].Result
	h := HeatData(sc, runs[0])
	if len(h.Load) != len(r.Shards) || len(h.Times) != r.Windows || h.Max != 1 {
		t.Fatalf("grid %dx%d (max %v), want %dx%d on a 0..1 scale", len(h.Load), len(h.Times), h.Max, len(r.Shards), r.Windows)
	}
	for w := 0; w < r.Windows; w++ {
		hot := 0
		for s := range h.Load {
			want := float64(r.ShardBusy[w*len(r.Shards)+s]) / float64(r.WindowSpan(w))
			if math.Abs(h.Load[s][w]-want) > 1e-12 {
				t.Fatalf("cell (%d,%d) = %v, want busy/span = %v", s, w, h.Load[s][w], want)
			}
			if h.Load[s][w] > h.Load[hot][w] {
				hot = s
			}
		}
		if hot != 11 || h.Load[11][w] < 0.15 {
			t.Errorf("window %d: hottest row is shard %d at %.3f, want shard 11 carrying the writes", w, hot, h.Load[hot][w])
		}
	}
	if h.Times[0] != "00:00" || h.Times[1] != "00:01" {
		t.Errorf("time labels %v, want clock times from start", h.Times[:2])
	}
}

// The bars are each variant's loads in its peak window, and that window's hottest bar is
// the run's hottest cell.
func TestBarsDataPeakWindow(t *testing.T) {
	sc, runs := runShared(t, "../testdata/small.toml")
	b := BarsData(sc, runs)
	if len(b.Panels) != len(runs) || b.Hot != 0.9 {
		t.Fatalf("%d panels (hot %v), want %d at 0.9", len(b.Panels), b.Hot, len(runs))
	}
	for i, run := range runs {
		r := run.Result
		w := metrics.PeakWindow(r)
		best := 0.0
		for ww := 0; ww < r.Windows; ww++ {
			for s := range r.Shards {
				best = math.Max(best, r.ShardUtilization(ww, s))
			}
		}
		top := 0.0
		for s, l := range b.Panels[i].Load {
			if l != r.ShardUtilization(w, s) {
				t.Errorf("panel %d bar %d = %v, want the peak window's %v", i, s, l, r.ShardUtilization(w, s))
			}
			top = math.Max(top, l)
		}
		if top != best {
			t.Errorf("panel %d's tallest bar %v is not the run's hottest cell %v", i, top, best)
		}
	}
}

// The p99 series is the windows' p99 (NaN where nothing completed), and the CDF is a
// non-decreasing curve ending at 1 whose p99 mark is the summary's p99; no mark or point
// is above the max.
func TestLatencyChartData(t *testing.T) {
	sc, runs := runShared(t, "../testdata/small.toml")
	l := P99Data(sc, runs, 0)
	if len(l.Series) != len(runs) || len(l.Times) != runs[0].Result.Windows {
		t.Fatalf("%d series over %d times", len(l.Series), len(l.Times))
	}
	for i, run := range runs {
		for w, y := range l.Series[i].Y {
			win := &run.Result.Streams[0].Win[w]
			q := metrics.WindowQuantile(win, 0.99)
			if win.Completed == 0 && !math.IsNaN(y) || win.Completed > 0 && (q == nil || y != *q || y > win.Max.Millis()) {
				t.Errorf("variant %d window %d: p99 point %v, window has %d completions, p99 %v and max %v", i, w, y, win.Completed, q, win.Max.Millis())
			}
		}
	}
	// Every SLO threshold of the stream is a line (not only the first), and the variants'
	// lines are told apart by more than colour.
	slo := runs[0].Variant.Streams[0].SLO
	if len(l.Refs) != len(slo) || len(slo) < 2 || !l.Distinct {
		t.Errorf("%d reference lines for %d SLO thresholds (distinct styles: %v), want one each", len(l.Refs), len(slo), l.Distinct)
	}
	for k, r := range l.Refs {
		if k < len(slo) && r.Y != slo[k].Millis() {
			t.Errorf("reference line %d at %v ms, want the threshold %v", k, r.Y, slo[k])
		}
	}
	c := CDFData(sc, runs, 0)
	for i, cv := range c.Curves {
		if len(cv.Ms) < 10 || len(cv.Ms) > cdfPoints+1 {
			t.Errorf("curve %d has %d points", i, len(cv.Ms))
		}
		for j := 1; j < len(cv.Ms); j++ {
			if cv.Ms[j] < cv.Ms[j-1] || cv.Fraction[j] < cv.Fraction[j-1] {
				t.Fatalf("curve %d decreases at point %d", i, j)
			}
		}
		if last := cv.Fraction[len(cv.Fraction)-1]; last != 1 {
			t.Errorf("curve %d ends at %v, want 1", i, last)
		}
		l := metrics.StreamOf(runs[i].Result, 0).Latency
		if cv.P99 != *l.P99 || cv.P999 > *l.Max {
			t.Errorf("curve %d p99 mark %v, p999 mark %v; metrics say p99 %v, max %v", i, cv.P99, cv.P999, *l.P99, *l.Max)
		}
		// The fraction at the p99 latency is at least 0.99 and just below it less.
		for j := range cv.Ms {
			if cv.Ms[j] >= cv.P99 {
				if cv.Fraction[j] < 0.99 {
					t.Errorf("curve %d: fraction %v at p99 %v ms", i, cv.Fraction[j], cv.P99)
				}
				break
			}
		}
	}
}

func TestSlugs(t *testing.T) {
	for in, want := range map[string]string{
		"before: PK = (order_id), range sharded": "before-pk-order-id-range-sharded",
		"12 nodes":                               "12-nodes",
		"--x--":                                  "x",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[sim.Time]string{
		sim.Minute: "1m", sim.Hour: "1h", 90 * sim.Minute: "1h30m", 30 * sim.Second: "30s",
		1500 * sim.Millisecond: "1.5s", sim.Hour + sim.Second: "1h0m1s",
	} {
		if got := units.Duration(d); got != want {
			t.Errorf("units.Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// Counts read 81,986,634 in tables and stay plain integers in CSV.
func TestCountFormats(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 81986634: "81,986,634", -1234567: "-1,234,567"} {
		if got := units.Count(n); got != want {
			t.Errorf("units.Count(%d) = %q, want %q", n, got, want)
		}
	}
	var buf bytes.Buffer
	s := &Summary{Variants: []VariantSummary{{Name: "v", Streams: []StreamSummary{{Name: "w", Op: "write", Offered: 1234567, Completed: 1234567}}}}}
	if err := CSV(&buf, s); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("CSV: %v, %d rows", err, len(rows))
	}
	if rows[1][3] != "1234567" {
		t.Errorf("CSV offered = %q, want 1234567", rows[1][3])
	}
}

// TestChartsRenderedInParallel draws testdata/small.toml's charts one at a time and four
// at a time: the plan lists every file in report.md's order, and the parallel drawing
// writes the same bytes (run it with -race to check that the drawings share nothing).
func TestChartsRenderedInParallel(t *testing.T) {
	sc, runs := runAll(t, "../testdata/small.toml", `duration="40s"`)
	for _, format := range []string{"png"} {
		plan := PlanCharts(format, sc, runs)
		// shard-load, a heat chart per variant, p99 and cdf per stream.
		if want := 1 + len(runs) + 2*len(runs[0].Result.Streams); len(plan.Charts) != want {
			t.Fatalf("%s: %d charts planned, want %d", format, len(plan.Charts), want)
		}
		one, four := t.TempDir(), t.TempDir()
		if err := plan.Render(one, 1); err != nil {
			t.Fatal(err)
		}
		if err := plan.Render(four, 4); err != nil {
			t.Fatal(err)
		}
		for _, ch := range plan.Charts {
			a, err := os.ReadFile(filepath.Join(one, ch.File))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(four, ch.File))
			if err != nil {
				t.Fatal(err)
			}
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: %d bytes drawn alone, %d in parallel, or they differ", ch.File, len(a), len(b))
			}
		}
	}
}

package scenarios_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// TestRowsDoc makes the runs docs/keys.md ("Rows and LIMIT") and the Black Friday tour quote:
// black-friday's before, after and fixed variants over their first ten minutes, plain, with
// a cost per row, and with a cost per row and a row limit, and checks the story they tell:
// per partition the fan-out is several times slower; counting rows it is faster; with a
// limit every key reads one partition, within 2x.
func TestRowsDoc(t *testing.T) {
	variants := []string{"before", "after", "fixed"}
	configs := map[string][]string{
		"plain": nil,
		"rows":  {`streams[2].row_cost="10ns"`},
		"limit": {`streams[2].row_cost="5us"`, `streams[2].limit=1000`},
	}
	dash := map[string]map[string]metrics.Stream{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, sets := range configs {
		sc, err := scenarios.Load("black-friday", scenarios.Options{Sets: sets, Variants: variants,
			Overrides: []scenarios.Override{{Flag: "--duration 10m", Key: "duration", Value: `"10m"`, ScaleWarmup: true}}})
		if err != nil {
			t.Fatal(err)
		}
		dash[name] = map[string]metrics.Stream{}
		for i, v := range sc.Variants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := sim.Run(v.Model())
				s := metrics.StreamOf(r, 2) // dashboard_24h
				mu.Lock()
				dash[name][variants[i]] = s
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	p99 := func(c, v string) float64 { return *dash[c][v].Latency.P99 }
	ms := func(x float64) string {
		if x >= 1000 {
			return strconv.FormatFloat(x, 'f', 0, 64) + " ms"
		}
		return strconv.FormatFloat(x, 'g', 3, 64) + " ms"
	}
	ratio := func(c string) float64 { return p99(c, "after") / p99(c, "before") }
	if r := ratio("plain"); r < 3 {
		t.Errorf("plain: the after dashboard's p99 is %.1fx the before one's; the story needs several times", r)
	}
	if r := ratio("rows"); r > 1 {
		t.Errorf("rows: the after dashboard's p99 is %.1fx the before one's; reading its rows on 12 shards at once should be faster", r)
	}
	if r := ratio("limit"); r > 2 {
		t.Errorf("limit: the after dashboard's p99 is %.1fx the before one's; want within 2x", r)
	}
	for _, v := range variants {
		if rw := dash["limit"][v].Rows; rw == nil || rw.Mean != 1000 || dash["limit"][v].Fanout.Partitions != 1 {
			t.Errorf("limit, %s: rows %+v over %.1f partitions per scan, want 1,000 in 1", v, rw, dash["limit"][v].Fanout.Partitions)
		}
		// Each partition's count is rounded to whole rows: at most half a row each, 1,000
		// partitions at most, so the keys agree within 500 rows of 86 million.
		if d := dash["rows"][v].Rows.Mean - dash["rows"]["before"].Rows.Mean; d > 500 || d < -500 {
			t.Errorf("rows, %s: %.0f rows per scan, before reads %.0f: the last 24 hours hold the same orders on every key",
				v, dash["rows"][v].Rows.Mean, dash["rows"]["before"].Rows.Mean)
		}
	}
	figs := map[string]string{
		"rows.plain.before_p99": ms(p99("plain", "before")), "rows.plain.after_p99": ms(p99("plain", "after")),
		"rows.plain.ratio":     fmt.Sprintf("%.1fx", ratio("plain")),
		"rows.rows.read":       units.Count(int64(dash["rows"]["before"].Rows.Mean + 0.5)),
		"rows.rows.before_p99": ms(p99("rows", "before")), "rows.rows.after_p99": ms(p99("rows", "after")),
		"rows.rows.fixed_p99":   ms(p99("rows", "fixed")),
		"rows.limit.before_p99": ms(p99("limit", "before")), "rows.limit.after_p99": ms(p99("limit", "after")),
		"rows.limit.fixed_p99": ms(p99("limit", "fixed")), "rows.limit.ratio": fmt.Sprintf("%.1fx", ratio("limit")),
	}
	docmark.Apply(t, &docmark.Parts{Owner: "rows", Figs: figs}, "../docs/keys.md", "../docs/tour-black-friday.md")
}

package report

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
)

// TestSkewOfIdleLoads: a window in which no shard works has ratios of 1 (metrics'
// TestRatioOfIdleLoads), in the spreads and in skew.csv (docs/detection.md, "Skew
// statistics").
func TestSkewOfIdleLoads(t *testing.T) {
	show := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	// A window in which no shard works: both ratios of shards and of nodes are 1, the
	// Gini 0, and skew.csv prints them as 1 (not an empty cell). The next window, with
	// every shard at 50%, gives the same ratios from the quotient 0.5/0.5.
	_, run := handBuilt(t, 4, 2, func(w, s int) float64 {
		if w == 0 {
			return 0
		}
		return 0.5
	})
	ws := metrics.SkewSeries(run.Result)
	for w, want := range []float64{0, 0.5} {
		for name, sp := range map[string]LoadSpread{"shards": ws[w].Shards, "nodes": ws[w].Nodes} {
			if sp.MaxOverMedian == nil || *sp.MaxOverMedian != 1 || sp.P95OverP50 == nil || *sp.P95OverP50 != 1 ||
				sp.Gini != 0 || math.Abs(sp.Max-want) > 1e-12 || math.Abs(sp.Median-want) > 1e-12 {
				t.Errorf("window %d, %s: max %v, median %v, ratios %s and %s, Gini %v; want max and median %v, ratios 1, Gini 0",
					w, name, sp.Max, sp.Median, show(sp.MaxOverMedian), show(sp.P95OverP50), sp.Gini, want)
			}
		}
	}
	var b strings.Builder
	if err := skewCSV(&b, &metrics.Scenario{}, slices.Values([]Run{run})); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || lines[1] != "by user,00:00,0,0,0,1,1,0,0,0,1,1,0" {
		t.Errorf("skew.csv, idle window second:\n%s", b.String())
	}
}

package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/metrics"
)

// TestRatioOfIdleLoads: a ratio to a median of 0 is 1 when every load is 0 (all are
// equal) and undefined (nil) when the numerator is positive; otherwise it is the quotient
// (docs/detection.md, "Skew statistics").
func TestRatioOfIdleLoads(t *testing.T) {
	show := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	for _, tc := range []struct {
		a, b float64
		want float64 // -1: nil
	}{
		{0, 0, 1},
		{3, 0, -1},
		{0.001, 0, -1}, // any positive numerator
		{3, 2, 1.5},
		{0, 2, 0},
	} {
		got := ratioOrNil(tc.a, tc.b)
		switch {
		case tc.want < 0 && got != nil:
			t.Errorf("ratioOrNil(%v, %v) = %v, want nil", tc.a, tc.b, *got)
		case tc.want >= 0 && (got == nil || *got != tc.want):
			t.Errorf("ratioOrNil(%v, %v) = %s, want %v", tc.a, tc.b, show(got), tc.want)
		}
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
	ws := SkewSeries(run.Result)
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
	if err := skewCSV(&b, &metrics.Scenario{Start: 0}, []Run{run}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || lines[1] != "by user,00:00,0,0,0,1,1,0,0,0,1,1,0" {
		t.Errorf("skew.csv, idle window second:\n%s", b.String())
	}
}

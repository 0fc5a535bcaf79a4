package report

import (
	"io"
	"iter"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// skewCSV writes skew.csv: per variant and window, the spread of shard and node loads.
// An undefined ratio (a median of 0 under a working shard) is an empty cell.
func skewCSV(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error {
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return num(units.Round(*p, 3))
	}
	cols := func(sp LoadSpread) []string {
		return []string{num(metrics.Util(sp.Max)), num(metrics.Util(sp.Median)), opt(sp.MaxOverMedian), opt(sp.P95OverP50), num(units.Round(sp.Gini, 4))}
	}
	return seriesCSV(w, sc, runs, []string{
		"shard_max", "shard_median", "shard_max_over_median", "shard_p95_over_p50", "shard_gini",
		"node_max", "node_median", "node_max_over_median", "node_p95_over_p50", "node_gini"},
		func(r *sim.Result, win int) [][]string {
			ws := metrics.WindowSpreadOf(r, win)
			return [][]string{append(cols(ws.Shards), cols(ws.Nodes)...)}
		})
}

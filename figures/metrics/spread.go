package metrics

import (
	"slices"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// LoadSpread says how evenly a set of loads (shards' or nodes') is spread: the largest
// against the median, the 95th percentile against the median (both by nearest rank, see
// detect.Percentile, so with 20 or fewer loads p95 is the largest), and the Gini
// coefficient (0: even; 1 - 1/n: one of n takes everything). A ratio to a median of 0 is
// null while the numerator is positive, and 1 when every load is 0.
type LoadSpread struct {
	Max           float64  `json:"max"`
	Median        float64  `json:"median"`
	MaxOverMedian *float64 `json:"max_over_median"`
	P95OverP50    *float64 `json:"p95_over_p50"`
	Gini          float64  `json:"gini"`
}

// SpreadOf computes the spread of loads, unrounded.
func SpreadOf(loads []float64) LoadSpread {
	var sp LoadSpread
	for _, l := range loads {
		sp.Max = max(sp.Max, l)
	}
	sorted := slices.Clone(loads)
	slices.Sort(sorted)
	sp.Median = detect.MedianSorted(sorted)
	sp.MaxOverMedian = ratioOrNil(sp.Max, sp.Median)
	sp.P95OverP50 = ratioOrNil(detect.PercentileSorted(sorted, 0.95), detect.PercentileSorted(sorted, 0.5))
	sp.Gini = detect.GiniSorted(sorted)
	return sp
}

// Rounded returns sp with its loads rounded like utilizations and its ratios to 0.001.
func (sp LoadSpread) Rounded() LoadSpread {
	r := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		x := units.Round(*p, 3)
		return &x
	}
	return LoadSpread{Max: Util(sp.Max), Median: Util(sp.Median), MaxOverMedian: r(sp.MaxOverMedian),
		P95OverP50: r(sp.P95OverP50), Gini: units.Round(sp.Gini, 4)}
}

// ratioOrNil returns a/b; nil when b is 0 and a is not (an infinite ratio), 1 when both are.
func ratioOrNil(a, b float64) *float64 {
	var x float64
	switch {
	case b > 0:
		x = a / b
	case a == 0:
		x = 1
	default:
		return nil
	}
	return &x
}

// WindowSpread is the spread of shard and node loads in one window.
type WindowSpread struct {
	Shards, Nodes LoadSpread
}

// SkewSeries returns, per window, the spread of the shards' loads and of the nodes'.
func SkewSeries(r *sim.Result) []WindowSpread {
	out := make([]WindowSpread, r.Windows)
	for w := range out {
		out[w] = WindowSpreadOf(r, w)
	}
	return out
}

// WindowSpreadOf returns the spread of shard and node loads in window w.
func WindowSpreadOf(r *sim.Result, w int) WindowSpread {
	nodes := make([]float64, len(r.Nodes))
	for n := range nodes {
		nodes[n] = r.NodeUtilization(w, n)
	}
	if d := DigestOf(r); d != nil {
		// A streamed run kept the window's spread as it closed (ShardDigest).
		ws := &d.Windows[w]
		return WindowSpread{Shards: LoadSpread{Max: ws.Max, Median: ws.Median, MaxOverMedian: ratioOrNil(ws.Max, ws.Median),
			P95OverP50: ratioOrNil(ws.P95, ws.P50), Gini: ws.Gini}, Nodes: SpreadOf(nodes)}
	}
	shards := make([]float64, len(r.Shards))
	for s := range shards {
		shards[s] = r.ShardUtilization(w, s)
	}
	return WindowSpread{Shards: SpreadOf(shards), Nodes: SpreadOf(nodes)}
}

// RunSpread returns the spread of the shards' and the nodes' loads over the whole run.
func RunSpread(r *sim.Result) (shards, nodes LoadSpread) {
	sl := make([]float64, len(r.Shards))
	for s := range sl {
		sl[s] = r.Utilization(s)
	}
	nl := make([]float64, len(r.Nodes))
	for n := range nl {
		nl[n] = r.NodeLoad(n)
	}
	return SpreadOf(sl), SpreadOf(nl)
}

package cache

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// The cache's diagnosis rule, cache_stampede (docs/detection.md), on the figures of the
// streams that read through it.

// ruleRank places cache_stampede among the rules the mechanisms register: first, before the
// split chain's monotonic_key (200) and hot_index_partition (300).
const ruleRank = 100

// stampedeRatio: backend reads in a window at least this many times their mean over the
// run make a stampede, when a node is at stampedeNodeLoad or more in that window (the line
// of the node_cpu alert).
const (
	stampedeRatio    = 3.0
	stampedeNodeLoad = diagnose.NodeCPULine
)

func init() { diagnose.RegisterRule(ruleRank, "cache_stampede", stampedes) }

// stampedes applies cache_stampede: a stream whose cache misses pile onto the database in
// bursts (many reads of an expired key at once) while no miss ever waited for another (no
// single-flight), and a node is overloaded when they do.
func stampedes(v diagnose.Finding) {
	r, run, sc := v.Result(), v.Run(), v.Scenario()
	// The cache starts empty: the warmup's misses are not a stampede.
	first := int((sc.Warmup + r.Window - 1) / r.Window)
	for i := range run.Streams {
		c := run.Streams[i].Cache
		if c == nil || c.BackendReads == 0 || c.Joined > 0 {
			continue
		}
		peak, peakW, mean, ok := metrics.BackendPeak(r, i, first)
		if !ok || mean == 0 || float64(peak) < stampedeRatio*mean {
			continue
		}
		node, nl := metrics.HottestNodeIn(r, peakW)
		if nl < stampedeNodeLoad {
			continue
		}
		name := run.Streams[i].Name
		v.Add(diagnose.Diagnosis{Kind: "cache_stampede", Subject: name,
			Message: fmt.Sprintf("%s's cache misses reach the database in bursts: %s backend reads in the window at %s against %.0f per window on average, while node %d runs at %s; misses of an expired key all read the database until the first answer returns: turn on single_flight (and stale_while_revalidate), or add TTL jitter",
				name, units.Count(peak), units.Clock(sc.Start, sim.Time(peakW)*r.Window, units.TimeOfDay), mean, node, units.Percent(nl, 1)),
			Evidence: map[string]float64{"peak_backend_reads": float64(peak), "mean_backend_reads": mean, "node": float64(node), "node_load": metrics.Util(nl)}})
	}
}

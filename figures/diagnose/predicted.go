package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Predicted applies the rules to a design's prediction (explain), before any simulation:
// notes for a write stream whose partitions land at least 99% on one shard and for every
// shard predicted over its cores (a node is Sanity's warning), and warnings for every node that holds two or
// more predicted-hot shards (CoLocated), judged on the loads explain prints: rounded as
// in its tables.
func Predicted(p *metrics.Prediction) (notes, warnings []string) {
	for _, st := range p.Streams {
		if st.Op != sim.Write || st.Partitions <= 0 {
			continue
		}
		for sh, x := range st.Shares {
			if x/st.Partitions >= 0.99 {
				notes = append(notes, fmt.Sprintf("stream %s: %.1f%% of its writes go to shard %d (node %d)",
					st.Name, 100*x/st.Partitions, sh, p.Shards[sh].Node))
			}
		}
	}
	peaks := make([]float64, len(p.Shards))
	for i, l := range p.Shards {
		peaks[i] = metrics.Util(l.Peak)
		if l.Peak > 1 {
			notes = append(notes, fmt.Sprintf("shard %d is offered %s of node %d's cores at peak: over capacity", l.ID, units.Percent(l.Peak, 1), l.Node))
		}
	}
	med := metrics.Median(peaks)
	for _, l := range p.Nodes {
		if hot := CoLocated(metrics.Util(l.Peak), ShardsOf(p, l.ID), peaks, med); hot != nil {
			warnings = append(warnings, fmt.Sprintf("node %d holds hot shards %s (predicted peak %s of its %s: %s); move all but one to other nodes (cluster.placement or shard_nodes) or add nodes",
				l.ID, joinInts(hot), units.Percent(metrics.Util(l.Peak), 1), metrics.Cores(float64(l.Cores)), shardLoads(hot, peaks)))
		}
	}
	return notes, warnings
}

// ShardsOf returns the shards node holds in prediction p (their leaders), in increasing
// order.
func ShardsOf(p *metrics.Prediction, node int) []int {
	shards := []int{}
	if node < len(p.NodeShard) {
		shards = append(shards, p.NodeShard[node]...)
	}
	slices.Sort(shards)
	return shards
}

// joinInts lists ids: "3, 7, 11".
func joinInts(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ", ")
}

// shardLoads lists shards with their loads: "shard 3 40.1%, shard 7 38.0%".
func shardLoads(ids []int, loads []float64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("shard %d %s", id, units.Percent(loads[id], 1))
	}
	return strings.Join(parts, ", ")
}

package compile

import (
	rebalancem "github.com/shardsim/shardsim/mechanisms/rebalance"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// rebalance builds the model's rebalance (issue 21; mechanisms/rebalance, put first among
// Model.Mechanisms, so that it names why the run keeps to one engine) from the variant's
// add_nodes action and appends the nodes that join to m.Nodes, each with the cores and queue limit of the
// cluster's first node. A copied row costs the rebalance's read_cost on the old node and
// its write_cost on the new one; by default, as a migration's backfill, one point read's
// cost and one write's. The table's history (the write streams' initial rate times
// table.history) is spread evenly over the shards.
func rebalance(s *scenario.Resolved, m *sim.Model) *rebalancem.Rebalance {
	g := s.Rebalance
	out := &rebalancem.Rebalance{At: g.At, First: len(m.Nodes), Rate: g.Rate, MaxCPU: g.MaxCPU, Parallel: g.Parallel}
	for range g.Count {
		m.Nodes = append(m.Nodes, m.Nodes[0])
	}
	out.ReadCost, out.WriteCost, out.HistoryRows = rowCopyCosts(s, g.ReadCost, g.WriteCost)
	return out
}

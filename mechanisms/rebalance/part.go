package rebalance

import (
	"fmt"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The rebalance's place among a model's settings (scenario.ModelPart): first after the
// followers', so that it names why the run keeps to one engine; built after a migration
// (whose tenant's shards are placed before any node joins), its note last of the timed
// ones.
const (
	partRank  = -40
	partBuild = 40
)

func init() {
	scenario.RegisterModelPart(scenario.ModelPart{Name: "rebalance", Rank: partRank, Build: partBuild,
		Make: build, Note: note})
}

// build builds the model's rebalance from the variant's add_nodes action and appends the
// nodes that join to the model's nodes, each with the cores and queue limit of the
// cluster's first node; nil without one. A copied row costs the rebalance's read_cost on
// the old node and its write_cost on the new one; by default, as a migration's backfill,
// one point read's cost and one write's (scenario.RowCopyCosts). The table's history (the
// write streams' initial rate times table.history) is spread evenly over the shards.
func build(b scenario.ModelBuild) sim.Setting {
	s, m := b.Scenario(), b.Model()
	g := s.Rebalance
	if g == nil {
		return nil
	}
	out := &Rebalance{At: g.At, First: len(m.Nodes), Rate: g.Rate, MaxCPU: g.MaxCPU, Parallel: g.Parallel}
	for range g.Count {
		m.Nodes = append(m.Nodes, m.Nodes[0])
	}
	out.ReadCost, out.WriteCost, out.HistoryRows = scenario.RowCopyCosts(s, g.ReadCost, g.WriteCost)
	return out
}

// note says that explain's figures are for the cluster before the nodes join; "" without
// a rebalance.
func note(s *scenario.Resolved, _ *sim.Model) string {
	if g := s.Rebalance; g != nil {
		return fmt.Sprintf("the figures are for the cluster before add_nodes: its %d new nodes and the shard moves onto them happen only in a run", g.Count)
	}
	return ""
}

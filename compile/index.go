package compile

import (
	"github.com/shardsim/shardsim/scenario"
)

// IndexPlacement returns the node of each of index j's shards: placed as the table's
// shards are (an explicit list places the table only: its index round-robin), and
// continuing where the table's round leaves off, so that index shard 0 goes to the node
// after the table's last shard's. The work estimate counts each index's entries on these
// nodes; the index's setting places its shards as the same (scenario.ModelBuild's
// PlacementAfter).
func IndexPlacement(s *scenario.Resolved, j int) []int {
	first := s.Shards
	for _, x := range s.Indexes[:j] {
		first += x.Layout.Shards
	}
	return placementAfter(s.Indexes[j].Layout, first, len(s.Nodes))
}

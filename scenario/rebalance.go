package scenario

import (
	"github.com/shardsim/shardsim/sim"
)

// RebalanceSpec is a resolved add_nodes action (mechanisms/rebalance declares, checks and
// resolves its keys; the rest of the scenario, compile and the reports read it): Count
// nodes of the cluster's cores join At, and shards move to them one at a time, each copied
// at Rate rows per second.
type RebalanceSpec struct {
	Key   string // its dotted key, "actions[2]", for messages
	At    sim.Time
	Count int
	Rate  float64
	// MaxCPU caps a copy's CPU on a node (a fraction of its cores; 0: no cap).
	MaxCPU float64
	// ReadCost and WriteCost are the CPU time of copying one row (0: the variant's point
	// read's and write's cost, RowCopyCosts).
	ReadCost, WriteCost sim.Time
	// Parallel is how many moves run at once.
	Parallel int
}

package scenario

import (
	"github.com/shardsim/shardsim/sim"
)

// maxAddNodes bounds an add_nodes action.
const maxAddNodes = 256

// RebalanceSpec is a resolved add_nodes action (issue 21): Count nodes of the cluster's
// cores join At, and shards move to them one at a time, each copied at Rate rows per
// second.
type RebalanceSpec struct {
	Key   string // its dotted key, "actions[2]", for messages
	At    sim.Time
	Count int
	Rate  float64
	// MaxCPU caps a copy's CPU on a node (a fraction of its cores; 0: no cap).
	MaxCPU float64
	// ReadCost and WriteCost are the CPU time of copying one row (0: the variant's point
	// read's and write's cost, see build).
	ReadCost, WriteCost sim.Time
	// Parallel is how many moves run at once.
	Parallel int
}

// maxParallelMoves bounds rebalance.parallel.
const maxParallelMoves = 1024

// resolveRebalance checks an action's add_nodes and its rebalance table.
func resolveRebalance(c *checker, s *Resolved, key string, a Action) {
	if s.Rebalance != nil {
		c.add(key+".add_nodes", "a run adds nodes once, and %s already does", s.Rebalance.Key)
		return
	}
	g := &RebalanceSpec{Key: key, Count: *a.AddNodes, Parallel: 1}
	if g.Count < 1 || g.Count > maxAddNodes || len(s.Nodes)+g.Count > 32767 {
		c.add(key+".add_nodes", "must be a number of nodes from 1 to %d (got %d)", maxAddNodes, g.Count)
	}
	b := a.Rebalance
	if b == nil {
		c.add(key+".rebalance", "required with add_nodes: rebalance = { rate = ROWS_PER_S }, the rows per second a shard's copy moves")
		return
	}
	g.Rate = c.rowRate(key+".rebalance.rate", "a shard's copy moves", b.Rate)
	g.MaxCPU = c.maxCPU(key+".rebalance.max_cpu", b.MaxCPU)
	if p := b.Parallel; p != nil {
		if *p < 1 || *p > maxParallelMoves {
			c.add(key+".rebalance.parallel", "must be a number of moves at once from 1 to %d (got %d)", maxParallelMoves, *p)
		} else {
			g.Parallel = *p
		}
	}
	if b.ReadCost.Set() {
		g.ReadCost = c.duration(key+".rebalance.read_cost", b.ReadCost, "", 1)
	}
	if b.WriteCost.Set() {
		g.WriteCost = c.duration(key+".rebalance.write_cost", b.WriteCost, "", 1)
	}
	rebalanceConflicts(c, s, key)
	s.Rebalance = g
}

// rebalanceConflicts refuses what the engine does not combine with a rebalance yet.
func rebalanceConflicts(c *checker, s *Resolved, key string) {
	switch {
	case s.Split != nil:
		c.add(key+".add_nodes", "cannot be combined with keyspace.split (automatic splits) yet")
	case s.Limits != nil:
		c.add(key+".add_nodes", "cannot be combined with partition limits yet")
	case s.Replicas > 0:
		c.add(key+".add_nodes", "cannot be combined with cluster.replicas yet (a follower's node follows the node count)")
	}
}

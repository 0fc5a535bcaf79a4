package rebalance

import (
	"fmt"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The rebalance's keys, an [[actions]] entry's add_nodes and its rebalance table
// (docs/scenario.md, "[[actions]]"; docs/migrations.md, "Adding nodes"), are declared and
// checked here. add_nodes is a setting an action changes (scenario.RegisterActionSetting),
// resolved in the actions' order into Resolved.Rebalance (scenario.RebalanceSpec), which
// the rest of the scenario reads (a migration and an index refuse it) and compile builds
// the setting from (Rebalance). An add_nodes action after the run's end is checked and
// dropped (drop), and a rebalance refuses a migration once every action is read
// (withMigration).

// Table is an action's rebalance table as written: { rate = N, max_cpu = x, read_cost,
// write_cost, parallel }.
type Table struct {
	Rate      *float64          `toml:"rate"`
	MaxCPU    *float64          `toml:"max_cpu"`
	ReadCost  scenario.Duration `toml:"read_cost"`
	WriteCost scenario.Duration `toml:"write_cost"`
	// Parallel is how many shard moves run at once (default 1).
	Parallel *int `toml:"parallel"`
}

var (
	addNodesKey = scenario.ActionKey[int]("add_nodes", "none",
		"N nodes join at `at` and shards move onto them, with `rebalance`: the keys of an `add_nodes` action are described in [`[[actions]]`](#actions) above (docs/migrations.md, \"Adding nodes\")")
	tableKey = scenario.ActionKey[*Table]("rebalance", "none",
		"a table, with `add_nodes`: how the shards move onto the nodes that join (`rate`, `max_cpu`, `read_cost`, `write_cost`, `parallel`), described in [`[[actions]]`](#actions) above")
)

// Bounds of the keys.
const (
	maxAddNodes      = 256
	maxNodes         = 32767 // the nodes a run may have, those that join included
	maxParallelMoves = 1024
)

// rank puts add_nodes after the migration's migrate among the settings actions change, in
// the problems and in the hint of an action that says nothing to do.
const rank = 40

func init() {
	scenario.RegisterActionSetting(scenario.ActionSetting{
		Keys: []string{addNodesKey.Name()}, Hints: []string{"add_nodes = N with rebalance = { rate = ROWS_PER_S }"}, Rank: rank,
		Resolve: resolveAddNodes, Others: onlyWithAddNodes, Text: text, Drop: drop, After: withMigration,
	})
	scenario.RegisterLoadChange(rebalances)
}

// rebalances reports whether s rebalances, which moves shards and their load onto the
// nodes it adds during the run (scenario.Resolved.LoadsChange).
func rebalances(s *scenario.Resolved) bool { return s.Rebalance != nil }

// drop takes out of s the rebalance an action after the run's end would start: it is
// checked, and no part of the run.
func drop(s *scenario.Resolved) { s.Rebalance = nil }

// withMigration refuses a rebalance in a run that also migrates, once every action has
// been checked (whichever of the two comes first).
func withMigration(c *scenario.Checker, s *scenario.Resolved) {
	if s.Rebalance != nil && s.Migration != nil {
		c.Add(s.Rebalance.Key+".add_nodes", "cannot be combined with a migration (%s) yet", s.Migration.Key)
	}
}

// resolveAddNodes checks an action's add_nodes and its rebalance table into s.Rebalance.
func resolveAddNodes(c *scenario.Checker, s *scenario.Resolved, key string, a *scenario.Action, act *scenario.ActionSpec) {
	resolve(c, s, key, a)
	if s.Rebalance != nil {
		s.Rebalance.At = act.At
	}
}

func resolve(c *scenario.Checker, s *scenario.Resolved, key string, a *scenario.Action) {
	if s.Rebalance != nil {
		c.Add(key+".add_nodes", "a run adds nodes once, and %s already does", s.Rebalance.Key)
		return
	}
	count, _ := addNodesKey.In(a.Ext)
	g := &scenario.RebalanceSpec{Key: key, Count: count, Parallel: 1}
	if g.Count < 1 || g.Count > maxAddNodes || len(s.Nodes)+g.Count > maxNodes {
		c.Add(key+".add_nodes", "must be a number of nodes from 1 to %d (got %d)", maxAddNodes, g.Count)
	}
	b, _ := tableKey.In(a.Ext)
	if b == nil {
		c.Add(key+".rebalance", "required with add_nodes: rebalance = { rate = ROWS_PER_S }, the rows per second a shard's copy moves")
		return
	}
	g.Rate = c.RowRate(key+".rebalance.rate", "a shard's copy moves", b.Rate)
	g.MaxCPU = c.MaxCPU(key+".rebalance.max_cpu", b.MaxCPU)
	if p := b.Parallel; p != nil {
		if *p < 1 || *p > maxParallelMoves {
			c.Add(key+".rebalance.parallel", "must be a number of moves at once from 1 to %d (got %d)", maxParallelMoves, *p)
		} else {
			g.Parallel = *p
		}
	}
	if b.ReadCost.Set() {
		g.ReadCost = c.Duration(key+".rebalance.read_cost", b.ReadCost, "", 1)
	}
	if b.WriteCost.Set() {
		g.WriteCost = c.Duration(key+".rebalance.write_cost", b.WriteCost, "", 1)
	}
	conflicts(c, s, key)
	s.Rebalance = g
}

// conflicts refuses what the engine does not combine with a rebalance yet.
func conflicts(c *scenario.Checker, s *scenario.Resolved, key string) {
	switch {
	case s.Split != nil:
		c.Add(key+".add_nodes", "cannot be combined with keyspace.split (automatic splits) yet")
	case s.Limits != nil:
		c.Add(key+".add_nodes", "cannot be combined with partition limits yet")
	case s.Replicas > 0:
		c.Add(key+".add_nodes", "cannot be combined with cluster.replicas yet (a follower's node follows the node count)")
	}
}

// onlyWithAddNodes refuses a rebalance table on an action that adds no nodes.
func onlyWithAddNodes(c *scenario.Checker, key string, a *scenario.Action) {
	if _, given := tableKey.In(a.Ext); given {
		c.Add(key+".rebalance", "applies only to add_nodes actions")
	}
}

// text says what an add_nodes action does, for the timeline: nodes are the nodes before it.
func text(s *scenario.Resolved, nodes []sim.Node, _ *scenario.ActionSpec) string {
	g := s.Rebalance
	return fmt.Sprintf("%d nodes join (nodes %d to %d); shards move to them at %s rows/s", g.Count, len(nodes), len(nodes)+g.Count-1, scenario.GroupDigits(g.Rate))
}

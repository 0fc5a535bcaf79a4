package replicas

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The followers' keys, [cluster] replicas, read_from and apply_cost (docs/scenario.md,
// "[cluster]"; docs/mitigations.md, "Followers"), are declared and checked here, and
// resolved right after [cluster] (scenario.RegisterClusterMechanism) into
// Resolved.Replicas, ReadAny and ApplyCost, which the rest of the scenario reads (a
// rebalance refuses followers) and the followers' model part builds the setting (Replicas)
// and says what they add to compile's estimates and explain from (part.go).

// ReadFrom is where reads and scans go when shards have followers.
type ReadFrom string

const (
	ReadLeader ReadFrom = "leader"
	ReadAny    ReadFrom = "any"
)

func (r *ReadFrom) DecodeTOML(v any) error { return scenario.DecodeEnum(r, v, ReadLeader, ReadAny) }

var (
	replicasKey = scenario.ClusterKey[*int]("replicas", "`0`",
		"followers of every shard, 0 to nodes - 1: described in [`[cluster]`](#cluster) above (docs/mitigations.md, \"Followers (replicas)\")")
	readFromKey = scenario.ClusterKey[ReadFrom]("read_from", "`\"leader\"`",
		"`leader` or `any`: where reads and scans go when shards have followers, described in [`[cluster]`](#cluster) above")
	applyCostKey = scenario.ClusterKey[scenario.Duration]("apply_cost", "each write stream's `cost`",
		"CPU time a follower spends applying one write, described in [`[cluster]`](#cluster) above")
)

// maxApplyCost bounds apply_cost as every request's cost is bounded.
const maxApplyCost = sim.Hour

func init() {
	scenario.RegisterClusterMechanism(resolve)
	scenario.RegisterEffective(effective)
	scenario.RegisterServiceAdded(applyCost)
}

// applyCost is the longest service a follower's apply of a write takes at its node, apart
// from the writes' own costs (scenario.Resolved.LongestAdded): apply_cost, 0 when each
// write's apply costs its stream's cost.
func applyCost(s *scenario.Resolved) sim.Time { return s.ApplyCost }

// effective clears the followers' options of a variant without followers, which change
// nothing in its model (scenario.Resolved.Effective).
func effective(e *scenario.Resolved) {
	if e.Replicas == 0 {
		e.ReadAny, e.ApplyCost = false, 0
	}
}

// resolve reads cluster.replicas, read_from and apply_cost.
func resolve(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	x := f.Cluster.Ext
	nodes := len(s.Nodes)
	if r, ok := replicasKey.In(x); ok && r != nil {
		switch r := *r; {
		case r < 0:
			c.Add("cluster.replicas", "must not be negative (got %d)", r)
		case nodes > 0 && r > nodes-1:
			c.Add("cluster.replicas", "must be at most nodes - 1 = %d: each follower of a shard lives on another node (got %d)", nodes-1, r)
		default:
			s.Replicas = r
		}
	}
	from, _ := readFromKey.In(x)
	s.ReadAny = c.OneOf("cluster.read_from", string(from), "leader", "leader", "any") == "any"
	if d, ok := applyCostKey.In(x); ok && d.Set() {
		if s.ApplyCost = c.Duration("cluster.apply_cost", d, "", 1); s.ApplyCost > maxApplyCost {
			c.Add("cluster.apply_cost", "must be at most %s (got %q)", maxApplyCost, d)
			s.ApplyCost = 0
		}
	}
}

package split

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Automatic splits' keys: the [keyspace.split] table (docs/scenario.md, docs/mitigations.md
// "Automatic shard splits"), declared and checked here, and split_for_heat, a key of
// [keyspace.limits] that mechanisms/limits declares and resolves into
// scenario.PartitionLimits.SplitForHeat. They resolve into scenario.SplitPolicy
// (Resolved.Split) and the most shards splits may reach (Resolved.MaxShards), which the
// rest of the scenario reads (a rebalance and an index refuse splits, a migration's target
// counts its shards after them, a variant that splits keeps its shard series), so they are
// resolved right after [keyspace] and its limits (scenario.RegisterKeyspaceMechanism). No
// resolver of this folder appends the setting: each model routes through a splitter of its
// own, so compile gives each model its Split (Setting).

// Table is the [keyspace.split] table as written.
type Table struct {
	Rows      *int64            `toml:"rows"`
	Load      *float64          `toml:"load"`
	Move      scenario.Duration `toml:"move"`
	MaxShards *int              `toml:"max_shards"`
}

var tableKey = scenario.KeyspaceKey[Table]("split", "none",
	"a table: shards split while the run goes on, by size (`rows`) and by load (`load`): its keys are listed in [`[keyspace.split]`](#keyspacesplit) above (docs/mitigations.md, \"Automatic splits\")")

// Defaults and bounds of the keys.
const (
	defaultMove  = "30s"
	shardsFactor = 4                      // default max_shards: 4 x shards
	maxShards    = 100_000                // as keyspace.shards
	maxMove      = 10_000 * 24 * sim.Hour // as every duration
)

func init() {
	scenario.RegisterKeyspaceMechanism(resolveKeys)
	scenario.RegisterWindowsHeld(splits)
	scenario.RegisterLoadChange(splits)
}

// splits reports whether s's shards split during the run: its shard series are held, not
// streamed (scenario.Resolved.Streamed), and the splits move load between the nodes, so
// the offered loads computed without running are not the loads it meets
// (scenario.Resolved.LoadsChange).
func splits(s *scenario.Resolved) bool { return s.Split != nil }

// resolveKeys reads [keyspace.split], after [keyspace.limits] (split_for_heat splits too),
// into s.Split and s.MaxShards.
func resolveKeys(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	sp, given := tableKey.In(f.Keyspace.Ext)
	heat := s.Limits != nil && s.Limits.SplitForHeat
	if (!given && !heat) || s.Shards == 0 {
		return
	}
	pol := &scenario.SplitPolicy{}
	most := min(shardsFactor*s.Shards, maxShards) // the Splitter's bound
	pol.Move, _ = units.ParseDuration(defaultMove)
	key := "keyspace.limits.split_for_heat"
	if given {
		key = "keyspace.split"
		most = settings(c, &sp, s, pol, most)
	}
	if !heat && pol.Rows == 0 && pol.Load == 0 {
		return // both triggers off: no splitting
	}
	if why := s.Scheme.SplitRefusal(); why != "" {
		c.Add(key, "%s", why)
		return
	}
	pol.Throttled = heat
	s.Split = pol
	s.MaxShards = most
}

// settings reads [keyspace.split]'s triggers (rows, load), a move's time and the most
// shards splits may reach (most unless max_shards is given), into pol.
func settings(c *scenario.Checker, sp *Table, s *scenario.Resolved, pol *scenario.SplitPolicy, most int) int {
	if sp.Rows != nil {
		if *sp.Rows < 0 {
			c.Add("keyspace.split.rows", "must not be negative (got %d); 0 turns size splits off", *sp.Rows)
		} else {
			pol.Rows = *sp.Rows
		}
	}
	if sp.Load != nil {
		if l := *sp.Load; !(l >= 0 && l <= 1) {
			c.Add("keyspace.split.load", "must be a fraction of the node's cores above 0 and at most 1, or 0 for no load splits (got %v)", l)
		} else {
			pol.Load = l
		}
	}
	if pol.Move = c.Duration("keyspace.split.move", sp.Move, defaultMove, 0); pol.Move > maxMove {
		c.Add("keyspace.split.move", "must be at most 10000d (got %q)", sp.Move)
	}
	if sp.MaxShards == nil {
		return most
	}
	switch n := *sp.MaxShards; {
	case n < s.Shards:
		c.Add("keyspace.split.max_shards", "must be at least keyspace.shards = %d (got %d)", s.Shards, n)
	case n > maxShards:
		c.Add("keyspace.split.max_shards", "must be at most %d (got %d)", maxShards, n)
	default:
		return n
	}
	return most
}
